import { assertInInjectionContext, computed, DestroyRef, inject, signal, type Signal } from '@angular/core';
import {
  AgentStreamError,
  checkOptionKeys,
  optionKeys,
  RxscopeError,
  type AgentEvent,
  type ConfirmResult,
  type Usage,
} from '@rxscope/core';
import { Observable, Subject, throwError, timeout, type Subscription } from 'rxjs';
import type { AgentChatRequest } from './agent-chat-request.js';
import { agUiReply } from './ag-ui-transport.js';
import { applyChatEvent } from './chat-reducer.js';
import type { SharedStateEvent } from './shared-state.js';
import {
  EMPTY_VIEW,
  type AgentChatError,
  type AgentChatStatus,
  type ChatMessage,
  type ChatToolCall,
  type ChatView,
  type PendingConfirmation,
} from './chat-types.js';
import { checkRxscopeConfig, RXSCOPE_CONFIG, type RxscopeConfig } from './provide-rxscope.js';
import { sseReply } from './sse-transport.js';

/**
 * A chat with the agent, as signals (see {@link injectAgentChat}). Every signal is read-only;
 * the methods are the only way to change it.
 *
 * @example
 * ```ts
 * const chat: AgentChat = injectAgentChat();
 * chat.send('Refund order 42');
 * ```
 */
export interface AgentChat {
  /** The conversation: user messages and one assistant message per reply. */
  readonly messages: Signal<readonly ChatMessage[]>;
  /** The text of the reply that is streaming ('' when none is). */
  readonly streamingText: Signal<string>;
  /** The tool calls of the last reply, with their status and progress. */
  readonly toolCalls: Signal<readonly ChatToolCall[]>;
  /** The tool calls waiting for a person; answer each with `confirm`, `reject` or `edit`. */
  readonly pendingConfirmations: Signal<readonly PendingConfirmation[]>;
  /** Tokens used by the conversation's model calls so far (grows while a reply streams). */
  readonly usage: Signal<Usage>;
  /** Where the chat is: `'idle'`, `'streaming'`, `'awaiting_confirmation'` or `'error'`. */
  readonly status: Signal<AgentChatStatus>;
  /** Why the last reply failed (`undefined` unless `status()` is `'error'`). */
  readonly error: Signal<AgentChatError | undefined>;
  /** The agent's shared state (`STATE_SNAPSHOT` then `STATE_DELTA` patches); `undefined` until a snapshot. */
  readonly state: Signal<Readonly<Record<string, unknown>> | undefined>;
  /** `true` when a state patch did not apply: `state()` is the last good state until the next snapshot. */
  readonly stateStale: Signal<boolean>;
  /** Every event of every reply of this chat, as it arrives (hot; for those who want RxJS). */
  readonly events$: Observable<AgentEvent>;
  /** Sends a user message and streams the reply (a reply still streaming is stopped first). */
  send(message: string): void;
  /** Stops the streaming reply: unsubscribes, which aborts the HTTP request (the server cancels the reply). */
  stop(): void;
  /** Answers the last user message anew: drops the replies after it and sends it again with `regenerate`. */
  regenerate(): void;
  /** Allows a pending call. The answers go to the server once every pending call has one. */
  confirm(toolCallId: string): void;
  /** Refuses a pending call; the model sees `reason`. */
  reject(toolCallId: string, reason?: string): void;
  /** Allows a pending call with other arguments (validated again by the server). */
  edit(toolCallId: string, input: unknown): void;
}

/**
 * Options of {@link injectAgentChat}.
 *
 * @example
 * ```ts
 * const support = injectAgentChat({ config: { url: '/api/support/chat' } });
 * ```
 */
export interface InjectAgentChatOptions {
  /** Overrides parts of the configuration of `provideRxscope` for this chat (another `url`, `headers`). */
  readonly config?: Partial<RxscopeConfig>;
}

const CHAT_OPTION_KEYS = optionKeys<InjectAgentChatOptions>({ config: true });

let localIds = 0;

/**
 * Creates a chat with the agent provided by `provideRxscope`, bound to the injection context it
 * is called in (a component's field, a service's constructor): its reply is stopped when that
 * context is destroyed. Signals only, so it needs no zone; it opens no connection before
 * `send`, so it is safe to create during server-side rendering.
 *
 * @example
 * ```ts
 * @Component({
 *   selector: 'app-chat',
 *   template: `
 *     @for (m of chat.messages(); track m.id) { <p [class]="m.role">{{ m.text }}</p> }
 *     @for (p of chat.pendingConfirmations(); track p.toolCallId) {
 *       <button (click)="chat.confirm(p.toolCallId)">Allow {{ p.name }}</button>
 *     }
 *     <button (click)="chat.send('Refund order 42')" [disabled]="chat.status() === 'streaming'">Send</button>
 *     <button (click)="chat.stop()">Stop</button>
 *   `,
 * })
 * export class Chat {
 *   readonly chat = injectAgentChat();
 * }
 * ```
 */
