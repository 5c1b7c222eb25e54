import {
  defer,
  from,
  isObservable,
  mergeMap,
  Observable,
  type ObservableInput,
  of,
  type Subscriber,
  switchMap,
} from 'rxjs';
import type { AgentEvent } from '../../event/events.js';
import type { ToolCallBlock, ToolResultContent, ToolResultStatus } from '../../message/blocks.js';
import type { RuntimeContext } from '../../middleware/context.js';
import type { ActingInput, Next } from '../../middleware/middleware.js';
import { linkAbort } from '../../util/abort-link.js';
import { newId } from '../../util/id.js';
import { appendContent, contentToText, isStructuredValue, toolOutputToContent } from '../../tool/output.js';
import type { Tool, ToolContext, ToolModelRequest, ToolOutput, ToolProgress } from '../../tool/tool.js';
import { type ToolAnswer, ToolQuestion, type ToolQuestionRequest } from '../../tool/tool-question.js';
import { parseToolArguments } from '../../tool/validate.js';
import { journalOf } from './journal-writer.js';
import { NestedReplies } from './nested-replies.js';
import { Relay } from '../operator-relay.js';

/** A tool call after lookup and validation: either ready to run or answered with an error. */
export type PreparedCall =
  | {
      readonly kind: 'run';
      readonly call: ToolCallBlock;
      readonly tool: Tool;
      readonly input: unknown;
      /** The answer to the question the call's previous run asked. */
      readonly answer?: ToolAnswer;
    }
  | { readonly kind: 'answer'; readonly call: ToolCallBlock; readonly status: ToolResultStatus; readonly text: string };

/**
 * Looks the tool up and validates the arguments. Unknown tools are answered with the list of
 * tools; invalid arguments with a message naming each bad field and the expected type.
 */
export function prepareCall(call: ToolCallBlock, tools: ReadonlyMap<string, Tool>): PreparedCall {
  const tool = tools.get(call.name);
  if (!tool) {
    const names = [...tools.keys()];
    return {
      kind: 'answer',
      call,
      status: 'error',
      text:
        `Unknown tool "${call.name}". ` +
        (names.length ? `Available tools: ${names.join(', ')}.` : 'No tools are available; answer without tools.'),
    };
  }
  const parsed = parseToolArguments(tool, call.arguments);
  if (!parsed.ok) return { kind: 'answer', call, status: 'error', text: parsed.message };
  return { kind: 'run', call, tool, input: parsed.input };
}

/** Events of a result given without running the tool (errors, denials, synthesised results). */
export function resultEvents(
  ctx: Pick<RuntimeContext, 'event'>,
  call: { id: string; name: string },
  status: ToolResultStatus,
  text: string,
): AgentEvent[] {
  const blockId = newId('blk');
  return [
    ctx.event('TOOL_RESULT_START', { blockId, toolCallId: call.id, name: call.name }),
    ctx.event('TOOL_RESULT_END', { blockId, toolCallId: call.id, status, output: [{ type: 'text', text }] }),
  ];
}

/** A tool's own model call (`toolCtx.callModel`), made by the acting step through the agent's chain. */
export type ToolModelCall = (request: ToolModelRequest, signal: AbortSignal) => Observable<AgentEvent>;

/**
 * The innermost step of `onActing`: runs the tool, streams each emitted value as a
 * `TOOL_RESULT_DELTA` (and each `toolCtx.emit` as `TOOL_PROGRESS`), and ends with
 * `TOOL_RESULT_END {status: 'success'}` holding the whole output (and the returned `value`). A failure is an error notification (so middlewares can retry); the loop turns it into
 * an error result. Unsubscribing aborts `toolCtx.signal`.
 */
