// What the test server answers: scripted turns in order, or a handler's turn per request.
import type { RecordedRequest } from './recording.js';
import type { ServerTurn } from './server-types.js';

export type { ServerToolCall, ServerTurn, ServerWireUsage } from './server-types.js';

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
