import type { Message, ResumeEntry, RunAgentInput } from '@ag-ui/core';
import type { Agent, ReplyInput } from '../../agent/agent.js';
import { replyInputOf, type AgUiHistoryMode } from '../ag-ui/ag-ui-run-input.js';

/**
 * The body `useChat` (AI SDK 6, `DefaultChatTransport`) posts: the chat id, its messages, and why.
 *
 * @example
 * ```ts
 * const body: UIChatRequest = { id: 'c1', trigger: 'submit-message', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }] };
 * ```
 */
export interface UIChatRequest {
  readonly id: string;
  readonly messages: readonly UIMessageLike[];
  readonly trigger: 'submit-message' | 'regenerate-message';
}

/**
 * A `UIMessage` as far as the server reads it.
 *
 * @example
 * ```ts
 * const m: UIMessageLike = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] };
 * ```
 */
export interface UIMessageLike {
  readonly id: string;
  readonly role: 'system' | 'user' | 'assistant';
  readonly parts: readonly UIPartLike[];
}

/**
 * A part of a {@link UIMessageLike} as far as the server reads it: text, and tool parts
 * (`tool-<name>`, `dynamic-tool`) with their state, input, output and approval.
 *
 * @example
 * ```ts
 * const p: UIPartLike = { type: 'tool-refund', toolCallId: 'r1', state: 'approval-responded', approval: { id: 'r1', approved: true } };
 * ```
 */
export interface UIPartLike {
  readonly type: string;
  readonly text?: string;
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly state?: string;
  readonly input?: unknown;
  readonly output?: unknown;
  readonly errorText?: string;
  readonly approval?: { readonly id: string; readonly approved?: boolean; readonly reason?: string };
}

/** Why a body is not a `useChat` request; `undefined` when it is one. */
export function invalidChatRequest(body: unknown): string | undefined {
  const b = body as Partial<UIChatRequest> | null;
  if (!b || typeof b !== 'object' || Array.isArray(b)) return 'the body is not a JSON object';
  if (typeof b.id !== 'string' || !b.id || b.id.length > 200) return 'id: a chat id of 1 to 200 characters is required';
  if (b.trigger !== 'submit-message' && b.trigger !== 'regenerate-message')
    return `trigger: 'submit-message' or 'regenerate-message', got ${JSON.stringify(b.trigger)}`;
  if (!Array.isArray(b.messages)) return 'messages: an array of UI messages is required';
  for (const [i, m] of b.messages.entries()) {
    const msg = m as Partial<UIMessageLike> | null;
    if (!msg || typeof msg.id !== 'string' || !['system', 'user', 'assistant'].includes(msg.role as string))
      return `messages.${i}: a UI message has a string id and a role of system, user or assistant`;
    if (!Array.isArray(msg.parts) || msg.parts.some((p) => !p || typeof (p as UIPartLike).type !== 'string'))
      return `messages.${i}.parts: an array of parts, each with a type`;
  }
  return undefined;
}

/**
 * What the agent receives for a `useChat` request, with the history rules of the AG-UI handler:
 * the client's messages are checked against the agent's conversation (`history_diverged` when
 * they contradict it; a regenerate or an edit rewinds it), approvals answered in the last
 * assistant message (`approval-responded` tool parts) continue the suspended reply, outputs of
 * client-side tools continue one waiting for them, and otherwise the trailing user message starts
 * a reply. Throws the AG-UI handler's refusals (`AgentUsageError`s) before anything runs.
 */
export function chatReplyInput(request: UIChatRequest, agent: Agent, mode: AgUiHistoryMode): ReplyInput {
  const pending = agent.pending;
  const confirm = new Set(pending?.confirm.map((c) => c.id) ?? []);
  const external = new Set(pending?.external.map((c) => c.id) ?? []);
  const messages: Message[] = [];
  const resume: ResumeEntry[] = [];
  for (const m of request.messages) {
    if (m.role === 'system') continue;
    const text = m.parts.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('');
    if (m.role === 'user') {
      messages.push({ id: m.id, role: 'user', content: text });
      continue;
    }
    const tools = m.parts.filter(
      (p) => typeof p.toolCallId === 'string' && (p.type.startsWith('tool-') || p.type === 'dynamic-tool'),
    );
    const toolCalls = tools.map((p) => ({
      id: p.toolCallId!,
      type: 'function' as const,
      function: { name: p.toolName ?? p.type.slice('tool-'.length), arguments: JSON.stringify(p.input ?? {}) },
    }));
    messages.push({
      id: m.id,
      role: 'assistant',
      ...(text ? { content: text } : {}),
      ...(toolCalls.length ? { toolCalls } : {}),
    });
    for (const p of tools) {
      const id = p.toolCallId!;
      if (p.state === 'approval-responded' && p.approval && confirm.has(id))
        resume.push({
          interruptId: id,
          status: 'resolved',
          payload: {
            approved: p.approval.approved === true,
            ...(p.approval.reason ? { reason: p.approval.reason } : {}),
          },
        });
      // Outputs the client produced (its own tools) answer the calls the agent waits for.
      else if (external.has(id) && (p.state === 'output-available' || p.state === 'output-error'))
        messages.push({
          id: `${m.id}:${id}`,
          role: 'tool',
          toolCallId: id,
          content:
            p.state === 'output-error'
              ? (p.errorText ?? 'error')
              : typeof p.output === 'string'
                ? p.output
                : JSON.stringify(p.output ?? null),
          ...(p.state === 'output-error' ? { error: p.errorText ?? 'error' } : {}),
        });
    }
  }
  const input = {
    threadId: request.id,
    runId: request.id,
    messages,
    ...(resume.length ? { resume } : {}),
  } as unknown as RunAgentInput;
  return replyInputOf(input, agent, mode);
}
