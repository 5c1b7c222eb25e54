import { defer, type Observable, of } from 'rxjs';
import type { AgentEvent } from '../../event/events.js';
import type { ToolCallBlock } from '../../message/blocks.js';
import type { PendingReply } from '../../state/snapshot.js';
import { unansweredToolCalls } from '../../message/msg.js';
import type { Tool } from '../../tool/tool.js';
import { actOn } from './acting-step.js';
import type { ResumeRequest } from './loop-host.js';
import type { ReplyContext } from './reply-context.js';
import { doneStep, reasonStep, type StepOutput, type StepScope } from './steps.js';
import { triage, type Triage } from './tool-call-triage.js';
import { prepareCall, type PreparedCall } from './tool-run.js';

/**
 * The first step of a reply recovered from its journal (`RECOVER_REPLY`). The calls with a
 * result are not run again (their results are in the reply message). Of the calls without one:
 * those that never started run now (their permission decided again); those that started when
 * the process stopped run again only if their tool is `idempotent`, else the tool's `recover`
 * is asked for the outcome, else they are answered `interrupted` (the outcome is unknown).
 * With no call left, the next reasoning step follows.
 */
export function recoveryStep(scope: StepScope, { pending }: ResumeRequest): Observable<StepOutput> {
  return defer(() => {
    const { host } = scope;
    const done = pending.recovered?.done;
    if (done) return of(doneStep(done));
    const started = new Set(pending.recovered?.started ?? []);
    const open = new Set(unansweredToolCalls([pending.message]));
    const calls = pending.message.content.filter((b): b is ToolCallBlock => b.type === 'tool_call' && open.has(b.id));
    if (!calls.length) return of(reasonStep(scope.toolSteps >= host.maxIters));
    return actOn(
      scope,
      calls.map((call): Triage | Promise<Triage> => {
        const prepared = prepareCall(call, scope.tools);
        if (!started.has(call.id) || prepared.kind === 'answer')
          return triage(prepared, (tool, input, block) => host.decide(scope.ctx, block, tool, input));
        return { kind: 'now', prepared: afterCrash(prepared) };
      }),
    );
  });
}

/** A call that had started when the process stopped: run again, recovered, or answered `interrupted`. */
function afterCrash(prepared: PreparedCall & { kind: 'run' }): PreparedCall {
  const { tool, call } = prepared;
  if (tool.idempotent) return prepared;
  if (tool.recover) return { ...prepared, tool: recovering(tool) };
  return {
    kind: 'answer',
    call,
    status: 'interrupted',
    text:
      `Tool "${tool.name}" was running when the process running this reply stopped; whether it took effect is ` +
      'unknown (the tool is not idempotent, so it was not run again). Check its effect before calling it again.',
  };
}

/** The tool with `recover` as its run: it reports the outcome of the run the crash cut off. */
function recovering(tool: Tool): Tool {
  const recover = tool.recover!;
  return { ...tool, execute: (input: unknown, toolCtx) => recover(input, toolCtx) };
}

/**
 * The `CUSTOM` `reply_recovered` event a recovered reply emits after its `REPLY_START`:
 * `{fromStep, started}` (the calls cut off by the crash), and `damaged` when the journal's end
 * was damaged.
 */
export function recoveredEvent(ctx: ReplyContext, pending: PendingReply | undefined): AgentEvent | undefined {
  const recovered = pending?.recovered;
  if (!recovered) return undefined;
  return ctx.event('CUSTOM', { name: 'reply_recovered', value: { ...recovered } });
}
