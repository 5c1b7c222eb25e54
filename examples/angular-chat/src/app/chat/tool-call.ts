import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';
import type { ToolCallView, ToolStatus } from './turn';

const LABELS: Record<ToolStatus, string> = {
  streaming: 'preparing…',
  queued: 'queued',
  awaiting_confirmation: 'needs your approval',
  running: 'running…',
  success: 'done',
  error: 'failed',
  denied: 'denied',
  interrupted: 'interrupted',
};

const ICONS: Record<ToolStatus, string> = {
  streaming: '…',
  queued: '•',
  awaiting_confirmation: '?',
  running: '↻',
  success: '✓',
  error: '✕',
  denied: '⊘',
  interrupted: '■',
};

/** One tool call: name, arguments, status, progress while it runs, and output. */
@Component({
  selector: 'chat-tool-call',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <div class="head">
      <span class="icon" aria-hidden="true">{{ icon() }}</span>
      <code class="name">{{ call().name }}</code>
      <code class="args">{{ args() }}</code>
      <span class="status">{{ label() }}</span>
    </div>
    @if (call().progress) {
      <div class="progress">{{ call().progress }}</div>
    }
    @if (call().output) {
      <pre class="output">{{ call().output }}</pre>
    }
  `,
  host: { class: 'tool-call', '[attr.data-status]': 'call().status', '[attr.data-tool-call-id]': 'call().id' },
  styles: `
    :host {
      display: block;
      margin: 0.5rem 0;
      border: 1px solid var(--line);
      border-radius: 10px;
      background: var(--tool-bg);
      font-size: 0.875rem;
    }
    .head {
      display: flex;
      align-items: center;
      gap: 0.5rem;
      padding: 0.45rem 0.7rem;
    }
    .icon {
      display: inline-grid;
      place-items: center;
      width: 1.35rem;
      height: 1.35rem;
      border-radius: 50%;
      background: var(--muted-bg);
      color: var(--muted);
      font-weight: 700;
    }
    .name {
      font-weight: 600;
    }
    .args {
      color: var(--muted);
      overflow: hidden;
      text-overflow: ellipsis;
      white-space: nowrap;
      flex: 1;
      min-width: 0;
    }
    .status {
      color: var(--muted);
      white-space: nowrap;
    }
    .progress {
      padding: 0 0.7rem 0.45rem;
      color: var(--muted);
      font-style: italic;
      font-size: 0.8125rem;
    }
    .output {
      margin: 0;
      padding: 0.45rem 0.7rem;
      border-top: 1px dashed var(--line);
      white-space: pre-wrap;
      font-size: 0.8125rem;
    }
    :host([data-status='success']) .icon {
      background: var(--ok-bg);
      color: var(--ok);
    }
    :host([data-status='error']) .icon,
    :host([data-status='denied']) .icon,
    :host([data-status='interrupted']) .icon {
      background: var(--bad-bg);
      color: var(--bad);
    }
    :host([data-status='awaiting_confirmation']) {
      border-color: var(--warn);
    }
    :host([data-status='awaiting_confirmation']) .icon {
      background: var(--warn-bg);
      color: var(--warn);
    }
    :host([data-status='running']) .icon {
      animation: spin 1s linear infinite;
    }
    @keyframes spin {
      to {
        transform: rotate(360deg);
      }
    }
  `,
})
export class ToolCall {
  readonly call = input.required<ToolCallView>();
  protected readonly label = computed(() => LABELS[this.call().status]);
  protected readonly icon = computed(() => ICONS[this.call().status]);
  protected readonly args = computed(() => compactJson(this.call().args));
}

/** The arguments as compact JSON (as streamed while they are still incomplete). */
function compactJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}
