import { z } from 'zod';
import { type AgentEvent, defineTool, type RuntimeContext, type Tool } from '@rxscope/core';
import type { CostLimitStatus } from './cost-limit-status.js';

/** The arguments of the approval call a person confirms (and may edit: `raiseBy`). */
export const raiseInput = z.object({
  scope: z.enum(['reply', 'session', 'user']),
  limit: z.number(),
  spent: z.number(),
  currency: z.string(),
  /** How much more this reply may spend once confirmed. */
  raiseBy: z.number().finite().nonnegative(),
});

/** The raise arguments, as the person sees them in `REQUIRE_USER_CONFIRM`. */
export type RaiseInput = z.output<typeof raiseInput>;

/**
 * The tool behind `onLimit: 'ask'`: never offered to the model; the middleware makes the call
 * itself, and the agent's permission check (it always needs approval) suspends the reply with
 * `REQUIRE_USER_CONFIRM` until a person answers.
 */
export function raiseLimitTool(name: string): Tool<RaiseInput> {
  return defineTool({
    name,
    description: 'Asks a person to allow this reply to spend more than its cost limit. Never call it yourself.',
    input: raiseInput,
    needsApproval: true,
    execute: ({ raiseBy, currency }) => `A person allowed this reply to spend ${raiseBy} ${currency} more.`,
  });
}

/** The events of an approval call made by the middleware (a tool call block, as a model would stream it). */
export function raiseCallEvents(ctx: RuntimeContext, name: string, id: string, input: RaiseInput): AgentEvent[] {
  const blockId = `${id}:block`;
  return [
    ctx.event('TOOL_CALL_START', { blockId, toolCallId: id, name }),
    ctx.event('TOOL_CALL_DELTA', { blockId, toolCallId: id, delta: JSON.stringify(input) }),
    ctx.event('TOOL_CALL_END', { blockId, toolCallId: id }),
  ];
}

/** The raise asked of a person for `status`. */
export function raiseFor(status: CostLimitStatus, raiseBy: number | undefined): RaiseInput {
  return {
    scope: status.scope,
    limit: status.limit,
    spent: round(status.spent),
    currency: status.currency,
    raiseBy: raiseBy ?? status.limit,
  };
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;
