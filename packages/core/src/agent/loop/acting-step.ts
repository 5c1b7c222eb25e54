import { concat, defer, EMPTY, from, map, Observable, of, switchMap } from 'rxjs';
import type { AgentEvent, PendingToolCall } from '../../event/events.js';
import type { ToolCallBlock } from '../../message/blocks.js';
import { unansweredToolCalls } from '../../message/msg.js';
import type { ActingInput } from '../../middleware/middleware.js';
import { toolOutputToContent } from '../../tool/output.js';
import { newId } from '../../util/id.js';
import { executeTool, prepareCall, runCall, runCalls } from './tool-run.js';
import { callModel } from './model-call-terminal.js';
import type { ToolModelRequest } from '../../tool/tool.js';
import type { ResumeRequest } from './loop-host.js';
import { foldStep } from './step-fold.js';
import { doneStep, isStep, reasonStep, type ReplyStep, type StepOutput, type StepScope, suspendStep } from './steps.js';
import { triage, type Triage } from './tool-call-triage.js';

/**
 * One acting step: validate every call, decide its permission, then run what may run (and
 * answer what was denied or invalid) in call order; calls that wait for a person or an
 * external executor suspend the reply once the others are done.
 */
export function actingStep(scope: StepScope, calls: readonly ToolCallBlock[]): Observable<StepOutput> {
  return defer(() => {
    const host = scope.host;
    return actOn(
      scope,
      calls.map((call) =>
        triage(prepareCall(call, scope.tools), (tool, input, block) => host.decide(scope.ctx, block, tool, input)),
      ),
    );
  });
}

/** Runs calls already decided (some decisions may still be pending: an asynchronous permission check). */
export function actOn(scope: StepScope, triaged: readonly (Triage | Promise<Triage>)[]): Observable<StepOutput> {
  // Stay synchronous unless a permission check is asynchronous.
  return triaged.some((t) => t instanceof Promise)
    ? from(Promise.all(triaged.map((t) => Promise.resolve(t)))).pipe(switchMap((all) => execute(scope, all)))
    : execute(scope, triaged as Triage[]);
}

/**
 * Continues a suspended reply with the answer to its pending calls (validated by the agent).
 * After a shutdown, the calls that never started run (permission decided again), or the next
 * reasoning step follows.
 */
export function resumeStep(scope: StepScope, { pending, event }: ResumeRequest): Observable<StepOutput> {
  const { host, ctx } = scope;
  if (event.type === 'RESUME_REPLY') {
    const ids = new Set(unansweredToolCalls([pending.message]));
    const calls = pending.message.content.filter((b): b is ToolCallBlock => b.type === 'tool_call' && ids.has(b.id));
    return calls.length ? actingStep(scope, calls) : of(reasonStep(scope.toolSteps >= host.maxIters));
  }
  if (event.type === 'EXTERNAL_EXECUTION_RESULT') {
    const answers = new Map(event.results.map((r) => [r.toolCallId, r]));
    const out: AgentEvent[] = [];
    for (const call of pending.external) {
      const r = answers.get(call.id)!;
      const blockId = newId('blk');
      const output = typeof r.output === 'string' ? toolOutputToContent(r.output) : [...r.output];
      out.push(ctx.event('TOOL_RESULT_START', { blockId, toolCallId: call.id, name: call.name }));
      out.push(
        ctx.event('TOOL_RESULT_END', { blockId, toolCallId: call.id, status: r.isError ? 'error' : 'success', output }),
      );
    }
    for (const e of out) scope.apply(e);
    return concat(from(out), of(afterResume(scope, pending.confirm, [])));
  }
  const answers = new Map(event.results.map((r) => [r.toolCallId, r]));
  const triaged: Triage[] = [];
  for (const call of pending.confirm) {
    const answer = answers.get(call.id)!;
    const tool = scope.tools.get(call.name)!;
    if (!answer.confirmed && !call.question) {
      const text = `The user rejected this call${answer.reason ? `: ${answer.reason}` : '.'}`;
      triaged.push({ kind: 'now', prepared: { kind: 'answer', call: blockOf(call), status: 'denied', text } });
      continue;
    }
    if (call.question) {
      // A question the running tool asked: it runs again with the answer, whatever it is.
      const given = {
        question: call.question,
        confirmed: answer.confirmed,
        ...(answer.input !== undefined ? { input: answer.input } : {}),
        ...(answer.reason !== undefined ? { reason: answer.reason } : {}),
        ...(answer.cancelled ? { cancelled: true } : {}),
      };
      triaged.push({
        kind: 'now',
        prepared: { kind: 'run', call: blockOf(call), tool, input: call.input, answer: given },
      });
      continue;
    }
    if (answer.alwaysAllow) host.alwaysAllow(call.name);
    const input = answer.input !== undefined ? answer.input : call.input;
    if (tool.external) triaged.push({ kind: 'external', call: { id: call.id, name: call.name, input } });
    else triaged.push({ kind: 'now', prepared: { kind: 'run', call: blockOf(call, input), tool, input } });
  }
  // Confirmed calls of an external tool join the calls that were already waiting for their executor.
  return execute(scope, triaged).pipe(
    map((v) => {
      if (!isStep(v)) return v;
      const newlyExternal = v.kind === 'suspend' ? v.external : [];
      const askedAgain = v.kind === 'suspend' ? v.confirm : [];
      return afterResume(scope, askedAgain, [...pending.external, ...newlyExternal]);
    }),
  );
}

