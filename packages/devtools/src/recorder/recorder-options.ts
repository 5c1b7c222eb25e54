import { checkOptionKeys, optionKeys, type AgentHandle } from '@rxscope/core';
import { DevtoolsError } from '../devtools-error.js';

/**
 * Options of `DevtoolsRecorder`. Every bound has a default; the buffer never grows past
 * `maxReplies` replies nor (about) `maxBytes` bytes: the oldest replies are dropped first.
 *
 * @example
 * ```ts
 * const recorder = new DevtoolsRecorder({ maxReplies: 200, maxBytes: 16 * 1024 * 1024, content: true });
 * ```
 */
export interface DevtoolsRecorderOptions {
  /** Replies kept. Default 500. */
  readonly maxReplies?: number;
  /** Bytes kept over all replies (the kept copies' approximate size). Default 32 MiB. */
  readonly maxBytes?: number;
  /** Events kept per reply; later ones are counted, not kept. Default 20,000. */
  readonly maxEventsPerReply?: number;
  /** Strings longer than this are kept as `{ $truncated, size, head }`. Default 4096 characters. */
  readonly maxStringLength?: number;
  /** Keep the messages of model requests. Default `false`: they are `{ $redacted: true }`. */
  readonly content?: boolean;
  /** USD per million tokens, by model name: the summaries then carry `costUsd`. */
  readonly prices?: Readonly<Record<string, { readonly input: number; readonly output: number }>>;
  /**
   * Describes an agent for the record (a harness agent: `(agent) => describeHarness(agent as Agent)`
   * from `@rxscope/harness`). Called once per reply; a throw means "nothing to describe".
   */
  readonly describe?: (agent: AgentHandle) => unknown;
}

const KEYS = optionKeys<DevtoolsRecorderOptions>({
  maxReplies: true,
  maxBytes: true,
  maxEventsPerReply: true,
  maxStringLength: true,
  content: true,
  prices: true,
  describe: true,
});

/**
 * The options of a `DevtoolsRecorder` in effect: checked, defaults filled in.
 *
 * @example
 * ```ts
 * const { maxReplies, maxBytes }: ResolvedRecorderOptions = recorder.options;
 * ```
 */
export type ResolvedRecorderOptions = Required<Omit<DevtoolsRecorderOptions, 'describe' | 'prices'>> &
  Pick<DevtoolsRecorderOptions, 'describe' | 'prices'>;

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1)
    throw new DevtoolsError(
      'devtools_invalid_option',
      `DevtoolsRecorder: "${name}" must be a positive integer, got ${String(value)}.`,
    );
  return value;
}

/** Checks the options (unknown keys refused with a "did you mean") and fills the defaults. */
export function resolveRecorderOptions(options: DevtoolsRecorderOptions = {}): ResolvedRecorderOptions {
  checkOptionKeys('DevtoolsRecorder', options, KEYS);
  return {
    maxReplies: positive('maxReplies', options.maxReplies, 500),
    maxBytes: positive('maxBytes', options.maxBytes, 32 * 1024 * 1024),
    maxEventsPerReply: positive('maxEventsPerReply', options.maxEventsPerReply, 20_000),
    maxStringLength: positive('maxStringLength', options.maxStringLength, 4096),
    content: options.content ?? false,
    ...(options.describe ? { describe: options.describe } : {}),
    ...(options.prices ? { prices: options.prices } : {}),
  };
}
