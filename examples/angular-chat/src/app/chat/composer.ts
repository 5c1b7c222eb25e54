import { ChangeDetectionStrategy, Component, input, output, signal } from '@angular/core';

/** The message box: send (Enter), and cancel while a reply streams. */
@Component({
  selector: 'chat-composer',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <form (submit)="submit($event)">
      <input
        name="message"
        autocomplete="off"
        placeholder="Message the agent…"
        aria-label="Message"
        [value]="text()"
        (input)="text.set($any($event.target).value)"
        [disabled]="disabled()"
      />
      @if (busy()) {
        <button type="button" class="cancel" (click)="cancel.emit()">Cancel</button>
      } @else {
        <button type="submit" class="send" [disabled]="disabled() || !text().trim()">Send</button>
      }
    </form>
  `,
  styles: `
    form {
      display: flex;
      gap: 0.5rem;
    }
    input {
      flex: 1;
      padding: 0.7rem 0.9rem;
      border: 1px solid var(--line);
      border-radius: 10px;
      font: inherit;
      background: var(--surface);
    }
    input:focus {
      outline: 2px solid var(--accent);
      outline-offset: -1px;
    }
    button {
      padding: 0 1.2rem;
      border: 0;
      border-radius: 10px;
      font: inherit;
      font-weight: 600;
      color: #fff;
      cursor: pointer;
    }
    .send {
      background: var(--accent);
    }
    .send:disabled {
      opacity: 0.45;
      cursor: default;
    }
    .cancel {
      background: var(--bad);
    }
  `,
})
export class Composer {
  /** A reply is streaming: show Cancel instead of Send. */
  readonly busy = input(false);
  /** No new message now (a reply is in progress or waits for an answer). */
  readonly disabled = input(false);
  readonly send = output<string>();
  readonly cancel = output<void>();
  protected readonly text = signal('');

  protected submit(event: Event): void {
    event.preventDefault();
    const text = this.text().trim();
    if (!text || this.disabled()) return;
    this.send.emit(text);
    this.text.set('');
  }
}
