import type { Agent } from '../../agent/agent.js';
import { AgentUsageError } from '../../agent/errors.js';
import { claimAgent } from '../../agent/session-claim.js';
import { assertSessionOwner, checkUserId } from '../../agent/user-identity.js';
import { checkOptionKeys, optionKeys } from '../../error/check-option-keys.js';
import type { AgUiHistoryMode } from '../ag-ui/ag-ui-run-input.js';
import { chatReplyInput, invalidChatRequest, type UIChatRequest } from './ui-chat-request.js';
import { toUIMessageStreamResponse } from './to-ui-message-stream-response.js';

/** Options of {@link createUIMessageStreamHandler}. */
export interface UIMessageStreamHandlerOptions {
  /** A factory called once per chat id (`useChat`'s `id`: one agent per chat), or one agent with `shared: true`. */
  readonly agent: Agent | ((chatId: string) => Agent);
  /** Declares that one agent may serve every chat (a demo, a single-user tool). Default `false`. */
  readonly shared?: boolean;
  /** How the request's `messages` reach the agent: `'seed'` (checked, default) or `'agent'` (the agent's store is authoritative). */
  readonly history?: AgUiHistoryMode;
  /** The largest request body accepted, in bytes; a larger one is a 413. Default 8 MiB. */
  readonly maxBodyBytes?: number;
  /** The user the request acts for (`ctx.userId`), from your authentication; throw to refuse it. */
  readonly identify?: (request: Request) => string | undefined | Promise<string | undefined>;
  /** A comment frame after this many ms without a chunk. `0` disables. Default 15,000. */
  readonly heartbeatMs?: number;
}

const OPTION_KEYS = optionKeys<UIMessageStreamHandlerOptions>({
  agent: true,
  shared: true,
  history: true,
  maxBodyBytes: true,
  identify: true,
  heartbeatMs: true,
});

/**
 * A fetch-style handler (`(request) => Promise<Response>`: Next.js route handlers, Hono, Bun,
 * Deno, workers) for `useChat` of the AI SDK (`@ai-sdk/react` with `ai` 6): it reads the body
 * `useChat` posts (`{ id, messages, trigger }`), applies the AG-UI handler's history rules — the
 * agent's conversation is authoritative: a history that contradicts it is a 409
 * `history_diverged` naming where the two differ, a regenerate or an edited message rewinds it —,
 * continues a reply suspended for confirmation from the approvals in the last message
 * (`addToolApprovalResponse`), and streams the reply as a UI message stream. Refusals before the
 * stream are JSON `{error: {code, message}}` with a 4xx status (405, 415, 413, 400 for a body that
 * is not a `useChat` request, 409 when the agent refuses it). A client that goes away cancels the reply.
 *
 * @example
 * ```ts
 * const chat = createUIMessageStreamHandler({ agent: (chatId) => new Agent({ model, sessionId: chatId }) });
 * export const POST = chat; // Next.js: app/api/chat/route.ts
 * // Hono: app.post('/api/chat', (c) => chat(c.req.raw));
 * ```
 */
export function createUIMessageStreamHandler(
  options: UIMessageStreamHandlerOptions,
): (request: Request) => Promise<Response> {
  checkOptionKeys('createUIMessageStreamHandler', options, OPTION_KEYS);
  const { agent: agentOption, shared, history = 'seed', maxBodyBytes = 8 * 1024 * 1024, identify } = options;
  const agents = new Map<string, Agent>();
  const agentFor = (id: string): Agent => {
    if (typeof agentOption !== 'function') return agentOption;
    let agent = agents.get(id);
    if (!agent) agents.set(id, (agent = agentOption(id)));
    return agent;
  };
  return async (request) => {
    if (request.method !== 'POST') return refusal(405, 'method_not_allowed', 'useChat requests are POSTed as JSON.');
    if (!/^application\/json\b/i.test(request.headers.get('content-type') ?? ''))
      return refusal(415, 'unsupported_media_type', 'useChat requests are sent as application/json.');
    let userId: string | undefined;
    try {
      userId = checkUserId(await identify?.(request), 'identify(request)');
    } catch (error) {
      return refusal(401, 'unauthorized', error instanceof Error ? error.message : String(error));
    }
    const text = await boundedText(request, maxBodyBytes);
    if (text === undefined) return refusal(413, 'too_large', `The request body is larger than ${maxBodyBytes} bytes.`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return refusal(400, 'invalid_json', 'The request body is not JSON.');
    }
    const why = invalidChatRequest(body);
    if (why) return refusal(400, 'invalid_chat_request', `Not a useChat request: ${why}.`);
    const chat = body as UIChatRequest;
    const agent = agentFor(chat.id);
    try {
      claimAgent(agent, { session: chat.id, by: 'createUIMessageStreamHandler', shared });
      assertSessionOwner(agent.saveState().owner, chat.id, userId);
      const input = chatReplyInput(chat, agent, history);
      const events$ = agent.reply(input, userId !== undefined ? { userId } : {});
      return toUIMessageStreamResponse(
        events$,
        options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {},
      );
    } catch (error) {
      if (error instanceof AgentUsageError) return refusal(409, error.code, error.message);
      const coded = error as { code?: unknown; status?: unknown; message?: unknown };
      if (typeof coded.status === 'number' && coded.status >= 400 && coded.status < 500)
        return refusal(
          coded.status,
          typeof coded.code === 'string' ? coded.code : 'refused',
          typeof coded.message === 'string' ? coded.message : 'refused',
        );
      throw error;
    }
  };
}

function refusal(status: number, code: string, message: string): Response {
  return Response.json({ error: { code, message } }, { status });
}

/** The body as text, or `undefined` once it passes `max` bytes (reading stops there). */
async function boundedText(request: Request, max: number): Promise<string | undefined> {
  const reader = request.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) all.set(c, (at += c.byteLength) - c.byteLength);
  return new TextDecoder().decode(all);
}
