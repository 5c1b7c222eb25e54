// What the test server answers: scripted turns in order, or a handler's turn per request.
import type { Usage } from '../../event/events.js';
import type { ScriptedToolCall, ScriptedTurn } from '../scripted-turn.js';
import type { ServerFault } from './faults.js';
import type { RecordedRequest } from './recording.js';

/**
 * One tool call the server should make the "model" request: a {@link ScriptedToolCall}
 * (`{name, input}`, or raw `arguments` text), the same as `ScriptedChatModel`'s.
 *
 * @example
 * ```ts
 * const call: ServerToolCall = { name: 'get_weather', input: { city: 'Paris' }, id: 'call_1' };
 * ```
 */
export interface ServerToolCall extends Omit<ScriptedToolCall, 'arguments'> {
  /**
   * The raw JSON text of the arguments instead of `input` (to script invalid JSON). An object
   * here is the old spelling of `input`: deprecated, it keeps working until the next minor
   * version.
   */
  readonly arguments?: string | object;
}

/**
 * The old spelling of a turn's usage: the wire's names. Kept for one version.
 * @deprecated use `inputTokens`, `outputTokens`, `cacheReadTokens`, `reasoningTokens`.
 */
export interface ServerWireUsage {
  /** @deprecated use `inputTokens`. */
  readonly prompt_tokens?: number;
  /** @deprecated use `outputTokens`. */
  readonly completion_tokens?: number;
  /** @deprecated use `cacheReadTokens`. */
  readonly cached_tokens?: number;
  /** @deprecated use `reasoningTokens`. */
  readonly reasoning_tokens?: number;
}

/**
 * One scripted response of the test server: a {@link ScriptedTurn} (`text`, `thinking`,
 * `toolCalls` of `{name, input}`, `usage` in rxscope's words, `finishReason`), sent over the wire
 * as OpenAI does (`thinking` as `delta.reasoning_content`, `usage.inputTokens` as
 * `prompt_tokens`, `cacheReadTokens` as `prompt_tokens_details.cached_tokens`...), plus what only
 * HTTP has: a `fault`, `retryAfterSeconds`, `chunkDelayMs`, a `json` answer. The same turns
 * script `ScriptedChatModel` (without the HTTP fields).
 *
 * @example
 * ```ts
 * const turn: ServerTurn = { thinking: 'Think.', text: ['Hel', 'lo'], usage: { inputTokens: 12, outputTokens: 3, cacheReadTokens: 8 } };
 * ```
 */
export interface ServerTurn extends Omit<ScriptedTurn, 'error' | 'toolCalls' | 'usage'> {
  /** Tool calls; streamed arguments are split over several chunks. */
  readonly toolCalls?: readonly ServerToolCall[];
  /** Reported usage. Default: rough counts from the request and the answer (no cache/reasoning details). */
  readonly usage?: Partial<Usage> & ServerWireUsage;
  /**
   * Reasoning, streamed before the text.
   * @deprecated use `thinking` (this spelling keeps working until the next minor version).
   */
  readonly reasoning?: string | readonly string[];
  readonly fault?: ServerFault;
  /** `Retry-After` of a `rate_limit` (or `server_error`) fault, in seconds. */
  readonly retryAfterSeconds?: number;
  /** Delay before each streamed chunk of this turn (overrides the server's `chunkDelayMs`). */
  readonly chunkDelayMs?: number;
  /**
   * A structured answer: sent as the JSON text of the message content (streamed in pieces), as a
   * server honouring `response_format` does. The request must ask for it (`response_format` of
   * type `json_schema` or `json_object`), else the server answers 400, as a test of the client.
   */
  readonly json?: unknown;
}

/** Why a request got no turn: the script ran out, or the handler threw. */
export interface NoTurn {
  readonly message: string;
  readonly code: 'script_exhausted' | 'handler_error';
}

/** The turns of one server: a script consumed in order (and extended by `enqueue`), or a handler. */
export class ScriptedTurns {
  private readonly script: ServerTurn[];
  private scriptIndex = 0;

  constructor(
    script: readonly ServerTurn[],
    private readonly handler?: (request: RecordedRequest, index: number) => ServerTurn | Promise<ServerTurn>,
  ) {
    this.script = [...script];
  }

  /** The turn answering chat request number `index` (0-based). */
  async next(request: RecordedRequest, index: number): Promise<{ turn: ServerTurn } | { noTurn: NoTurn }> {
    try {
      if (this.handler) return { turn: await this.handler(request, index) };
    } catch (e) {
      return {
        noTurn: {
          message: `OpenAI test server: the handler threw: ${(e as Error)?.message ?? String(e)}`,
          code: 'handler_error',
        },
      };
    }
    const next = this.script[this.scriptIndex];
    if (!next) {
      const n = this.script.length;
      return {
        noTurn: {
          message: `OpenAI test server: the script has no turn for chat request #${index + 1} (it has ${n} turn${n === 1 ? '' : 's'}). Add a turn or use a handler.`,
          code: 'script_exhausted',
        },
      };
    }
    this.scriptIndex++;
    return { turn: next };
  }

  enqueue(turns: readonly ServerTurn[]): void {
    this.script.push(...turns);
  }

  remaining(): number {
    return this.script.length - this.scriptIndex;
  }
}
