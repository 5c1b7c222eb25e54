import {
  ChangeDetectionStrategy,
  Component,
  type ElementRef,
  afterRenderEffect,
  inject,
  viewChild,
} from '@angular/core';
import { ChatStore } from './chat/chat-store';
import { Composer } from './chat/composer';
import { ConfirmDialog } from './chat/confirm-dialog';
import { TurnView } from './chat/turn-view';

/** The chat page: transcript, message box, confirmation dialog. */
@Component({
  selector: 'chat-root',
  imports: [TurnView, Composer, ConfirmDialog],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <header>
      <h1>rxscope <span>chat</span></h1>
      <span class="chat-status" [attr.data-state]="store.chat.status()">{{ store.chat.status() }}</span>
    </header>
    <main #transcript>
      @for (turn of store.turns(); track turn.id) {
        <chat-turn [turn]="turn" />
      } @empty {
        <p class="hint">
          Say hello, ask to <em>refund order A-17 (80 EUR)</em> to see a confirmation, or ask for a <em>story</em> and
          cancel it.
        </p>
      }
    </main>
    <chat-composer
      [busy]="store.busy()"
      [disabled]="!!store.active()"
      (send)="store.send($event)"
      (cancel)="store.cancel()"
    />
    <chat-confirm-dialog [turn]="store.awaiting()" (answered)="store.confirm($event)" />
  `,
  styles: `
    :host {
      display: flex;
      flex-direction: column;
      height: 100vh;
      max-width: 50rem;
      margin: 0 auto;
      padding: 0 1rem 1rem;
      box-sizing: border-box;
    }
    header {
      display: flex;
      align-items: center;
      justify-content: space-between;
      padding: 0.9rem 0.2rem;
      border-bottom: 1px solid var(--line);
    }
    h1 {
      margin: 0;
      font-size: 1.15rem;
      letter-spacing: -0.01em;
    }
    h1 span {
      color: var(--accent);
    }
    .chat-status {
      font-size: 0.75rem;
      color: var(--muted);
    }
    .chat-status::before {
      content: '';
      display: inline-block;
      width: 0.5rem;
      height: 0.5rem;
      margin-right: 0.35rem;
      border-radius: 50%;
      background: var(--warn);
    }
    .chat-status[data-state='idle']::before {
      background: var(--ok);
    }
    .chat-status[data-state='error']::before {
      background: var(--bad);
    }
    main {
      flex: 1;
      overflow-y: auto;
      display: flex;
      flex-direction: column;
      gap: 1.1rem;
      padding: 1rem 0.2rem;
    }
    .hint {
      margin: auto;
      max-width: 26rem;
      text-align: center;
      color: var(--muted);
    }
  `,
})
export class App {
  protected readonly store = inject(ChatStore);
  private readonly transcript = viewChild.required<ElementRef<HTMLElement>>('transcript');

  constructor() {
    // Keep the latest text in view as it streams in.
    afterRenderEffect({
      write: () => {
        this.store.turns();
        const el = this.transcript().nativeElement;
        el.scrollTop = el.scrollHeight;
      },
    });
  }
}
