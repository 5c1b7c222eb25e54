import { defer, finalize, tap, type Observable } from 'rxjs';
import {
  checkOptionKeys,
  optionKeys,
  type ActingInput,
  type AgentEvent,
  type AgentHandle,
  type AgentInput,
  type Middleware,
  type ModelCallInput,
  type Next,
  type ReasoningInput,
  type RuntimeContext,
} from '@rxscope/core';
import type { DevtoolsRecorder } from '../recorder/devtools-recorder.js';
import type { RecordedHook } from '../record/records.js';
import type { LayerTrail } from './layer-trail.js';
import { sanitize } from '../record/sanitize.js';

/**
 * Options of {@link DevtoolsMiddleware}.
 *
 * @example
 * ```ts
 * new DevtoolsMiddleware({ recorder });
 * ```
 */
export interface DevtoolsMiddlewareOptions {
  /** Where the replies are kept (one recorder for the whole process is the usual setup). */
  readonly recorder: DevtoolsRecorder;
}

const KEYS = optionKeys<DevtoolsMiddlewareOptions>({ recorder: true });

/** What the devtools layer of one middleware list knows of it (set by `instrumentMiddlewares`). */
export interface ChainKnowledge {
  readonly trail: LayerTrail;
  readonly chain: readonly { readonly hook: string; readonly layers: readonly string[] }[];
  /** Hooks with no layer but the devtools' own. */
  readonly bare: ReadonlySet<RecordedHook>;
}

// Kept beside the instance, not on it: the chain knowledge is no part of the public class.
const KNOWN = new WeakMap<DevtoolsMiddleware, ChainKnowledge>();

/** Tells a devtools layer the chain it heads (used by `instrumentMiddlewares`). */
export function teachChain(mw: DevtoolsMiddleware, known: ChainKnowledge): DevtoolsMiddleware {
  KNOWN.set(mw, known);
  return mw;
}

/**
 * Records every reply of the agent it is given to (put it first: the outermost layer sees every
 * event): its events with timestamps and hooks, model requests (messages redacted unless the
 * recorder keeps `content`), tool calls and results, confirmations and how they were answered,
 * usage and cost, and subagent replies under their parent. With `instrumentMiddlewares` it also
 * records which layer of each hook every event passed. It never changes an event and never
 * fails a reply.
 *
 * @example
 * ```ts
 * const recorder = new DevtoolsRecorder();
 * const agent = new Agent({ name: 'bot', model, middlewares: [new DevtoolsMiddleware({ recorder })] });
 * ```
 */
export class DevtoolsMiddleware implements Middleware {
  /** Its state key and its name in the recorded chains. */
  readonly key = 'devtools';
  private readonly recorder: DevtoolsRecorder;

  constructor(options: DevtoolsMiddlewareOptions) {
    checkOptionKeys('DevtoolsMiddleware', options, KEYS);
    this.recorder = options.recorder;
  }

  /** What `instrumentMiddlewares` told this layer of its chain, if anything. */
  private get known(): ChainKnowledge | undefined {
    return KNOWN.get(this);
  }

  /** Records the reply: its start (or resumption), every event passing out, its end. */
  onAgent(agent: AgentHandle, ctx: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    return defer(() => {
      const recorder = this.recorder;
      const known = this.known;
      recorder.beginOwn({
        replyId: ctx.replyId,
        agentName: agent.name,
        sessionId: ctx.sessionId,
        ...(ctx.userId !== undefined ? { userId: ctx.userId } : {}),
        chain: known?.chain ?? [{ hook: 'onAgent', layers: ['devtools'] }],
        harness: describe(recorder.options.describe, agent, recorder.options.maxStringLength),
      });
      // How a suspended reply was answered (a confirmation, external results) opens its continuation.
      if (input.resume) recorder.record(ctx.replyId, 'onAgent', [], { ...input.resume, replyId: ctx.replyId });
      let ended = false;
      known?.trail.open();
      return next(input).pipe(
        tap((e) => {
          const origin = known ? known.trail.take(e) : undefined;
          if (e.replyId !== ctx.replyId) {
            // A subagent's reply forwarded through this one: nested under it, and recorded here
            // unless a devtools layer of its own agent records it already.
            if (e.type === 'REPLY_START')
              recorder.begin({ replyId: e.replyId, agentName: e.source, parentReplyId: ctx.replyId });
            if (recorder.recordsItself(e.replyId)) return;
          }
          recorder.record(ctx.replyId, origin?.hook ?? hookOf(e), origin?.layers ?? [], e);
          if (e.type === 'REPLY_END' && e.replyId === ctx.replyId) ended = true;
        }),
        finalize(() => {
          known?.trail.close();
          if (!ended) recorder.abandon(ctx.replyId);
        }),
      );
    });
  }