/** Runs the calls decided `now` (in call order), then continues or suspends. */
function execute(scope: StepScope, triaged: readonly Triage[]): Observable<StepOutput> {
  const { host, ctx } = scope;
  // A tool's own model call (toolCtx.callModel): through the onModelCall chain, without tools.
  const toolModel = (request: ToolModelRequest, signal: AbortSignal) =>
    host.modelCallChain(
      host.agent,
      ctx,
      {
        model: request.model ?? host.agent.model,
        messages: request.messages,
        tools: [],
        toolChoice: 'none',
        options: request.options ?? {},
        signal,
        attempt: 1,
      },
      (i) => callModel(ctx, i),
    );
  const now = triaged.flatMap((t) => (t.kind === 'now' ? [t.prepared] : []));
  const confirm = triaged.flatMap((t) => (t.kind === 'confirm' ? [t.call] : []));
  const external = triaged.flatMap((t) => (t.kind === 'external' ? [t.call] : []));
  const acting = (i: ActingInput) => host.actingChain(host.agent, ctx, i, (j) => executeTool(ctx, j, toolModel));
  // Calls whose run stopped to ask a person something: they wait with the confirmations.
  const asked: PendingToolCall[] = [];
  // A shutdown lets running calls finish but starts no other: those stay without a result for the resume.
  let held = 0;
  const calls = runCalls(now, host.maxConcurrentTools, (p) =>
    defer(() => {
      if (p.kind === 'run' && scope.draining) {
        held++;
        return EMPTY;
      }
      return runCall(ctx, p, acting, (question) => {
        if (p.kind !== 'run') return;
        asked.push({ id: p.call.id, name: p.call.name, input: p.input, reason: question.message, question });
      });
    }),
  );
  return foldStep(scope, calls, () => {
    if (held) return doneStep('shutdown');
    const given = outputGiven(scope, triaged);
    if (confirm.length || external.length || asked.length) return suspendStep([...confirm, ...asked], external);
    return given ? doneStep('completed') : reasonStep(scope.toolSteps >= host.maxIters);
  });
}

/** Structured output through the tool: true once it accepted a value (throws when no repair is left). */
function outputGiven(scope: StepScope, triaged: readonly Triage[]): boolean {
  const output = scope.output;
  const tool = output?.tool;
  if (!output || !tool) return false;
  const called = triaged.some((t) => t.kind === 'now' && t.prepared.call.name === tool.name);
  return output.afterActing(called);
}

function afterResume(
  scope: StepScope,
  confirm: readonly PendingToolCall[],
  external: readonly PendingToolCall[],
): ReplyStep {
  if (confirm.length || external.length) return suspendStep(confirm, external);
  return reasonStep(scope.toolSteps >= scope.host.maxIters);
}

function blockOf(call: PendingToolCall, input: unknown = call.input): ToolCallBlock {
  return { type: 'tool_call', id: call.id, name: call.name, arguments: JSON.stringify(input ?? {}) };
}
