// The fault matrix: every fault × every configuration, with the outcome a user relies on. The
// spec runs each cell and checks its outcome; docs/RELIABILITY.md shows the same rows as a table
// (the spec checks that the two agree).
import type { ServerTurn } from '@rxscope/core/testing/node';
import type { RawFault } from './raw-server.js';

/**
 * The agent's set-up: bare; with the resilience built-ins (RetryMiddleware outside
 * TimeoutMiddleware); or the harness (`createHarnessAgent` with the coding preset, its sandbox and
 * a temporary workspace) with the same built-ins as the user's middlewares.
 */
export type Configuration = 'bare' | 'built-ins' | 'harness';
export const CONFIGURATIONS: readonly Configuration[] = ['bare', 'built-ins', 'harness'];

/** What a cell must end with. */
export interface Outcome {
  /** The REPLY_END's finishReason. */
  readonly finish: 'completed' | 'error' | 'interrupted';
  /** The REPLY_END error's `code`, for `error`. */
  readonly code?: string;
  /** Text the REPLY_END error's message contains. */
  readonly message?: string;
  /** Fields the REPLY_END error has (`retryable`, `retryAfterMs`). */
  readonly error?: Readonly<Record<string, unknown>>;
  /** The text the reply streamed (for a completed reply: the recovered answer). */
  readonly text?: string;
  /** The status of the tool call's result, and text its content (as sent back to the model) contains. */
  readonly toolResult?: { readonly status: 'error' | 'interrupted'; readonly content?: string };
  /** The reply takes at least this long (a wait the server asked for). */
  readonly atLeastMs?: number;
  /** Chat requests the model server received (retries included). */
  readonly requests: number;
  /** The consumer calls `agent.interrupt()` after this many ms (nothing else would end the reply). */
  readonly interruptAfterMs?: number;
  /** What the user sees, in words (the docs table's outcome column). */
  readonly says: string;
}

/** One fault and how it is produced. */
export interface Fault {
  readonly name: string;
  /** Turns of the OpenAI-compatible test server (its `fault` field does the breaking). */
  readonly turns?: readonly ServerTurn[];
  /** Or a fault only a bare HTTP server produces (healthy answers after it). */
  readonly raw?: RawFault;
  /** Something other than the wire that fails. */
  readonly local?:
    'tool_throws' | 'tool_hangs' | 'middleware_throws' | 'middleware_throws_resilient' | 'store_save_fails';
  /** The harness runs with the built-ins: its outcome is theirs unless given. */
  readonly outcome: Readonly<Record<'bare' | 'built-ins', Outcome>> & { readonly harness?: Outcome };
}

/** What a cell of `fault` in `config` must end with. */
export const outcomeOf = (fault: Fault, config: Configuration): Outcome =>
  fault.outcome[config] ?? fault.outcome['built-ins'];

const weatherCall = (id: string): ServerTurn => ({
  toolCalls: [{ name: 'get_weather', input: { city: 'Paris' }, id }],
});
const all = (o: Outcome): Record<Configuration, Outcome> => ({ bare: o, 'built-ins': o, harness: o });

const completed = (requests: number, says: string, more: Partial<Outcome> = {}): Outcome => ({
  finish: 'completed',
  requests,
  says,
  text: 'recovered',
  ...more,
});
const failed = (code: string, requests: number, says: string, more: Partial<Outcome> = {}): Outcome => ({
  finish: 'error',
  code,
  requests,
  says,
  ...more,
});
const retryable = { error: { retryable: true } };

