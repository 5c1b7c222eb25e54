import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';
import type { ReplyRecord } from '@rxscope/devtools';
import { confirmationRows } from './confirmation-rows';
import { ShownValueView } from './shown-value-view';

/** The confirmations the reply asked for, and how each was answered. */
@Component({
  selector: 'dt-confirmation-table',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [ShownValueView],
  template: `
    @if (rows().length) {
      <table aria-label="Confirmations">
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">Asked with</th>
            <th scope="col">Answer</th>
            <th scope="col">Waited</th>
          </tr>
        </thead>
        <tbody>
          @for (row of rows(); track row.toolCallId) {
            <tr [attr.data-tool-call-id]="row.toolCallId" [attr.data-answer]="row.answer">
              <td>
                <code>{{ row.name }}</code>
                @if (row.reason) {
                  <br /><small>{{ row.reason }}</small>
                }
              </td>
              <td><dt-value [value]="row.input" /></td>
              <td class="answer">
                {{ row.alwaysAllow ? row.answer + ', always allowed' : row.answer }}
                @if (row.answerReason) {
                  <br /><small>{{ row.answerReason }}</small>
                }
                @if (row.editedInput; as edited) {
                  <br /><small>edited input:</small><dt-value [value]="edited" />
                }
              </td>
              <td>
                {{ row.answeredAt === undefined ? '—' : ((row.answeredAt - row.askedAt) / 1000).toFixed(1) + ' s' }}
              </td>
            </tr>
          }
        </tbody>
      </table>
    } @else {
      <p class="none">No confirmations asked.</p>
    }
  `,
  styles: `
    tr[data-answer='confirmed'] .answer {
      color: var(--ok);
    }
    tr[data-answer='rejected'] .answer {
      color: var(--err);
    }
    tr[data-answer='waiting'] .answer {
      color: var(--warn);
    }
    .none {
      color: var(--muted);
    }
  `,
})
export class ConfirmationTable {
  readonly record = input.required<ReplyRecord>();
  protected readonly rows = computed(() => confirmationRows(this.record()));
}
