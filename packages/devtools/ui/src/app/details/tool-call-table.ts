import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';
import type { ReplyRecord } from '@rxscope/devtools';
import { ShownValueView } from './shown-value-view';
import { toolCallRows } from './tool-call-rows';

/** The reply's tool calls: input, output, status and time. */
@Component({
  selector: 'dt-tool-call-table',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [ShownValueView],
  template: `
    @if (rows().length) {
      <table aria-label="Tool calls">
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">Input</th>
            <th scope="col">Output</th>
            <th scope="col">Status</th>
            <th scope="col">Time</th>
          </tr>
        </thead>
        <tbody>
          @for (row of rows(); track row.toolCallId) {
            <tr [attr.data-tool-call-id]="row.toolCallId" [attr.data-status]="row.status">
              <td>
                <code class="name">{{ row.name }}</code><br /><small>{{ row.toolCallId }}</small>
              </td>
              <td><dt-value [value]="row.input" /></td>
              <td><dt-value [value]="row.output" /></td>
              <td class="status">{{ row.status }}</td>
              <td class="time">
                +{{ (row.startedAt - start()).toFixed(0) }} ms<br />{{
                  row.durationMs === undefined ? 'running' : row.durationMs.toFixed(1) + ' ms'
                }}
              </td>
            </tr>
          }
        </tbody>
      </table>
    } @else {
      <p class="none">No tool calls.</p>
    }
  `,
  styles: `
    .status {
      font-weight: 600;
    }
    .time {
      white-space: nowrap;
    }
    tr[data-status='error'] .status,
    tr[data-status='denied'] .status {
      color: var(--err);
    }
    tr[data-status='success'] .status {
      color: var(--ok);
    }
    .none {
      color: var(--muted);
    }
  `,
})
export class ToolCallTable {
  readonly record = input.required<ReplyRecord>();
  protected readonly rows = computed(() => toolCallRows(this.record()));
  protected readonly start = computed(() => this.record().summary.startedAt);
}
