import { z } from 'zod';
import { AgentCard, type StreamResponse, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory } from '@a2a-js/sdk/client';
import {
  checkOptionKeys,
  defineTool,
  OptionsError,
  optionKeys,
  RxscopeError,
  type Tool,
  type ToolContext,
} from '@rxscope/core';
import { a2aMessage, textOfParts, textPart } from './a2a-parts.js';

/**
 * Options of `a2aAgentTool`: the remote agent (its base `url`, whose card is read from
 * `/.well-known/agent-card.json` at the first call, or its `card`), and how the tool is named.
 *
 * @example
 * ```ts
 * const options: A2aAgentToolOptions = { url: 'http://127.0.0.1:4000/', name: 'billing' };
 * ```
 */
export interface A2aAgentToolOptions {
  /** The agent's base URL: its card is read from `<url>/.well-known/agent-card.json` when first called. */
  readonly url?: string;
  /** The agent's card (A2A 1.0 JSON, as an object or its text), instead of `url`. */
  readonly card?: string | AgentCard | Readonly<Record<string, unknown>>;
  /** The tool's name. Default: the card's name (made a valid tool name), or `remote_agent` with `url`. */
  readonly name?: string;
  /** What the tool does, for the model. Default: the card's description. */
  readonly description?: string;
  /** Longest wait for the remote task, in ms. Default 10 minutes. */
  readonly timeoutMs?: number;
}

/**
 * Why a call of a remote A2A agent failed (`code`: `a2a_card` for a card that cannot be read or
 * parsed, `a2a_failed` for a task that failed, was rejected or cancelled, `a2a_stream` for a
 * connection lost mid-task): the model sees its message in the tool's `error` result.
 *
 * @example
 * ```ts
 * if (e instanceof A2aAgentError && e.code === 'a2a_card') console.error('fix the agent URL:', e.message);
 * ```
 */
export class A2aAgentError extends RxscopeError {
  override readonly name = 'A2aAgentError';
  constructor(
    readonly code: 'a2a_card' | 'a2a_failed' | 'a2a_stream',
    message: string,
  ) {
    super(message);
  }
}

const OPTION_KEYS = optionKeys<A2aAgentToolOptions>({
  url: true,
  card: true,
  name: true,
  description: true,
  timeoutMs: true,
});
const INVALID = /[^a-zA-Z0-9_-]/g;
const toolName = (name: string) => name.replace(INVALID, '_').slice(0, 64) || 'remote_agent';

/** A remote task waiting for input: what it asked. */
interface Waiting {
  readonly contextId: string;
  readonly question: string;
}

/**
 * Parses an Agent Card given as text or object (A2A 1.0 JSON); throws an `A2aAgentError`
 * (`a2a_card`) that says what is wrong.
 *
 * @example
 * ```ts
 * const card = parseAgentCard(await (await fetch('http://127.0.0.1:4000/.well-known/agent-card.json')).text());
 * ```
 */
