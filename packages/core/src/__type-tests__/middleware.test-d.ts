/**
 * Type tests of the middleware contract (docs/middleware.md): hook signatures, `Next`, readonly inputs,
 * typed context tokens and the runtime context.
 */
import { from, map, type Observable, type ObservableInput, of } from 'rxjs';
import {
  type ActingInput,
  type Agent,
  type AgentHandle,
  type AgentEvent,
  type AgentEventOf,
  type AgentInput,
  ContextToken,
  type Middleware,
  type ModelCallInput,
  type ModelEvent,
  type Next,
  type ReasoningInput,
  type RuntimeContext,
  type StateSlot,
  type BlockRef,
  type Conversation,
  ConversationEditError,
  type HintOptions,
  type Msg,
  type StopReason,
  createMsg,
} from '../index.js';
import { declared, exact, type Equal, type Expect } from './helpers.test-d.js';

type Hook<K extends keyof Middleware> = NonNullable<Middleware[K]>;

// ── Next ──────────────────────────────────────────────────────────────────────────────────────
type _next = Expect<Equal<Next<AgentInput>, (input: AgentInput) => Observable<AgentEvent>>>;

// ── The four onion hooks: (agent, ctx, input, next) => Observable<AgentEvent> ─────────────────
type _onAgentParams = Expect<
  Equal<Parameters<Hook<'onAgent'>>, [AgentHandle, RuntimeContext, AgentInput, Next<AgentInput>]>
>;
type _onReasoningParams = Expect<
  Equal<Parameters<Hook<'onReasoning'>>, [AgentHandle, RuntimeContext, ReasoningInput, Next<ReasoningInput>]>
>;
type _onActingParams = Expect<
  Equal<Parameters<Hook<'onActing'>>, [AgentHandle, RuntimeContext, ActingInput, Next<ActingInput>]>
>;
type _onModelCallParams = Expect<
  Equal<Parameters<Hook<'onModelCall'>>, [AgentHandle, RuntimeContext, ModelCallInput, Next<ModelCallInput>]>
>;
type _onAgentReturn = Expect<Equal<ReturnType<Hook<'onAgent'>>, Observable<AgentEvent>>>;
type _onReasoningReturn = Expect<Equal<ReturnType<Hook<'onReasoning'>>, Observable<AgentEvent>>>;
type _onActingReturn = Expect<Equal<ReturnType<Hook<'onActing'>>, Observable<AgentEvent>>>;
type _onModelCallReturn = Expect<Equal<ReturnType<Hook<'onModelCall'>>, Observable<AgentEvent>>>;

// onSystemPrompt is a transformer: (agent, ctx, prompt) => string | ObservableInput<string>.
type _onSystemPromptParams = Expect<Equal<Parameters<Hook<'onSystemPrompt'>>, [AgentHandle, RuntimeContext, string]>>;
type _onSystemPromptReturn = Expect<Equal<ReturnType<Hook<'onSystemPrompt'>>, ObservableInput<string> | string>>;

// Hooks receive the AgentHandle: an Agent is one, and it offers no reply()/call()/shutdown(),
// since a hook that started a reply of its own agent would wait for itself.
type _agentIsAHandle = Expect<Equal<Agent extends AgentHandle ? true : false, true>>;
type _handleCannotReply = Expect<Equal<'reply' extends keyof AgentHandle ? true : false, false>>;
type _handleCannotShutDown = Expect<Equal<'shutdown' extends keyof AgentHandle ? true : false, false>>;
type _onShutdownParams = Expect<Equal<Parameters<Hook<'onShutdown'>>, [AgentHandle]>>;

// Every hook is optional; `key` and `tools` too.
export const empty: Middleware = {};

// Parameters of an object-literal middleware are inferred from the contract.
export const inferred: Middleware = {
  onAgent(agent, ctx, input, next) {
    exact<AgentHandle>()(agent);
    exact<RuntimeContext>()(ctx);
    exact<AgentInput>()(input);
    exact<Next<AgentInput>>()(next);
    return next(input);
  },
  onReasoning: (_agent, _ctx, input, next) => {
    exact<ReasoningInput>()(input);
    return next(input);
  },
  onActing: (_agent, _ctx, input, next) => {
    exact<ActingInput>()(input);
    return next(input);
  },
  onModelCall: (_agent, _ctx, input, next) => {
    exact<ModelCallInput>()(input);
    return next(input);
  },
  onSystemPrompt: (_agent, _ctx, prompt) => {
    exact<string>()(prompt);
    return prompt;
  },
};