export function executeTool(
  ctx: RuntimeContext,
  input: ActingInput,
  callModel?: ToolModelCall,
): Observable<AgentEvent> {
  return new Observable<AgentEvent>((subscriber) => {
    const { toolCall, tool } = input;
    // The tool's signal is made when the tool first reads it: most tools never do, and an
    // AbortSignal with its listener on the reply's costs several µs per call.
    let controller: AbortController | undefined;
    let unlink: (() => void) | undefined;
    const signal = (): AbortSignal => {
      if (!controller) {
        controller = new AbortController();
        if (cancelled !== undefined) controller.abort(cancelled);
        else if (ctx.signal.aborted) controller.abort(ctx.signal.reason);
        else if (!finished) unlink = linkAbort(ctx.signal, controller);
      }
      return controller.signal;
    };
    /** Set when the call was cancelled before its signal was made. */
    let cancelled: Error | undefined;
    /** The call is over: a signal read from now on (a tool that kept its context) never aborts. */
    let finished = false;
    const cancel = (reason: Error) => {
      if (controller) {
        unlink?.();
        controller.abort(reason);
      } else cancelled = reason;
    };
    const blockId = newId('blk');
    const output: ToolResultContent[] = [];
    // The returned value itself, kept when the tool produced exactly one structured value.
    let values = 0;
    let value: unknown;
    let done = false;
    const journal = journalOf(ctx);
    const toolCtx = withLazySignal(signal, {
      callId: toolCall.id,
      idempotencyKey: `${ctx.sessionId}:${ctx.replyId}:${toolCall.id}`,
      ...sharedStateOf(ctx),
      agentName: ctx.agentName,
      replyId: ctx.replyId,
      ...(ctx.userId !== undefined ? { userId: ctx.userId } : {}),
      ...answerAndModel(input, callModel, signal),
      emit: (progress) => {
        if (done || subscriber.closed) return;
        const report = typeof progress === 'string' ? { message: progress } : progressFields(progress);
        subscriber.next(ctx.event('TOOL_PROGRESS', { blockId, toolCallId: toolCall.id, ...report }));
      },
      forward: (event) => {
        refuseOwnEvent(tool.name, event, ctx.agentName);
        if (!done && !subscriber.closed) subscriber.next(event);
      },
    });
    subscriber.next(ctx.event('TOOL_RESULT_START', { blockId, toolCallId: toolCall.id, name: tool.name }));
    // Cancelled while that event was delivered (e.g. an interrupt): the tool does not run.
    if (subscriber.closed) {
      cancel(new Error(`tool call ${toolCall.id} cancelled`));
      return undefined;
    }
    const run = defer(() => {
      if (!tool.execute) throw new Error(`Tool "${tool.name}" is external and cannot run inside the agent.`);
      return toolValues(tool.execute(input.input, toolCtx));
    });
    // With checkpoints, the tool starts once the journal holds that it started (never a run it does not know of).
    const gated = journal ? from(journal.starting(toolCall.id, tool.name)).pipe(switchMap(() => run)) : run;
    const subscription = gated.subscribe({
      next: (emitted) => {
        values++;
        value = emitted;
        const content = toolOutputToContent(emitted);
        appendContent(output, content);
        subscriber.next(ctx.delta('TOOL_RESULT_DELTA', blockId, contentToText(content)));
      },
      error: (err: unknown) => {
        done = true;
        subscriber.error(err);
      },
      complete: () => {
        done = true;
        const structured = values === 1 && isStructuredValue(value) ? { value } : {};
        subscriber.next(
          ctx.event('TOOL_RESULT_END', { blockId, toolCallId: toolCall.id, status: 'success', output, ...structured }),
        );
        subscriber.complete();
      },
    });
    return () => {
      subscription.unsubscribe();
      finished = true;
      if (!done) cancel(new Error(`tool call ${toolCall.id} cancelled`));
      else unlink?.();
    };
  });
}

/** A tool forwards the events of another agent (a nested one), never those of the agent running it. */
function refuseOwnEvent(toolName: string, event: AgentEvent, agentName: string): void {
  if (event.source !== agentName) return;
  throw new TypeError(
    `Tool "${toolName}" forwarded an event of "${event.source}", the agent running it; ` +
      'a nested agent needs a name of its own.',
  );
}