export function parseAgentCard(card: string | AgentCard | Readonly<Record<string, unknown>>): AgentCard {
  let json: unknown = card;
  if (typeof card === 'string') {
    try {
      json = JSON.parse(card);
    } catch (e) {
      throw new A2aAgentError('a2a_card', `The agent card is not JSON: ${(e as Error).message}`);
    }
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new A2aAgentError('a2a_card', 'The agent card is not a JSON object.');
  const parsed = AgentCard.fromJSON(json);
  if (!parsed.name) throw new A2aAgentError('a2a_card', 'The agent card has no `name`.');
  if (!parsed.supportedInterfaces.some((i) => i.url))
    throw new A2aAgentError(
      'a2a_card',
      `The agent card of "${parsed.name}" names no interface (supportedInterfaces[].url).`,
    );
  return parsed;
}

/**
 * A remote A2A agent as a tool (on the official `@a2a-js/sdk` client, A2A 1.0): a call sends
 * `{message}` with `SendStreamingMessage`; the remote task's status messages and artifact chunks
 * are the tool's progress events, its final answer the result. Cancelling the call (an interrupt,
 * a timeout) cancels the remote task. A task that stops for input (`input-required`, e.g. the
 * remote agent's own confirmation) ends the call with its question and the `taskId` to answer
 * with; the call that answers asks the user first (a confirmation), then goes on with the task.
 * A card that cannot be read or parsed, a remote failure or a connection lost mid-stream is an
 * `error` result: the reply goes on. One A2A context per tool (make one per session).
 *
 * @example
 * ```ts
 * const billing = a2aAgentTool({ url: 'http://127.0.0.1:4000/', name: 'billing' });
 * const agent = new Agent({ name: 'front', model, tools: [billing] });
 * ```
 */
export function a2aAgentTool(options: A2aAgentToolOptions): Tool<{ message: string; taskId?: string | undefined }> {
  checkOptionKeys('a2aAgentTool', options, OPTION_KEYS);
  const refuse = (key: string, message: string) =>
    new OptionsError('invalid_option', `a2aAgentTool.${key}`, `a2aAgentTool: ${message}`);
  if ((options.url === undefined) === (options.card === undefined))
    throw refuse('url', 'give exactly one of `url` (the card is read from it) and `card`.');
  if (options.url !== undefined && !/^https?:\/\//.test(options.url))
    throw refuse('url', `\`url\` must be an http(s) URL, got ${JSON.stringify(options.url)}.`);
  const timeoutMs = options.timeoutMs ?? 10 * 60_000;
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0))
    throw refuse('timeoutMs', '`timeoutMs` must be a positive number.');
  // A card given here is checked now; one read from `url` when the tool is first called.
  let card: AgentCard | undefined;
  if (options.card !== undefined) {
    try {
      card = parseAgentCard(options.card);
    } catch (e) {
      throw refuse('card', (e as Error).message);
    }
  }
  const name = toolName(options.name ?? card?.name ?? 'remote_agent');
  const remote = new RemoteAgent(options.url, card, timeoutMs);
  return defineTool({
    name,
    description:
      options.description ??
      card?.description ??
      `Ask the remote agent at ${options.url}. Send one message; the answer is its reply.`,
    input: z.object({
      message: z.string().min(1).describe('What to ask or tell the remote agent.'),
      taskId: z
        .string()
        .optional()
        .describe('Only to answer a remote task that asked for input: the taskId its question gave.'),
    }),
    // Answering a remote task's question goes to the user first: it is how the remote
    // agent's `input-required` (a confirmation, mostly) reaches a person. Other calls are
    // decided as usual (rules, the mode).
    needsApproval: ({ taskId }) => taskId !== undefined && remote.waiting.has(taskId),
    execute: (input, ctx) => remote.call(input.message, input.taskId, ctx),
  });
}

/** The connection to one remote agent and the state of its context. */
class RemoteAgent {
  readonly waiting = new Map<string, Waiting>();
  private client: Promise<Client> | undefined;
  private contextId = '';

  constructor(
    private readonly url: string | undefined,
    private readonly card: AgentCard | undefined,
    private readonly timeoutMs: number,
  ) {}

  private connect(): Promise<Client> {
    this.client ??= (async () => {
      const factory = new ClientFactory();
      try {
        return this.card ? await factory.createFromAgentCard(this.card) : await factory.createFromUrl(this.url!);
      } catch (e) {
        this.client = undefined; // the next call tries again
        throw new A2aAgentError('a2a_card', `Could not read the agent card at ${this.url}: ${(e as Error).message}`);
      }
    })();
    return this.client;
  }