export const FAULTS: readonly Fault[] = [
  {
    name: 'HTTP 429 with Retry-After: 1',
    turns: [{ fault: 'rate_limit', retryAfterSeconds: 1 }, { text: 'recovered' }],
    outcome: {
      bare: failed('rate_limited', 1, 'retryable, status 429', { error: { retryable: true, status: 429 } }),
      'built-ins': completed(2, 'retried after the 1 s asked, then completed', { atLeastMs: 950 }),
    },
  },
  {
    name: 'HTTP 429 without Retry-After',
    raw: 'rate_limit_no_retry_after',
    outcome: {
      bare: failed('rate_limited', 1, 'retryable', retryable),
      'built-ins': completed(2, 'retried after the backoff, then completed'),
    },
  },
  {
    name: 'HTTP 500',
    turns: [{ fault: 'server_error' }, { text: 'recovered' }],
    outcome: {
      bare: failed('server_error', 1, 'retryable', retryable),
      'built-ins': completed(2, 'retried, then completed'),
    },
  },
  {
    name: 'HTTP 401',
    turns: [{ fault: 'unauthorized' }, { text: 'never sent' }],
    outcome: all(failed('unauthorized', 1, 'not retried', { error: { retryable: false } })),
  },
  {
    name: 'connection reset before the first byte',
    raw: 'reset_before_first_byte',
    outcome: {
      bare: failed('connection_error', 1, 'retryable', retryable),
      'built-ins': completed(2, 'retried, then completed'),
    },
  },
  {
    name: 'connection reset mid-stream',
    turns: [{ text: ['Once ', 'upon ', 'a ', 'time'], fault: 'drop_mid_stream' }, { text: 'never sent' }],
    outcome: all(
      failed(
        'connection_error',
        1,
        'not retried: the partial text was shown (RetryMiddleware `buffer: true` retries it)',
        { text: 'Once ' },
      ),
    ),
  },
  {
    name: 'malformed SSE',
    turns: [{ text: 'x', fault: 'malformed_sse' }, { text: 'recovered' }],
    outcome: {
      bare: failed('malformed_response', 1, 'retryable', retryable),
      'built-ins': completed(2, 'retried, then completed'),
    },
  },
  {
    name: 'JSON completion answering a streamed request',
    raw: 'json_to_stream',
    outcome: {
      bare: failed('empty_response', 1, 'retryable: the body holds no SSE event', retryable),
      'built-ins': completed(2, 'retried, then completed'),
    },
  },
  {
    name: 'malformed tool-call JSON',
    turns: [{ ...weatherCall('call_bad'), fault: 'malformed_tool_json' }, { text: 'recovered' }],
    outcome: all(
      completed(2, 'the call gets an error result naming the JSON problem; the model answers', {
        toolResult: { status: 'error', content: 'not valid JSON' },
      }),
    ),
  },
  {
    name: 'unknown tool',
    turns: [{ fault: 'unknown_tool' }, { text: 'recovered' }],
    outcome: all(
      completed(2, 'the call gets an error result listing the tools; the model answers', {
        toolResult: { status: 'error', content: 'get_weather' },
      }),
    ),
  },
  {
    name: 'tool-call id reused from an earlier answer',
    turns: [weatherCall('call_0'), weatherCall('call_0'), { text: 'recovered' }],
    outcome: all(completed(3, 'the second call gets a fresh id; both run and are answered; the model answers')),
  },
  {
    name: 'stalled stream',
    turns: [{ fault: 'stall' }, { text: 'recovered' }],
    outcome: {
      bare: {
        finish: 'interrupted',
        requests: 1,
        interruptAfterMs: 300,
        says: 'waits (no idle limit set) until `interrupt()`: ends `interrupted`, socket closed',
      },
      'built-ins': completed(2, '`idleMs` times it out, retried, then completed'),
    },
  },
  {
    name: 'tool throws',
    turns: [{ toolCalls: [{ name: 'explode', input: {}, id: 'call_x' }] }, { text: 'recovered' }],
    local: 'tool_throws',
    outcome: all(
      completed(2, 'the call gets an error result with the message; the model answers', {
        toolResult: { status: 'error', content: 'the tool blew up' },
      }),
    ),
  },
  {
    name: 'tool hangs past its timeout',
    turns: [{ toolCalls: [{ name: 'hang', input: {}, id: 'call_h' }] }, { text: 'recovered' }],
    local: 'tool_hangs',
    outcome: {
      bare: {
        finish: 'interrupted',
        requests: 1,
        interruptAfterMs: 300,
        says: 'waits (no tool limit set) until `interrupt()`: the call gets an `interrupted` result',
        toolResult: { status: 'interrupted' },
      },
      'built-ins': completed(2, '`toolCallMs` gives the call a timeout error result; the model answers', {
        toolResult: { status: 'error', content: 'timed out' },
      }),
      harness: completed(
        2,
        'the hanging call is `execute` running `sleep`: `toolCallMs` gives it a timeout error result, the command is killed (no process left); the model answers',
        { toolResult: { status: 'error', content: 'timed out' } },
      ),
    },
  },
  {
    name: 'middleware throws',
    turns: [{ text: 'never sent' }],
    local: 'middleware_throws',
    outcome: all({
      finish: 'error',
      requests: 0,
      message: 'the middleware blew up',
      says: "error with the middleware's own error and message (no code), not retried; no request sent",
    }),
  },
  {
    name: 'middleware throws inside `resilient()`',
    turns: [{ text: 'recovered' }],
    local: 'middleware_throws_resilient',
    outcome: all(completed(1, 'the failing layer is skipped and its `onError` told; completed')),
  },
  {
    name: 'session store fails on save',
    turns: [{ text: 'recovered' }],
    local: 'store_save_fails',
    outcome: all({
      finish: 'error',
      requests: 1,
      message: 'disk full',
      text: 'recovered',
      says: "the reply ran, then ends with the store's error and message (no code); the state in memory is intact",
    }),
  },
];

/** The docs table: a row per fault, a column per configuration. */
export function matrixTable(): string {
  const cell = (o: Outcome) => {
    const end = o.finish === 'error' ? (o.code ? `error \`${o.code}\`` : 'error') : o.finish;
    return `${end}, ${o.requests} request${o.requests === 1 ? '' : 's'}: ${o.says}`;
  };
  const rows = FAULTS.map((f) => `| ${f.name} | ${CONFIGURATIONS.map((c) => cell(outcomeOf(f, c))).join(' | ')} |`);
  return [
    `| fault | ${CONFIGURATIONS.join(' | ')} |`,
    `| --- |${' --- |'.repeat(CONFIGURATIONS.length)}`,
    ...rows,
  ].join('\n');
}
