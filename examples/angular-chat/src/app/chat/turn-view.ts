import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';
import { AudioPlayer } from './audio-player';
import { TaskList } from './task-list';
import { ToolCall } from './tool-call';
import type { Turn, TurnStatus } from './turn';

const STATUS: Record<TurnStatus, string> = {
  sending: 'sending…',
  streaming: 'streaming…',
  awaiting_confirmation: 'waiting for your approval',
  awaiting_external_execution: 'waiting for an external tool',
  completed: 'completed',
  max_iters: 'stopped: too many steps',
  stopped: 'stopped by a limit',
  shutdown: 'paused: the server restarted; it continues when resumed',
  interrupted: 'interrupted',
  cancelled: 'cancelled',
  error: 'failed',
};

/** One exchange: the prompt, the reply as it streams (task list, text, thinking, tool calls), its status and token usage. */
@Component({
  selector: 'chat-turn',
  imports: [AudioPlayer, TaskList, ToolCall],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <div class="prompt">{{ turn().prompt }}</div>
    <div class="reply">
      @if (turn().todos; as todos) {
        <chat-task-list [todos]="todos" />
      }
      @for (part of turn().parts; track $index) {
        @switch (part.kind) {
          @case ('text') {
            <p class="text">{{ part.text }}</p>
          }
          @case ('thinking') {
            <details class="thinking">
              <summary>Thinking</summary>
              {{ part.text }}
            </details>
          }
          @case ('tool') {
            <chat-tool-call [call]="part.call" />
          }
          @case ('audio') {
            <chat-audio [part]="part" />
          }
        }
      }
      @if (live()) {
        <span class="caret" aria-label="streaming"></span>
      }
      @if (turn().error; as error) {
        <p class="error" role="alert">{{ error }}</p>
      }
    </div>
    <footer class="meta">
      <span class="status">{{ status() }}</span>
      @if (turn().modelCalls > 0) {
        <span class="usage" title="Tokens of this reply, summed over its model calls">
          {{ turn().usage.inputTokens }} in · {{ turn().usage.outputTokens }} out tokens
          @if (turn().modelCalls > 1) {
            · {{ turn().modelCalls }} model calls
          }
        </span>
      }
    </footer>
  `,
  host: { class: 'turn', '[attr.data-status]': 'turn().status', '[attr.data-reply-id]': 'turn().replyId' },
  styles: `
    :host {
      display: flex;
      flex-direction: column;
      gap: 0.4rem;
    }
    .prompt {
      align-self: flex-end;
      max-width: 75%;
      padding: 0.55rem 0.85rem;
      border-radius: 14px 14px 4px 14px;
      background: var(--accent);
      color: #fff;
      white-space: pre-wrap;
    }
    .reply {
      align-self: flex-start;
      max-width: 85%;
      min-width: 6rem;
      padding: 0.55rem 0.85rem;
      border-radius: 14px 14px 14px 4px;
      background: var(--surface);
      border: 1px solid var(--line);
    }
    .text {
      margin: 0.15rem 0;
      white-space: pre-wrap;
      line-height: 1.5;
    }
    .thinking {
      color: var(--muted);
      font-size: 0.875rem;
      white-space: pre-wrap;
    }
    .error {
      margin: 0.3rem 0 0;
      color: var(--bad);
    }
    .caret {
      display: inline-block;
      width: 0.5rem;
      height: 1rem;
      vertical-align: text-bottom;
      background: var(--accent);
      animation: blink 1s steps(2) infinite;
    }
    .meta {
      display: flex;
      gap: 0.75rem;
      padding: 0 0.3rem;
      color: var(--muted);
      font-size: 0.75rem;
    }
    :host([data-status='cancelled']) .status,
    :host([data-status='error']) .status {
      color: var(--bad);
    }
    @keyframes blink {
      50% {
        opacity: 0;
      }
    }
  `,
})
export class TurnView {
  readonly turn = input.required<Turn>();
  protected readonly live = computed(() => this.turn().status === 'sending' || this.turn().status === 'streaming');
  protected readonly status = computed(() => STATUS[this.turn().status]);
}
