/**
 * The agent exchange several scenarios share (not a scenario itself): one reply = a streamed
 * model call of 20 text chunks ending in a call of the `add` tool, the tool run, and a second
 * streamed call of 20 text chunks. Here are the server's turns, the tool, the pass-through
 * middleware, the built-in stack, and the two ways of driving the exchange every scenario
 * compares: by hand with the plain `openai` client (the floor) and as an rxscope reply.
 */
import {
  type Agent,
  type ActingInput,
  type AgentEvent,
  type AgentInput,
  type ChatModel,
  type ContentBlock,
  createMsg,
  type Middleware,
  type ModelCallInput,
  type Msg,
  type Next,
  type ReasoningInput,
  type RuntimeContext,
} from '@rxscope/core';
import type { ServerTurn } from '@rxscope/core/testing/node';
import type OpenAI from 'openai';
import { map, type Observable } from 'rxjs';
import { z } from 'zod';
import type { Contender } from '../harness/scenario.js';
import { streamByHand } from './sse-by-hand.js';
import type { ServerProcessOptions } from '../harness/server.js';
import { currentBuild, perBuild, type RxscopeBuild } from './rxscope-build.js';

export const MODEL = 'gpt-4o-mini';
export const SYSTEM = 'You are a helpful assistant. Use the add tool for sums.';
export const USER = 'What is 2 + 3?';