/** The parts of a tool context only some calls have: the answer to a question, the model call. */
function answerAndModel(
  input: ActingInput,
  callModel: ToolModelCall | undefined,
  signal: () => AbortSignal,
): Pick<ToolContext, 'answer' | 'callModel'> {
  return {
    ...(input.answer !== undefined ? { answer: input.answer } : {}),
    ...(callModel ? { callModel: (request: ToolModelRequest) => callModel(request, signal()) } : {}),
  };
}

const SIGNAL_OF = Symbol('signalOf');

/** The `signal` getter every tool context shares (see {@link withLazySignal}). */
function lazySignal(this: { [SIGNAL_OF]: () => AbortSignal }): AbortSignal {
  return this[SIGNAL_OF]();
}
const SIGNAL_PROPERTY: PropertyDescriptor = { get: lazySignal, enumerable: true };

/**
 * A tool context whose `signal` is made on first read, as an own enumerable getter (a spread
 * copies it). The getter is one shared function, not a closure per call: an object literal's
 * `get signal()` would give every context a hidden class of its own, which V8 keeps reachable
 * until a full GC with everything the closure holds (the call's subscriber, the reply's context).
 */
function withLazySignal(signal: () => AbortSignal, fields: Omit<ToolContext, 'signal'>): ToolContext {
  const ctx = Object.assign({ [SIGNAL_OF]: signal }, fields);
  Object.defineProperty(ctx, 'signal', SIGNAL_PROPERTY);
  return ctx as unknown as ToolContext;
}

/** The reply's shared state for the tool, when the context has one (a context built only to stamp events has none). */
function sharedStateOf(ctx: RuntimeContext): Pick<ToolContext, 'sharedState'> {
  try {
    return { sharedState: ctx.sharedState };
  } catch {
    return {};
  }
}

/** The fields of a progress report, checked: a bad report from a tool names what is wrong. */
function progressFields(p: ToolProgress): { message: string; progress?: number; total?: number } {
  if (typeof p !== 'object' || p === null || typeof p.message !== 'string') {
    throw new TypeError('toolCtx.emit() takes a string or { message: string, progress?: number, total?: number }.');
  }
  return {
    message: p.message,
    ...(typeof p.progress === 'number' ? { progress: p.progress } : {}),
    ...(typeof p.total === 'number' ? { total: p.total } : {}),
  };
}

/**
 * What `execute` returned, as a stream of output values: a string, an array or a plain value is
 * one value (a string is never split into characters, an array of search hits is one JSON
 * result); Observables, promises and (async) iterables such as generators emit what they hold.
 */
function toolValues(out: ObservableInput<ToolOutput> | ToolOutput): Observable<ToolOutput> {
  if (typeof out !== 'object' || out === null || Array.isArray(out)) return of(out);
  if (
    isObservable(out) ||
    out instanceof Promise ||
    Symbol.iterator in out ||
    Symbol.asyncIterator in out ||
    typeof (out as { then?: unknown }).then === 'function'
  ) {
    return from(out as ObservableInput<ToolOutput>);
  }
  return of(out);
}

/**
 * Runs one prepared call through the acting chain and guarantees exactly one result for it:
 * a failure (thrown by the tool or a layer) becomes an error result closing the open block,
 * and a chain that ends without a result gets one saying so.
 */
