import { ChangeDetectionStrategy, Component, input } from '@angular/core';
import { type ShownValue, formatBytes } from '../records/shown-value';

/** A recorded value in a scrolling box; a truncated one says how big the original was. */
@Component({
  selector: 'dt-value',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    @if (value().text) {
      <pre>{{ value().text }}</pre>
    }
    @if (value().truncatedSize !== undefined) {
      <span class="truncated">truncated, {{ size() }}</span>
    }
  `,
  styles: `
    pre {
      margin: 0;
      max-height: 8rem;
      max-width: 32rem;
      overflow: auto;
      white-space: pre-wrap;
      word-break: break-all;
    }
    .truncated {
      display: inline-block;
      margin-top: 0.2rem;
      padding: 0 0.4rem;
      border-radius: 4px;
      background: #fff4d6;
      font-size: 12px;
    }
  `,
})
export class ShownValueView {
  readonly value = input.required<ShownValue>();
  protected size(): string {
    return formatBytes(this.value().truncatedSize ?? 0);
  }
}