const words = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${i ? ' ' : ''}${prefix}${i + 1}`);
/** Text of the first call (before the tool call) and of the second (the answer). */
export const FIRST_TEXT = words('think', 20);
export const FINAL_TEXT = words('answer', 20);
export const EXPECTED_TEXT = FIRST_TEXT.join('') + FINAL_TEXT.join('');

export const FIRST_TURN: ServerTurn = {
  text: FIRST_TEXT,
  toolCalls: [{ name: 'add', input: { a: 2, b: 3 }, id: 'call_add_1' }],
  usage: { inputTokens: 60, outputTokens: 40 },
};
export const FINAL_TURN: ServerTurn = { text: FINAL_TEXT, usage: { inputTokens: 110, outputTokens: 20 } };

/** The test server's routing for the exchange: the first call gets FIRST_TURN, the call after the tool result FINAL_TURN. */
export const EXCHANGE_SERVER: ServerProcessOptions = { turn: FIRST_TURN, afterToolTurn: FINAL_TURN };

/**
 * Lines the server streams per call (role chunk, text chunks, tool-call chunks, finish chunk,
 * usage chunk, `[DONE]`): with a delay before each, the exchange's ideal duration is
 * `EXCHANGE_LINES × delay`.
 */
export const EXCHANGE_LINES = 1 + 20 + 1 + 3 + 1 + 1 + 1 + (1 + 20 + 1 + 1 + 1);

/** Times the tool ran in this process (a contender's result reports how many runs it caused). */
let toolRuns = 0;
export const toolRunCount = (): number => toolRuns;

/** The tool's work, shared by every contender. */
export function add(a: number, b: number): string {
  toolRuns++;
  return String(a + b);
}

export const addInput = z.object({ a: z.number().describe('first addend'), b: z.number().describe('second addend') });
export const ADD_DESCRIPTION = 'Adds two numbers.';

/** The tool as rxscope defines it, made with the build's own `defineTool`. */
export const addToolOf = perBuild((build) =>
  build.defineTool({
    name: 'add',
    description: ADD_DESCRIPTION,
    input: addInput,
    readOnly: true,
    execute: ({ a, b }) => add(a, b),
  }),
);

/** The tool as the working tree's rxscope defines it. */
export const addTool = addToolOf(currentBuild);

/** The tool as the plain client declares it. */
export const OPENAI_TOOLS: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'add', description: ADD_DESCRIPTION, parameters: addTool.schema.parameters } },
];

/** What every contender of the exchange returns. */
export interface Outcome {
  /** Every text delta streamed during the reply, concatenated (both calls). */
  readonly text: string;
  /** Tool runs in this process while the reply ran (the reply's own only when replies run one at a time). */
  readonly toolRuns: number;
}

/** Throws unless the outcome is the exchange's. */
export function checkOutcome(name: string, r: Outcome): void {
  if (r.text !== EXPECTED_TEXT) throw new Error(`${name} streamed "${r.text}", expected "${EXPECTED_TEXT}"`);
  if (r.toolRuns !== 1) throw new Error(`${name} ran the tool ${r.toolRuns} times, expected once`);
}

/**
 * A middleware that only passes events through, on every hook. Each onion hook really wraps its
 * inner layers: it returns `next(input).pipe(map((e) => e))`, one more operator (and
 * subscriber) per layer, as a middleware that looks at events does; `onSystemPrompt` returns the
 * prompt unchanged.
 */
export class PassThroughMiddleware implements Middleware {
  constructor(readonly key: string) {}
  onAgent(_a: Agent, _c: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    return next(input).pipe(map((e) => e));
  }
  onReasoning(
    _a: Agent,
    _c: RuntimeContext,
    input: ReasoningInput,
    next: Next<ReasoningInput>,
  ): Observable<AgentEvent> {
    return next(input).pipe(map((e) => e));
  }
  onActing(_a: Agent, _c: RuntimeContext, input: ActingInput, next: Next<ActingInput>): Observable<AgentEvent> {
    return next(input).pipe(map((e) => e));
  }
  onModelCall(
    _a: Agent,
    _c: RuntimeContext,
    input: ModelCallInput,
    next: Next<ModelCallInput>,
  ): Observable<AgentEvent> {
    return next(input).pipe(map((e) => e));
  }
  onSystemPrompt(_a: Agent, _c: RuntimeContext, prompt: string): string {
    return prompt;
  }
}

/**
 * A middleware on every hook that adds nothing of its own: each onion hook returns `next(input)`
 * itself, so what remains is what the chain costs per layer (the layer's call, its `defer`).
 */
export class NextMiddleware implements Middleware {
  constructor(readonly key: string) {}
  onAgent(_a: Agent, _c: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    return next(input);
  }
  onReasoning(
    _a: Agent,
    _c: RuntimeContext,
    input: ReasoningInput,
    next: Next<ReasoningInput>,
  ): Observable<AgentEvent> {
    return next(input);
  }
  onActing(_a: Agent, _c: RuntimeContext, input: ActingInput, next: Next<ActingInput>): Observable<AgentEvent> {
    return next(input);
  }
  onModelCall(
    _a: Agent,
    _c: RuntimeContext,
    input: ModelCallInput,
    next: Next<ModelCallInput>,
  ): Observable<AgentEvent> {
    return next(input);
  }
  onSystemPrompt(_a: Agent, _c: RuntimeContext, prompt: string): string {
    return prompt;
  }
}

/** `n` middlewares that return `next(input)` on every hook. */
export const nextOnly = (n: number): Middleware[] =>
  Array.from({ length: n }, (_, i) => new NextMiddleware(`next${i + 1}`));

/** `n` pass-through middlewares (instances are stateless and shared by every agent). */
export const passThrough = (n: number): Middleware[] =>
  Array.from({ length: n }, (_, i) => new PassThroughMiddleware(`pass${i + 1}`));

/**
 * The built-ins a production agent would carry, in the documented order: tracing (no
 * OpenTelemetry SDK registered: the API's no-op tracer), a token budget, retry, rate limit.
 */
export const builtins = (build: RxscopeBuild = currentBuild): Middleware[] => {
  const { TracingMiddleware, ReplyBudgetMiddleware, RetryMiddleware, RateLimitMiddleware } = build.builtin;
  return [
    new TracingMiddleware(),
    new ReplyBudgetMiddleware({ tokenBudget: 1_000_000 }),
    new RetryMiddleware({ maxRetries: 2 }),
    new RateLimitMiddleware({ maxConcurrent: 10_000 }),
  ];
};

export const BUILTINS_LABEL =
  '`TracingMiddleware()` (no SDK) + `ReplyBudgetMiddleware({tokenBudget: 1e6})` + `RetryMiddleware({maxRetries: 2})` + `RateLimitMiddleware({maxConcurrent: 10000})`';

/** Hooks of the reply the scenarios time. */
export interface ReplyHooks {
  /** Called once, at the first text delta of the reply. */
  readonly onFirstText?: () => void;
}

type ChatChunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** One streamed call of the by-hand exchange: its text and tool-call deltas, assembled. */
export class HandStep {
  content = '';
  readonly calls: { id: string; name: string; args: string }[] = [];

  constructor(
    private readonly reply: { text: string },
    private readonly hooks: ReplyHooks,
  ) {}

  add(chunk: ChatChunk): void {
    const delta = chunk.choices[0]?.delta;
    if (!delta) return;
    if (delta.content) {
      if (!this.reply.text) this.hooks.onFirstText?.();
      this.content += delta.content;
      this.reply.text += delta.content;
    }
    for (const tc of delta.tool_calls ?? []) {
      const call = (this.calls[tc.index] ??= { id: '', name: '', args: '' });
      if (tc.id) call.id = tc.id;
      if (tc.function?.name) call.name += tc.function.name;
      if (tc.function?.arguments) call.args += tc.function.arguments;
    }
  }

  /** Appends the assistant message and the tool results; false when the model called no tool (the reply is over). */
  answer(messages: ChatMessage[]): boolean {
    if (!this.calls.length) return false;
    messages.push({
      role: 'assistant',
      content: this.content || null,
      tool_calls: this.calls.map((c) => ({
        id: c.id,
        type: 'function' as const,
        function: { name: c.name, arguments: c.args },
      })),
    });
    for (const c of this.calls) {
      const input = addInput.parse(JSON.parse(c.args));
      messages.push({ role: 'tool', tool_call_id: c.id, content: add(input.a, input.b) });
    }
    return true;
  }
}

/** The exchange by hand: `call` streams one request's chunks into the step. */
export async function handExchange(
  call: (params: OpenAI.Chat.ChatCompletionCreateParamsStreaming, step: HandStep) => Promise<void>,
  hooks: ReplyHooks,
): Promise<Outcome> {
  const runs0 = toolRuns;
  const messages: ChatMessage[] = [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: USER },
  ];
  const reply = { text: '' };
  for (let step = 0; step < 5; step++) {
    const current = new HandStep(reply, hooks);
    await call(
      { model: MODEL, messages, tools: OPENAI_TOOLS, stream: true, stream_options: { include_usage: true } },
      current,
    );
    if (!current.answer(messages)) break;
  }
  return { text: reply.text, toolRuns: toolRuns - runs0 };
}

/**
 * The exchange driven by hand with the plain `openai` client: stream the first call, collect
 * its text and tool-call deltas, run the tool, send the result, stream the second call.
 */
export function floorReply(client: OpenAI, hooks: ReplyHooks = {}): Promise<Outcome> {
  return handExchange(async (params, step) => {
    for await (const chunk of await client.chat.completions.create(params)) step.add(chunk);
  }, hooks);
}

/**
 * The same exchange with the plain `openai` client sending the requests, but each streamed body
 * read by hand ({@link streamByHand}) instead of through the SDK's `Stream`: the way rxscope's
 * `OpenAIChatModel` reads a stream.
 */
export function sseFloorReply(client: OpenAI, hooks: ReplyHooks = {}): Promise<Outcome> {
  return handExchange((params, step) => streamByHand(client, params, (chunk) => step.add(chunk)), hooks);
}

/** The signal of calls nobody cancels (the by-hand model loop below). */
const NEVER = new AbortController().signal;

/**
 * The exchange driven by hand with an rxscope {@link ChatModel} and no agent: stream the first
 * call, collect its text and tool-call events, run the tool, send its result, stream the second
 * call. With `OpenAIChatModel` this is what the model adapter alone costs against the floor;
 * with an in-memory model, what replaying the exchange's events costs without the agent loop.
 */
export async function modelReply(model: ChatModel): Promise<Outcome> {
  const runs0 = toolRuns;
  const tools = [addTool.schema];
  const messages: Msg[] = [createMsg('system', SYSTEM), createMsg('user', USER)];
  let text = '';
  for (let step = 0; step < 5; step++) {
    const request = { messages, tools, toolChoice: 'auto' as const, options: {}, signal: NEVER };
    const blocks: ContentBlock[] = [];
    const calls = new Map<string, { id: string; name: string; args: string }>();
    let content = '';
    await new Promise<void>((resolve, reject) => {
      model.stream(request).subscribe({
        next: (e) => {
          if (e.type === 'TEXT_BLOCK_DELTA') {
            content += e.delta;
            text += e.delta;
          } else if (e.type === 'TOOL_CALL_START') calls.set(e.blockId, { id: e.toolCallId, name: e.name, args: '' });
          else if (e.type === 'TOOL_CALL_DELTA') calls.get(e.blockId)!.args += e.delta;
        },
        error: reject,
        complete: resolve,
      });
    });
    if (content) blocks.push({ type: 'text', text: content });
    if (!calls.size) break;
    for (const c of calls.values()) blocks.push({ type: 'tool_call', id: c.id, name: c.name, arguments: c.args });
    for (const c of calls.values()) {
      const input = addInput.parse(JSON.parse(c.args));
      blocks.push({
        type: 'tool_result',
        toolCallId: c.id,
        name: c.name,
        status: 'success',
        output: [{ type: 'text', text: add(input.a, input.b) }],
      });
    }
    messages.push(createMsg('assistant', blocks));
  }
  return { text, toolRuns: toolRuns - runs0 };
}

/** An rxscope agent for one reply of the exchange (agents are cheap; one per reply keeps the conversation from growing). */
export const exchangeAgent = (
  model: ChatModel,
  middlewares: readonly Middleware[],
  build: RxscopeBuild = currentBuild,
): Agent => build.newAgent({ name: 'assistant', sysPrompt: SYSTEM, model, tools: [addToolOf(build)], middlewares });

/** One rxscope reply of the exchange, subscribed to completion. */
export function rxscopeReply(agent: Agent, hooks: ReplyHooks = {}): Promise<Outcome> {
  const runs0 = toolRuns;
  return new Promise<Outcome>((resolve, reject) => {
    let text = '';
    let finish: string | undefined;
    let error: unknown;
    agent.reply(USER).subscribe({
      next: (e) => {
        if (e.type === 'TEXT_BLOCK_DELTA') {
          if (!text) hooks.onFirstText?.();
          text += e.delta;
        } else if (e.type === 'REPLY_END' && e.source === agent.name) {
          finish = e.finishReason;
          error = e.error;
        }
      },
      error: reject,
      complete: () =>
        finish === 'completed'
          ? resolve({ text, toolRuns: toolRuns - runs0 })
          : reject(
              new Error(`the reply ended ${finish ?? 'without REPLY_END'}${error ? `: ${JSON.stringify(error)}` : ''}`),
            ),
    });
  });
}

/**
 * The rxscope contenders of the exchange for one build: bare, 10 pass-through middlewares, the
 * built-ins. A compared build's are named `rxscope@<sha>`..., so both builds alternate in one run.
 */
export function rxscopeContenders(model: ChatModel, build: RxscopeBuild = currentBuild): Contender[] {
  const ten = passThrough(10);
  const stack = builtins(build);
  const of = build.tag ? ` (commit ${build.tag.slice(1)})` : '';
  return [
    {
      name: `rxscope${build.tag}`,
      label: `\`Agent.reply()\`, no middleware${of}`,
      run: () => rxscopeReply(exchangeAgent(model, [], build)),
    },
    {
      name: `rxscope+10mw${build.tag}`,
      label: `\`Agent.reply()\`, 10 pass-through middlewares on every hook${of}`,
      run: () => rxscopeReply(exchangeAgent(model, ten, build)),
    },
    {
      name: `rxscope+builtins${build.tag}`,
      label: `\`Agent.reply()\` with ${BUILTINS_LABEL}${of}`,
      run: () => rxscopeReply(exchangeAgent(model, stack, build)),
    },
  ];
}