  async call(message: string, taskId: string | undefined, ctx: ToolContext): Promise<string> {
    const client = await this.connect();
    const waiting = taskId !== undefined ? this.waiting.get(taskId) : undefined;
    if (taskId !== undefined && !waiting)
      throw new A2aAgentError(
        'a2a_failed',
        `No remote task ${taskId} waits for input; send the message without taskId.`,
      );
    if (taskId !== undefined) this.waiting.delete(taskId);
    const ids = { contextId: waiting?.contextId ?? this.contextId, ...(taskId !== undefined ? { taskId } : {}) };
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(this.timeoutMs)]);
    const run = new RemoteTask(ctx);
    const cancelRemote = () => {
      if (run.taskId)
        void client.cancelTask({ tenant: '', id: run.taskId, metadata: undefined }).catch(() => undefined);
    };
    signal.addEventListener('abort', cancelRemote, { once: true });
    try {
      const stream = client.sendMessageStream(
        {
          tenant: '',
          message: a2aMessage('user', [textPart(message)], ids),
          configuration: undefined,
          metadata: undefined,
        },
        { signal },
      );
      for await (const event of stream) run.apply(event);
    } catch (e) {
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
      throw new A2aAgentError('a2a_stream', `The remote agent's stream broke off: ${(e as Error).message}`);
    } finally {
      signal.removeEventListener('abort', cancelRemote);
    }
    if (run.contextId) this.contextId = run.contextId;
    return this.outcome(run);
  }

  private outcome(run: RemoteTask): string {
    switch (run.state) {
      case TaskState.TASK_STATE_COMPLETED:
      case undefined:
        return run.answer();
      case TaskState.TASK_STATE_INPUT_REQUIRED: {
        const question = run.statusText || 'The remote agent needs more input.';
        this.waiting.set(run.taskId, { contextId: run.contextId, question });
        return (
          `The remote agent stopped for input: ${question}\n` +
          `To answer, call this tool again with {"taskId": "${run.taskId}", "message": <the answer>}; the user is asked to confirm first.`
        );
      }
      case TaskState.TASK_STATE_WORKING:
      case TaskState.TASK_STATE_SUBMITTED:
        throw new A2aAgentError('a2a_stream', 'The remote agent ended its stream before the task finished.');
      default:
        throw new A2aAgentError(
          'a2a_failed',
          `The remote task ended ${TaskState[run.state].replace('TASK_STATE_', '').toLowerCase()}` +
            (run.statusText ? `: ${run.statusText}` : '.'),
        );
    }
  }
}

/** What one streamed remote task has said so far. */
class RemoteTask {
  taskId = '';
  contextId = '';
  state: TaskState | undefined;
  statusText = '';
  private readonly artifacts = new Map<string, string>();
  private directReply: string | undefined;

  constructor(private readonly ctx: ToolContext) {}

  apply(event: StreamResponse): void {
    const p = event.payload;
    if (!p) return;
    if (p.$case === 'task') {
      this.taskId = p.value.id;
      this.contextId = p.value.contextId;
      this.state = p.value.status?.state;
    } else if (p.$case === 'message') {
      this.directReply = textOfParts(p.value.parts);
      this.contextId ||= p.value.contextId;
      this.state = TaskState.TASK_STATE_COMPLETED;
    } else if (p.$case === 'statusUpdate') {
      this.taskId ||= p.value.taskId;
      this.contextId ||= p.value.contextId;
      this.state = p.value.status?.state;
      this.statusText = textOfParts(p.value.status?.message?.parts);
      if (this.statusText && this.state === TaskState.TASK_STATE_WORKING) this.ctx.emit(this.statusText);
    } else if (p.$case === 'artifactUpdate' && p.value.artifact) {
      const { artifactId, parts } = p.value.artifact;
      const text = textOfParts(parts);
      const before = p.value.append ? (this.artifacts.get(artifactId) ?? '') : '';
      this.artifacts.set(artifactId, before + text);
      if (text) this.ctx.emit(text);
    }
  }

  /** The answer: a direct reply, the final status's text, else the artifacts' text. */
  answer(): string {
    if (this.directReply !== undefined) return this.directReply;
    if (this.statusText) return this.statusText;
    return [...this.artifacts.values()].join('\n\n');
  }
}