export function injectAgentChat(options: InjectAgentChatOptions = {}): AgentChat {
  assertInInjectionContext(injectAgentChat);
  checkOptionKeys('injectAgentChat', options, CHAT_OPTION_KEYS);
  if (options.config !== undefined) checkRxscopeConfig('injectAgentChat.config', options.config, true);
  const config: RxscopeConfig = { ...inject(RXSCOPE_CONFIG), ...options.config };
  const view = signal<ChatView>(EMPTY_VIEW);
  const events = new Subject<AgentEvent>();
  let running: Subscription | undefined;
  // The AG-UI thread of this chat: unguessable, as the server keys a conversation by it.
  const threadId = globalThis.crypto?.randomUUID?.() ?? `thread-${Date.now().toString(36)}-${++localIds}`;

  const stopRunning = () => {
    running?.unsubscribe();
    running = undefined;
  };
  inject(DestroyRef).onDestroy(() => {
    stopRunning();
    events.complete();
  });

  const replyOf = (request: AgentChatRequest): Observable<AgentEvent | SharedStateEvent> => {
    if (config.transport !== 'ag-ui') return sseReply(config, request);
    const history = view().messages;
    const resumes = 'confirmations' in request ? history.at(-1)?.id : undefined;
    return agUiReply(config, request, { threadId, history, ...(resumes ? { resumes } : {}) });
  };

  const start = (request: AgentChatRequest) => {
    stopRunning();
    view.update((v) => ({ ...v, status: 'streaming', error: undefined, pending: [] }));
    const timeoutMs = config.firstEventTimeoutMs ?? 30_000;
    const reply$ = replyOf(request).pipe(
      timeout({
        first: timeoutMs,
        with: () => throwError(() => new NoFirstEventError(config.url, timeoutMs)),
      }),
    );
    let ended = false;
    running = reply$.subscribe({
      next: (event) => {
        if (event.type === 'REPLY_END') ended = true;
        view.update((v) => applyChatEvent(v, event));
        // The shared-state events are members of the core's event union too (see shared-state.ts).
        events.next(event as AgentEvent);
      },
      error: (err: unknown) => view.update((v) => ({ ...v, status: 'error', error: errorOf(err) })),
      complete: () => {
        if (!ended)
          view.update((v) => ({
            ...v,
            status: 'error',
            error: {
              code: 'stream_ended_early',
              message: `${config.url} ended the stream before the reply ended; is it an rxscope endpoint?`,
            },
          }));
      },
    });
  };

  const answer = (toolCallId: string, result: ConfirmResult) => {
    const pending = view().pending;
    if (!pending.some((p) => p.toolCallId === toolCallId)) return;
    const next = pending.map((p) => (p.toolCallId === toolCallId ? { ...p, answer: result } : p));
    view.update((v) => ({ ...v, pending: next }));
    if (next.every((p) => p.answer)) start({ confirmations: next.map((p) => p.answer!) });
  };

  return {
    ...signalsOf(view),
    events$: events.asObservable(),
    send(message: string) {
      const user: ChatMessage = { id: `user-${++localIds}`, role: 'user', text: message, toolCalls: [] };
      view.update((v) => ({ ...v, messages: [...v.messages, user] }));
      start({ message });
    },
    stop() {
      if (!running) return;
      stopRunning();
      view.update((v) => (v.status === 'streaming' ? interrupted(v) : v));
    },
    regenerate() {
      const all = view().messages;
      let at = all.length - 1;
      while (at >= 0 && all[at]!.role !== 'user') at--;
      if (at < 0) return;
      view.update((v) => ({ ...v, messages: all.slice(0, at + 1) }));
      start({ message: all[at]!.text, regenerate: true });
    },
    confirm: (toolCallId) => answer(toolCallId, { toolCallId, confirmed: true }),
    reject: (toolCallId, reason) => answer(toolCallId, { toolCallId, confirmed: false, ...(reason ? { reason } : {}) }),
    edit: (toolCallId, input) => answer(toolCallId, { toolCallId, confirmed: true, input }),
  };
}

/** The chat's read-only signals, each a slice of the view. */
function signalsOf(view: Signal<ChatView>) {
  const messages = computed(() => view().messages);
  const lastReply = computed(() => {
    const last = messages().at(-1);
    return last?.role === 'assistant' ? last : undefined;
  });
  return {
    messages,
    streamingText: computed(() => (view().status === 'streaming' ? (lastReply()?.text ?? '') : '')),
    toolCalls: computed(() => lastReply()?.toolCalls ?? []),
    pendingConfirmations: computed(() => view().pending),
    usage: computed(() => view().usage),
    status: computed(() => view().status),
    error: computed(() => view().error),
    state: computed(() => view().state),
    stateStale: computed(() => view().stateStale),
  };
}

/** The view after `stop()`: the reply is marked interrupted, and so are its unfinished calls. */
function interrupted(view: ChatView): ChatView {
  const open = new Set(['input_streaming', 'called', 'running']);
  const messages = view.messages.map((m, i) =>
    i === view.messages.length - 1 && m.role === 'assistant'
      ? {
          ...m,
          finishReason: 'interrupted' as const,
          toolCalls: m.toolCalls.map((c) => (open.has(c.status) ? { ...c, status: 'interrupted' as const } : c)),
        }
      : m,
  );
  return { ...view, messages, status: 'idle' };
}

function errorOf(err: unknown): AgentChatError {
  if (err instanceof AgentStreamError) return { code: err.kind, message: err.message };
  if (err instanceof RxscopeError) return { code: err.code, message: err.message };
  return { code: 'network', message: err instanceof Error ? err.message : String(err) };
}

/** A reply whose first event did not come in time (the URL accepted the request but does not stream). */
class NoFirstEventError extends RxscopeError {
  override readonly name = 'NoFirstEventError';
  readonly code = 'no_first_event';
  constructor(url: string, ms: number) {
    super(`${url} sent no event within ${ms} ms; is it an rxscope endpoint?`);
  }
}
