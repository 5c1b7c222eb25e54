import type { Usage } from '../../event/events.js';

/** The token usage of one reply, summed over its model calls (and carried over a suspension). */
export class UsageTally {
  private inputTokens: number;
  private outputTokens: number;
  private cacheReadTokens: number;
  private reasoningTokens: number;

  constructor(start?: Usage) {
    this.inputTokens = start?.inputTokens ?? 0;
    this.outputTokens = start?.outputTokens ?? 0;
    this.cacheReadTokens = start?.cacheReadTokens ?? 0;
    this.reasoningTokens = start?.reasoningTokens ?? 0;
  }

  add(u: Usage): void {
    this.inputTokens += u.inputTokens;
    this.outputTokens += u.outputTokens;
    this.cacheReadTokens += u.cacheReadTokens ?? 0;
    this.reasoningTokens += u.reasoningTokens ?? 0;
  }

  /** The sum so far; the optional counts only when some call reported them. */
  total(): Usage {
    return {
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      ...(this.cacheReadTokens ? { cacheReadTokens: this.cacheReadTokens } : {}),
      ...(this.reasoningTokens ? { reasoningTokens: this.reasoningTokens } : {}),
    };
  }
}
