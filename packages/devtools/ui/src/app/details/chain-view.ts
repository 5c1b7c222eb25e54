import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';
import type { ReplyRecord } from '@rxscope/devtools';
import { showValue } from '../records/shown-value';
import { ShownValueView } from './shown-value-view';

/** The middleware chain of each hook, outermost first, and the harness description when there is one. */
@Component({
  selector: 'dt-chain-view',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [ShownValueView],
  template: `
    <dl>
      @for (hook of record().chain; track hook.hook) {
        <dt>
          <code>{{ hook.hook }}</code>
        </dt>
        <dd>
          @if (hook.layers.length) {
            <ol [attr.aria-label]="hook.hook + ' layers, outermost first'">
              @for (layer of hook.layers; track $index) {
                <li>{{ layer }}</li>
              }
            </ol>
          } @else {
            <span class="none">no middleware (the core step directly)</span>
          }
        </dd>
      }
    </dl>
    @if (harness(); as h) {
      <h3>Harness</h3>
      <dt-value [value]="h" />
    }
  `,
  styles: `
    dl {
      display: grid;
      grid-template-columns: max-content 1fr;
      gap: 0.3rem 1rem;
    }
    dd {
      margin: 0;
    }
    ol {
      margin: 0;
      padding: 0;
      list-style: none;
      display: flex;
      flex-wrap: wrap;
      gap: 0.3rem;
    }
    li {
      border: 1px solid var(--line);
      border-radius: 4px;
      padding: 0 0.4rem;
      background: var(--panel);
    }
    li + li::before {
      content: '→ ';
      color: var(--muted);
    }
    .none {
      color: var(--muted);
    }
    h3 {
      font-size: 0.9rem;
    }
  `,
})
export class ChainView {
  readonly record = input.required<ReplyRecord>();
  protected readonly harness = computed(() => {
    const h = this.record().harness;
    return h === undefined ? undefined : showValue(h);
  });
}