  /** Records the model request (`MODEL_REQUEST`) of each call. */
  onModelCall(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ModelCallInput,
    next: Next<ModelCallInput>,
  ): Observable<AgentEvent> {
    return defer(() => {
      this.recorder.recordModelRequest(ctx.replyId, layersOf(this.known, 'onModelCall'), {
        model: input.model.modelName,
        ...(input.attempt !== undefined ? { attempt: input.attempt } : {}),
        tools: input.tools.map((t) => t.name),
        toolChoice: input.toolChoice,
        options: input.options,
        messages: input.messages,
      });
      return settle(this.known, next(input), 'onModelCall');
    });
  }
}

/** Fixes the origin of the events of one hook (only when the chain is instrumented). */
function settle(
  known: ChainKnowledge | undefined,
  events$: Observable<AgentEvent>,
  hook: RecordedHook,
): Observable<AgentEvent> {
  // Where the hook has layers, the innermost one sees its events first: nothing to do here.
  return known?.bare.has(hook) ? events$.pipe(tap((e) => known.trail.settle(e, hook))) : events$;
}

/** The hook an event comes from when the chain is not instrumented, by its type. */
function hookOf(e: AgentEvent): RecordedHook {
  const type = e.type as string;
  if (type.startsWith('TOOL_RESULT') || type === 'TOOL_PROGRESS') return 'onActing';
  if (
    type.startsWith('MODEL_CALL') ||
    type.startsWith('TEXT_BLOCK') ||
    type.startsWith('THINKING_BLOCK') ||
    type.startsWith('TOOL_CALL') ||
    type.startsWith('DATA_BLOCK')
  )
    return 'onModelCall';
  return 'onAgent';
}

function layersOf(known: ChainKnowledge | undefined, hook: string): readonly string[] {
  return known?.chain.find((c) => c.hook === hook)?.layers ?? ['devtools'];
}

function describe(
  describer: ((agent: AgentHandle) => unknown) | undefined,
  agent: AgentHandle,
  maxStringLength: number,
): unknown {
  if (!describer) return undefined;
  try {
    const description = describer(agent);
    return description === undefined ? undefined : sanitize(description, { maxStringLength }).value;
  } catch {
    return undefined; // not an agent the describer knows (e.g. not a harness agent)
  }
}

/**
 * The devtools layer `instrumentMiddlewares` puts first: also on `onReasoning` and `onActing`, to
 * fix which hook each event came from. (The plain layer leaves those chains alone: fewer layers
 * on every event when the layers are not recorded.)
 */
export class LayeredDevtoolsMiddleware extends DevtoolsMiddleware {
  /** Notes that events of a reasoning step no layer of that hook saw came from `onReasoning`. */
  onReasoning(
    _agent: AgentHandle,
    _ctx: RuntimeContext,
    input: ReasoningInput,
    next: Next<ReasoningInput>,
  ): Observable<AgentEvent> {
    return settle(KNOWN.get(this), next(input), 'onReasoning');
  }

  onActing(
    _agent: AgentHandle,
    _ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    return settle(KNOWN.get(this), next(input), 'onActing');
  }
}
