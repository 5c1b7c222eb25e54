import type { TokenUsage } from '@ag-ui/core';
import type { AgentEventOf } from '../../event/events.js';

/**
 * Token usage of a run as AG-UI reports it: one entry per provider and model, summed over the
 * run's model calls (subagents' included). A call that failed or was cut off reports no counts,
 * so it adds nothing (no invented zeros); cache and reasoning counts appear only when a call reported them.
 *
 * @example
 * ```ts
 * const totals = new AgUiUsage();
 * totals.add('openai', modelCallEnd);
 * runFinished.usage = totals.entries();
 * ```
 */
export class AgUiUsage {
  private readonly byModel = new Map<string, TokenUsage & { inputTokens: number; outputTokens: number }>();

  /** Counts one `MODEL_CALL_END` (of a model of `provider`). */
  add(provider: string | undefined, end: AgentEventOf<'MODEL_CALL_END'>): void {
    // A failed or cut-off call got no usage report from the server: its zeros are not counts.
    if (end.error || end.finishReason === 'error' || end.finishReason === 'interrupted') return;
    const model = end.responseModel ?? end.model;
    const key = `${provider ?? ''}\u0000${model}`;
    const entry = this.byModel.get(key) ?? {
      ...(provider ? { provider } : {}),
      model,
      inputTokens: 0,
      outputTokens: 0,
    };
    const u = end.usage;
    entry.inputTokens += u.inputTokens;
    entry.outputTokens += u.outputTokens;
    entry.totalTokens = entry.inputTokens + entry.outputTokens;
    if (u.reasoningTokens !== undefined) entry.reasoningTokens = (entry.reasoningTokens ?? 0) + u.reasoningTokens;
    if (u.cacheReadTokens !== undefined) entry.cachedInputTokens = (entry.cachedInputTokens ?? 0) + u.cacheReadTokens;
    this.byModel.set(key, entry);
  }

  /** The entries for `RUN_FINISHED`/`RUN_ERROR` `usage`, or `undefined` when no call reported any. */
  entries(): TokenUsage[] | undefined {
    return this.byModel.size ? [...this.byModel.values()].map((e) => ({ ...e })) : undefined;
  }
}