// A class implementing Middleware, with every accepted onSystemPrompt return type.
export class AllHooks implements Middleware {
  readonly key = 'allHooks';
  onAgent(_a: Agent, _c: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    return next(input);
  }
  onModelCall(
    _a: Agent,
    _c: RuntimeContext,
    input: ModelCallInput,
    next: Next<ModelCallInput>,
  ): Observable<AgentEvent> {
    // Retry: `next` may be called several times.
    return next(input).pipe(map((e) => e));
  }
  onSystemPrompt(_a: Agent, _c: RuntimeContext, prompt: string): string {
    return prompt;
  }
}
export const promptFromPromise: Middleware = { onSystemPrompt: (_a, _c, p) => Promise.resolve(`${p}!`) };
export const promptFromObservable: Middleware = { onSystemPrompt: (_a, _c, p) => of(`${p}!`) };
export const promptFromArray: Middleware = { onSystemPrompt: (_a, _c, p) => [p] };

export const promptAsNumber: Middleware = {
  // @ts-expect-error -- onSystemPrompt must produce a string
  onSystemPrompt: () => 42,
};
export const promptAsObservableOfNumber: Middleware = {
  // @ts-expect-error -- an Observable of something else than string is refused
  onSystemPrompt: () => of(42),
};

// The onion hooks must return an Observable<AgentEvent>: not a Promise, not a plain value.
export const modelCallAsPromise: Middleware = {
  // @ts-expect-error -- returning a Promise from onModelCall is an error
  onModelCall: (_a, _c, input, next) => Promise.resolve(next(input)),
};
export class PromiseModelCall implements Middleware {
  // @ts-expect-error -- same error in a class implementing Middleware
  onModelCall(
    _a: Agent,
    _c: RuntimeContext,
    input: ModelCallInput,
    next: Next<ModelCallInput>,
  ): Promise<Observable<AgentEvent>> {
    return Promise.resolve(next(input));
  }
}
export const actingAsArray: Middleware = {
  // @ts-expect-error -- an array of events is not an Observable
  onActing: () => [] as AgentEvent[],
};
export const reasoningOfStrings: Middleware = {
  // @ts-expect-error -- Observable<string> is not Observable<AgentEvent>
  onReasoning: () => of('text'),
};
export const agentOfModelEvents: Middleware = {
  // @ts-expect-error -- model events lack id/replyId/createdAt/source: stamp them with ctx.event
  onAgent: () => from(declared<ModelEvent[]>()),
};
export const wrongArity: Middleware = {
  // @ts-expect-error -- the hook cannot demand a fifth parameter
  onActing: (_a: Agent, _c: RuntimeContext, input: ActingInput, next: Next<ActingInput>, _extra: number) => next(input),
};

// `next` takes the hook's own input type.
export const nextTakesItsInput: Middleware = {
  onReasoning: (_a, _c, _input, next) =>
    // @ts-expect-error -- a ReasoningInput needs tools, toolChoice, options and model
    next({ messages: [] }),
  onModelCall: (_a, _c, input, next) => next({ ...input, toolChoice: 'none' }),
};

// ── Inputs are immutable: build a new object to change what inner layers see ──────────────────
export const immutableInputs: Middleware = {
  onAgent: (_a, _c, input, next) => {
    // @ts-expect-error -- AgentInput.messages is readonly
    input.messages = [];
    // @ts-expect-error -- and so is the array
    input.messages[0] = createMsg('user', 'hi');
    return next({ ...input, messages: [...input.messages, createMsg('user', 'extra context')] });
  },
  onReasoning: (_a, _c, input, next) => {
    // @ts-expect-error -- ReasoningInput.messages is readonly
    input.messages = [];
    // @ts-expect-error -- ReasoningInput.toolChoice is readonly
    input.toolChoice = 'none';
    return next({ ...input, toolChoice: 'none' });
  },
  onActing: (_a, _c, input, next) => {
    // @ts-expect-error -- ActingInput.input is readonly
    input.input = {};
    // @ts-expect-error -- ActingInput.toolCall is readonly, and so are its fields
    input.toolCall.arguments = '{}';
    return next({ ...input, input: {} });
  },
  onModelCall: (_a, _c, input, next) => {
    // @ts-expect-error -- ModelCallInput.messages is readonly
    input.messages = [];
    // @ts-expect-error -- ModelCallInput.options is readonly
    input.options.temperature = 0;
    return next({ ...input, options: { ...input.options, temperature: 0 } });
  },
};

// ── Typed context tokens ───────────────────────────────────────────────────────────────────────
const STARTED_AT = new ContextToken<number>('startedAt', () => 0);
const CALLS = new ContextToken('calls', () => [] as string[]);
type _tokenInference = Expect<Equal<typeof CALLS, ContextToken<string[]>>>;
// @ts-expect-error -- the default value must have the token's type
export const BAD_DEFAULT = new ContextToken<number>('bad', () => 'zero');

