import { ChangeDetectionStrategy, Component, type ElementRef, effect, input, output, viewChild } from '@angular/core';
import type { ConfirmResult } from '@rxscope/core';
import type { Turn } from './turn';

/**
 * A modal dialog for `REQUIRE_USER_CONFIRM`: lists the calls waiting for approval and answers
 * all of them (approve or reject). Open while `turn` has pending calls.
 */
@Component({
  selector: 'chat-confirm-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <dialog #dialog (cancel)="$event.preventDefault()" aria-labelledby="confirm-title">
      <h2 id="confirm-title">Allow this action?</h2>
      @for (call of turn()?.pending ?? []; track call.id) {
        <section class="call" [attr.data-tool-call-id]="call.id">
          <code class="name">{{ call.name }}</code>
          <pre class="input">{{ pretty(call.input) }}</pre>
          @if (call.reason) {
            <p class="reason">{{ call.reason }}</p>
          }
        </section>
      }
      <div class="actions">
        <button type="button" class="reject" (click)="answer(false)">Reject</button>
        <button type="button" class="approve" (click)="answer(true)">Approve</button>
      </div>
    </dialog>
  `,
  styles: `
    dialog {
      width: min(28rem, 92vw);
      padding: 1.25rem 1.4rem;
      border: 0;
      border-radius: 14px;
      box-shadow: 0 20px 50px rgb(15 23 42 / 0.3);
    }
    dialog::backdrop {
      background: rgb(15 23 42 / 0.45);
    }
    h2 {
      margin: 0 0 0.8rem;
      font-size: 1.1rem;
    }
    .call {
      margin-bottom: 0.8rem;
    }
    .name {
      font-weight: 700;
    }
    .input {
      margin: 0.35rem 0 0;
      padding: 0.6rem 0.75rem;
      border-radius: 8px;
      background: var(--muted-bg);
      font-size: 0.8125rem;
      white-space: pre-wrap;
    }
    .reason {
      margin: 0.35rem 0 0;
      color: var(--muted);
      font-size: 0.8125rem;
    }
    .actions {
      display: flex;
      justify-content: flex-end;
      gap: 0.5rem;
    }
    button {
      padding: 0.5rem 1.1rem;
      border-radius: 9px;
      font: inherit;
      font-weight: 600;
      cursor: pointer;
    }
    .reject {
      border: 1px solid var(--line);
      background: #fff;
    }
    .approve {
      border: 0;
      background: var(--accent);
      color: #fff;
    }
  `,
})
export class ConfirmDialog {
  readonly turn = input<Turn | undefined>();
  readonly answered = output<readonly ConfirmResult[]>();
  private readonly dialog = viewChild.required<ElementRef<HTMLDialogElement>>('dialog');

  constructor() {
    effect(() => {
      const dialog = this.dialog().nativeElement;
      const open = (this.turn()?.pending.length ?? 0) > 0;
      if (open && !dialog.open) dialog.showModal();
      if (!open && dialog.open) dialog.close();
    });
  }

  protected answer(confirmed: boolean): void {
    const pending = this.turn()?.pending ?? [];
    this.answered.emit(pending.map((c) => ({ toolCallId: c.id, confirmed })));
  }

  protected pretty(value: unknown): string {
    return JSON.stringify(value, null, 2);
  }
}
