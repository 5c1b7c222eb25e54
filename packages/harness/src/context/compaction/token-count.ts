import type { Msg } from '@rxscope/core';

/**
 * Counts the tokens of one message (an estimate is fine: compaction only needs a threshold).
 *
 * @example
 * ```ts
 * const countTokens: TokenCounter = (m) => tokenizer.encode(textOfMsg(m)).length;
 * ```
 */
export type TokenCounter = (message: Msg) => number;

/**
 * About four characters a token (OpenAI's rule of thumb for English and code), plus a few
 * tokens of framing per block. Data blocks count by their base64 length / 4 (an upper bound).
 *
 * @example
 * ```ts
 * estimateTokens(createMsg('user', 'Hello there')); // 10 (3 for the text, 7 for the message's framing)
 * ```
 */
export function estimateTokens(message: Msg): number {
  let chars = 0;
  let blocks = 0;
  for (const b of message.content) {
    blocks++;
    switch (b.type) {
      case 'text':
        chars += b.text.length;
        break;
      case 'thinking':
        chars += b.thinking.length;
        break;
      case 'hint':
        chars += b.text.length;
        break;
      case 'tool_call':
        chars += b.name.length + b.arguments.length;
        break;
      case 'tool_result':
        for (const o of b.output) chars += o.type === 'text' ? o.text.length : (o.data?.length ?? 400);
        break;
      case 'data':
        chars += b.data?.length ?? 400;
        break;
    }
  }
  return Math.ceil(chars / 4) + 4 + blocks * 3;
}

/**
 * Token totals of a conversation without recounting it on every step: each message is counted
 * once (messages are immutable, so a message object keeps its count), and the running sums of
 * the last conversation seen are reused up to the first message that changed — a step costs a
 * pointer comparison per message plus counting what is new.
 *
 * @example
 * ```ts
 * const tally = new TokenTally(estimateTokens);
 * tally.total(ctx.conversation.messages); // counts every message
 * tally.total(ctx.conversation.messages); // the next step: counts only what is new
 * ```
 */
export class TokenTally {
  private last: readonly Msg[] = [];
  private sums: number[] = [];

  /** `counts` may be shared by tallies of the same counter (a message's count never changes). */
  constructor(
    private readonly counter: TokenCounter,
    private readonly counts = new WeakMap<Msg, number>(),
  ) {}

  /** Tokens of one message (cached). */
  of(message: Msg): number {
    let n = this.counts.get(message);
    if (n === undefined) {
      n = this.counter(message);
      this.counts.set(message, n);
    }
    return n;
  }

  /** Running sums: `sums[i]` is the tokens of `messages[0..i]`. */
  prefixSums(messages: readonly Msg[]): readonly number[] {
    const last = this.last;
    let same = 0;
    const max = Math.min(last.length, messages.length);
    while (same < max && last[same] === messages[same]) same++;
    const sums = same === this.sums.length && same === messages.length ? this.sums : this.sums.slice(0, same);
    for (let i = same; i < messages.length; i++) sums.push((i ? sums[i - 1]! : 0) + this.of(messages[i]!));
    this.last = messages;
    this.sums = sums;
    return sums;
  }

  /** Tokens of the whole conversation. */
  total(messages: readonly Msg[]): number {
    const sums = this.prefixSums(messages);
    return sums.length ? sums[sums.length - 1]! : 0;
  }
}