export function useContext(ctx: RuntimeContext): void {
  exact<number>()(ctx.get(STARTED_AT));
  exact<string[]>()(ctx.get(CALLS));
  ctx.set(STARTED_AT, Date.now());
  ctx.set(CALLS, ['a']);
  // @ts-expect-error -- wrong value type for the token
  ctx.set(STARTED_AT, 'now');
  // @ts-expect-error -- wrong element type
  ctx.set(CALLS, [1]);
  // @ts-expect-error -- a string is not a token
  ctx.get('startedAt');
  exact<boolean>()(ctx.has(STARTED_AT));

  // Persisted state: a typed slot of the agent's state.
  const slot = ctx.state<{ count: number }>('counter');
  exact<StateSlot<{ count: number }>>()(slot);
  exact<{ count: number } | undefined>()(slot.get());
  slot.set({ count: 1 });
  // @ts-expect-error -- wrong shape for the slot
  slot.set({ count: '1' });

  // Always-present identity of the reply, read-only.
  exact<string>()(ctx.replyId);
  exact<string>()(ctx.sessionId);
  exact<string>()(ctx.agentName);
  exact<number>()(ctx.iteration);
  exact<AbortSignal>()(ctx.signal);
  // @ts-expect-error -- the context's fields are readonly
  ctx.iteration = 3;
  // @ts-expect-error -- the context's fields are readonly
  ctx.replyId = 'r';

  // ctx.event stamps an event of the reply; fields are checked per type.
  const custom = ctx.event('CUSTOM', { name: 'timing', value: { ms: 3 } });
  exact<'CUSTOM'>()(custom.type);
  exact<string>()(custom.id);
  // @ts-expect-error -- CUSTOM needs a value
  ctx.event('CUSTOM', { name: 'timing' });
  // @ts-expect-error -- TEXT_BLOCK_DELTA needs a delta
  ctx.event('TEXT_BLOCK_DELTA', { blockId: 'b' });
  // @ts-expect-error -- no such event type
  ctx.event('PROGRESS', { value: 1 });

  // ctx.delta: the shortcut for the five delta types only.
  exact<AgentEventOf<'TEXT_BLOCK_DELTA'>>()(ctx.delta('TEXT_BLOCK_DELTA', 'b', 'Hel'));
  exact<AgentEventOf<'TOOL_RESULT_DELTA'>>()(ctx.delta('TOOL_RESULT_DELTA', 'b', '50%'));
  // @ts-expect-error -- CUSTOM is not a delta event
  ctx.delta('CUSTOM', 'b', 'x');
  // @ts-expect-error -- the delta is a string
  ctx.delta('TEXT_BLOCK_DELTA', 'b', 1);
}

// ── The conversation of a reply: ctx.conversation ────────────────────────────────────────────
{
  const ctx = declared<RuntimeContext>();
  type _conversation = Expect<Equal<RuntimeContext['conversation'], Conversation>>;
  type _messages = Expect<Equal<Conversation['messages'], readonly Msg[]>>;
  exact<string>()(ctx.conversation.addHint('Answer now.', { id: 'limits:finish', lifetime: 'step', source: 'limits' }));
  exact<boolean>()(ctx.conversation.removeHint('limits:finish'));
  exact<boolean>()(ctx.conversation.hasHint('limits:finish'));
  ctx.conversation.replaceMessages(0, 2, [createMsg('user', 'Summary: ...')]);
  ctx.conversation.replaceBlock(
    { toolResult: 'call_1' },
    { type: 'tool_result', toolCallId: 'call_1', name: 't', status: 'success', output: [] },
  );
  ctx.conversation.replaceBlock({ message: 'msg_1', index: 0 }, { type: 'text', text: 'shorter' });
  const refs: BlockRef[] = [{ toolCall: 'c' }, { hint: 'h' }];
  void refs;
  // @ts-expect-error a lifetime is 'step' or 'persistent'
  ctx.conversation.addHint('x', { lifetime: 'reply' });
  // @ts-expect-error messages is read-only: edit through replaceMessages
  ctx.conversation.messages = [];
  // @ts-expect-error a block reference names what it refers to
  ctx.conversation.replaceBlock({ id: 'x' }, { type: 'text', text: '' });
  const options: HintOptions = { id: 'a' };
  void options;
  const err = new ConversationEditError('refused');
  exact<'ConversationEditError'>()(err.name);
}

// ── Policy ends and per-reply state ───────────────────────────────────────────────────────────
{
  const ctx = declared<RuntimeContext>();
  exact<void>()(ctx.stop({ code: 'budget', message: 'spent' }));
  // @ts-expect-error a stop reason needs a message
  ctx.stop({ code: 'budget' });
  exact<StateSlot<number>>()(ctx.replyState<number>('counter'));
  type _attempt = Expect<Equal<ModelCallInput['attempt'], number | undefined>>;
  type _stopReason = Expect<Equal<AgentEventOf<'REPLY_END'>['stopReason'], StopReason | undefined>>;
}
