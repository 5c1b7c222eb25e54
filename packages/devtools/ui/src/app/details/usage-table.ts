import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';
import type { ReplyRecord } from '@rxscope/devtools';
import { usageView } from './usage-rows';

/** Token usage and cost per model call, and the reply's totals. */
@Component({
  selector: 'dt-usage-table',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <table aria-label="Usage and cost">
      <thead>
        <tr>
          <th scope="col">Model call</th>
          <th scope="col">Input tokens</th>
          <th scope="col">Output tokens</th>
          <th scope="col">Cost</th>
          <th scope="col">Time</th>
        </tr>
      </thead>
      <tbody>
        @for (call of usage().calls; track call.seq; let i = $index) {
          <tr class="call">
            <td>
              {{ i + 1 }}. <code>{{ call.model }}</code>
              @if (call.source) {
                ({{ call.source }})
              }
            </td>
            <td>
              {{ call.inputTokens }}
              @if (call.cacheReadTokens) {
                ({{ call.cacheReadTokens }} cached)
              }
            </td>
            <td>
              {{ call.outputTokens }}
              @if (call.reasoningTokens) {
                ({{ call.reasoningTokens }} reasoning)
              }
            </td>
            <td>{{ money(call.costUsd) }}</td>
            <td>{{ call.durationMs === undefined ? '—' : call.durationMs.toFixed(1) + ' ms' }}</td>
          </tr>
        }
      </tbody>
      <tfoot>
        <tr class="total">
          <th scope="row">Reply</th>
          <td>{{ usage().inputTokens }}</td>
          <td>{{ usage().outputTokens }}</td>
          <td>{{ money(usage().costUsd) }}</td>
          <td></td>
        </tr>
      </tfoot>
    </table>
  `,
  styles: `
    .total {
      font-weight: 600;
    }
  `,
})
export class UsageTable {
  readonly record = input.required<ReplyRecord>();
  protected readonly usage = computed(() => usageView(this.record()));
  protected money(usd: number | undefined): string {
    return usd === undefined ? '—' : `$${usd < 0.01 ? usd.toFixed(5) : usd.toFixed(4)}`;
  }
}
