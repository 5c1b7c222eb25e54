// What the test server answers: scripted turns in order, or a handler's turn per request.
import type { ServerFault } from './faults.js';
import type { RecordedRequest } from './recording.js';

/**
 * One tool call the server should make the "model" request.
 *
 * @example
 * ```ts
 * const call: ServerToolCall = { name: 'get_weather', arguments: { city: 'Paris' }, id: 'call_1' };
 * ```
 */
export interface ServerToolCall {
  readonly name: string;
  /** Raw JSON text, or a value serialised to JSON. */
  readonly arguments: string | object;
  /** Default: a fresh `call_...` id. */
  readonly id?: string;
}

/**
 * One scripted response of the test server.
 *
 * @example
 * ```ts
 * const turn: ServerTurn = { reasoning: 'Think.', text: ['Hel', 'lo'], usage: { prompt_tokens: 12, completion_tokens: 3, cached_tokens: 8 } };
 * ```
 */
export interface ServerTurn {
  /** Answer text: one chunk, or the chunks to stream. */
  readonly text?: string | readonly string[];
  /** Reasoning, streamed before the text as `delta.reasoning_content`. */
  readonly reasoning?: string | readonly string[];
  /** Tool calls; streamed arguments are split over several chunks. */
  readonly toolCalls?: readonly ServerToolCall[];
  /** Reported usage. Default: rough counts from the request and the answer (no cache/reasoning details). */
  readonly usage?: {
    readonly prompt_tokens?: number;
    readonly completion_tokens?: number;
    readonly cached_tokens?: number;
    readonly reasoning_tokens?: number;
  };
  /** Default: `tool_calls` when the turn has tool calls, else `stop`. */
  readonly finishReason?: string;
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
export class TurnSource {
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
      return { noTurn: { message: `OpenAI test server: the handler threw: ${(e as Error)?.message ?? String(e)}`, code: 'handler_error' } };
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