export function runCall(
  ctx: RuntimeContext,
  prepared: PreparedCall,
  acting: (input: ActingInput) => Observable<AgentEvent>,
  onQuestion?: (question: ToolQuestionRequest) => void,
): Observable<AgentEvent> {
  if (prepared.kind === 'answer') return from(resultEvents(ctx, prepared.call, prepared.status, prepared.text));
  // One Observable and one relay (not defer + tap + catchError + concat): every event of a tool
  // run passes one function here.
  return new Observable<AgentEvent>((subscriber) => {
    const { call, tool, input } = prepared;
    let openBlock: string | undefined;
    let answered = false;
    // Replies of agents run by this tool, forwarded through it: cut off with the call.
    const nested = new NestedReplies(ctx.agentName);
    const closeNested = (down: Subscriber<AgentEvent>) => {
      if (nested.active) for (const e of nested.close(`tool call ${call.id} ended first`)) down.next(e);
    };
    const fail = (err: unknown, down: Subscriber<AgentEvent>) => {
      if (!answered && err instanceof ToolQuestion && onQuestion) {
        // Not a result: the call waits for a person (the step suspends), its open block is closed as such.
        answered = true;
        closeNested(down);
        if (openBlock !== undefined) {
          const text = `Waiting for the user's answer: ${err.question.message}`;
          down.next(
            ctx.event('TOOL_RESULT_END', {
              blockId: openBlock,
              toolCallId: call.id,
              status: 'interrupted',
              output: [{ type: 'text', text }],
              awaitingAnswer: true,
            }),
          );
        }
        openBlock = undefined;
        onQuestion(err.question);
        down.complete();
        return;
      }
      if (!answered) {
        answered = true;
        closeNested(down);
        const text = `Tool "${tool.name}" failed: ${err instanceof Error ? err.message : String(err)}`;
        if (openBlock === undefined) for (const e of resultEvents(ctx, call, 'error', text)) down.next(e);
        else
          down.next(
            ctx.event('TOOL_RESULT_END', {
              blockId: openBlock,
              toolCallId: call.id,
              status: 'error',
              output: [{ type: 'text', text }],
            }),
          );
        openBlock = undefined;
      }
      down.complete();
    };
    let run: Observable<AgentEvent>;
    try {
      run = acting({ toolCall: call, tool, input, ...(prepared.answer ? { answer: prepared.answer } : {}) });
    } catch (err) {
      fail(err, subscriber);
      return;
    }
    // A layer that retries inside onActing (RxJS retry around next) starts the tool again while the
    // failed attempt's result block is still open: the new attempt continues that block (its own
    // TOOL_RESULT_START is dropped, its block id rewritten), so the call keeps exactly one result.
    let retried: string | undefined;
    new Relay<AgentEvent>(subscriber, {
      next: (event, down) => {
        let e = event;
        if (retried !== undefined && 'blockId' in e && e.blockId === retried) e = { ...e, blockId: openBlock! };
        if (e.source !== ctx.agentName) nested.observe(e);
        else if (e.type === 'TOOL_RESULT_START' && e.toolCallId === call.id) {
          if (openBlock !== undefined) {
            retried = e.blockId;
            return;
          }
          openBlock = e.blockId;
        } else if (e.type === 'TOOL_RESULT_END' && e.toolCallId === call.id) {
          closeNested(down);
          openBlock = undefined;
          answered = true;
        }
        down.next(e);
      },
      error: fail,
      // Ended without a result (an onActing layer cut the call short): the same as a failure.
      // The Error only when it is one: capturing a stack costs tens of µs under the HTTP client's deep async stacks.
      complete: (down) => (answered ? down.complete() : fail(new Error('it produced no result'), down)),
    }).subscribeTo(run);
  });
}

/**
 * Runs a step's calls: consecutive concurrency-safe calls in parallel (at most `concurrency`
 * at once), every other call alone, in order.
 */
export function runCalls(
  prepared: readonly PreparedCall[],
  concurrency: number,
  runOne: (p: PreparedCall) => Observable<AgentEvent>,
): Observable<AgentEvent> {
  const groups: PreparedCall[][] = [];
  for (const p of prepared) {
    const parallel = p.kind === 'run' && p.tool.concurrencySafe;
    const last = groups[groups.length - 1];
    const lastParallel = last !== undefined && last.every((q) => q.kind === 'run' && q.tool.concurrencySafe);
    if (parallel && last && lastParallel) last.push(p);
    else groups.push([p]);
  }
  const runGroup = (group: PreparedCall[]) =>
    group.length === 1 ? runOne(group[0]!) : from(group).pipe(mergeMap(runOne, concurrency));
  // The usual step (one call, or one group of concurrency-safe calls) needs no outer operator.
  if (groups.length === 1) return runGroup(groups[0]!);
  return from(groups).pipe(mergeMap(runGroup, 1));
}

/** Type of the acting terminal, for the loop. */
export type ActingStep = Next<ActingInput>;
