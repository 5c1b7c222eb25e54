/**
 * The code of docs/getting-started.md, docs/middleware.md and docs/events.md, run as tests: every
 * class and snippet below appears in the docs with `@rxscope/core` imports, and each test checks
 * what a reader of the docs would notice if the example stopped working.
 */
import {
  BehaviorSubject,
  filter,
  finalize,
  firstValueFrom,
  lastValueFrom,
  map,
  merge,
  type Observable,
  of,
  scan,
  share,
  tap,
  timer,
  toArray,
} from 'rxjs';
import { z } from 'zod';
import {
  Agent,
  type AgentEvent,
  AgentError,
  AgentStateError,
  createReplyReducer,
  defineTool,
  isAgentEvent,
  isBlockStart,
  isEvent,
  type Middleware,
  ModelError,
  textOfMsg,
  toMsg,
  toolResultsOf,
} from '../index.js';
import { assertConsistentConversation, assertReplyGrammar, ScriptedChatModel } from '../testing/index.js';
import { PromptContextMiddleware, type UserProfile } from './docs/prompt-context-middleware.js';
import { TimingMiddleware } from './docs/timing-middleware.js';
import { ToolCallLogMiddleware } from './docs/tool-call-log-middleware.js';
import { DeterministicSampling } from './docs/deterministic-sampling.js';
import { ReadOnlyGuard } from './docs/read-only-guard.js';
import { RetryOnce } from './docs/retry-once.js';
import { ToolCallCounter } from './docs/tool-call-counter.js';

const collect = (events$: Observable<AgentEvent>): Promise<AgentEvent[]> => lastValueFrom(events$.pipe(toArray()));
const customs = (events: readonly AgentEvent[], name: string) =>
  events.filter(isEvent('CUSTOM')).filter((e) => e.name === name);

// ── Shared tools ────────────────────────────────────────────────────────────────────────────────

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  input: z.object({ a: z.number(), b: z.number() }),
  readOnly: true,
  execute: ({ a, b }) => String(a + b),
});

const wait = defineTool({
  name: 'wait',
  description: 'Waits for a number of milliseconds',
  input: z.object({ ms: z.number().int().min(0) }),
  readOnly: true,
  execute: ({ ms }) => timer(ms).pipe(map(() => `waited ${ms} ms`)),
});

const fail = defineTool({
  name: 'fail',
  description: 'Always fails',
  input: z.object({ reason: z.string() }),
  execute: ({ reason }) => {
    throw new Error(reason);
  },
});

const deleteFile = defineTool({
  name: 'delete_file',
  description: 'Deletes a file',
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `deleted ${path}`,
});

// ── docs/getting-started.md ─────────────────────────────────────────────────────────────────────

describe('getting started', () => {
  const getWeather = defineTool({
    name: 'get_weather',
    description: 'Current weather for a city',
    input: z.object({ city: z.string().describe('City name, e.g. "Paris"') }),
    readOnly: true,
    execute: ({ city }) => ({ city, tempC: 21, sky: 'sunny' }),
  });

  const weatherModel = () =>
    new ScriptedChatModel([
      { toolCalls: [{ name: 'get_weather', input: { city: 'Paris' } }] },
      { text: ['It is 21 °C ', 'and sunny in Paris.'] },
    ]);

  it('renders text deltas of a reply that used a tool', () => {
    const model = weatherModel();
    const agent = new Agent({
      name: 'assistant',
      sysPrompt: 'You are a concise weather assistant.',
      model,
      tools: [getWeather],
    });
    let out = '';
    let ended = '';
    agent.reply('What is the weather in Paris?').subscribe({
      error: (err: unknown) => console.error(err),
      next: (e) => {
        if (e.type === 'TEXT_BLOCK_DELTA') out += e.delta;
        if (e.type === 'TOOL_CALL_START') out += `[calling ${e.name}]\n`;
        if (e.type === 'REPLY_END') ended = e.finishReason;
      },
    });
    expect(out).toBe('[calling get_weather]\nIt is 21 °C and sunny in Paris.');
    expect(ended).toBe('completed');
    // The model saw the tool's output (JSON of the returned object) in the second call.
    const second = model.requests[1]!;
    expect(toolResultsOf(second.messages[second.messages.length - 1]!)[0]!.output).toEqual([
      { type: 'text', text: '{"city":"Paris","tempC":21,"sky":"sunny"}' },
    ]);
    expect(second.messages[0]!.role).toBe('system');
    expect(model.requests[0]!.tools[0]!.parameters).toMatchObject({ type: 'object', required: ['city'] });
  });

  it('call() resolves with the reply message and its metadata', async () => {
    const agent = new Agent({ model: weatherModel(), tools: [getWeather] });
    const msg = await agent.call('What is the weather in Paris?');
    expect(textOfMsg(msg)).toBe('It is 21 °C and sunny in Paris.');
    expect(msg.content.map((b) => b.type)).toEqual(['tool_call', 'tool_result', 'text']);
    expect(msg.metadata).toMatchObject({ finishReason: 'completed', usage: { inputTokens: 20 } });
    expect(agent.context.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('call() rejects with an AgentError when the model fails', async () => {
    const model = new ScriptedChatModel([
      { error: new ModelError('upstream unavailable', { status: 503, retryable: true }) },
    ]);
    const agent = new Agent({ model });
    const error = await agent.call('hi').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).info).toMatchObject({ name: 'ModelError', status: 503, retryable: true });
  });

  it('interrupt() ends the running reply gracefully; call() still resolves', async () => {
    const model = new ScriptedChatModel([{ text: ['Once ', 'upon ', 'a ', 'time ', 'there ', 'was...'] }], {
      delayMs: 20,
    });
    // Stop once the user has seen some text (as a person pressing stop would), whatever the machine's speed.
    const stopAfterText: Middleware = {
      onModelCall: (self, _c, input, next) =>
        next(input).pipe(
          tap((e) => e.type === 'TEXT_BLOCK_DELTA' && e.delta === 'upon ' && self.interrupt('user pressed stop')),
        ),
    };
    const agent = new Agent({ model, middlewares: [stopAfterText] });
    const msg = await agent.call('Tell me a story');
    expect(msg.metadata?.['finishReason']).toBe('interrupted');
    expect(textOfMsg(msg).length).toBeGreaterThan(0);
    expect(textOfMsg(msg)).not.toContain('was...');
    expect(model.requests[0]!.signal.aborted).toBe(true);
  });

  it('unsubscribing cancels the model request and the running tool, keeping the conversation consistent', async () => {
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'wait', input: { ms: 5_000 } }] }, { text: 'never' }]);
    const agent = new Agent({ model, tools: [wait] });
    const seen: string[] = [];
    const sub = agent
      .reply('Wait five seconds')
      .subscribe({ next: (e) => seen.push(e.type), error: (err: unknown) => console.error(err) });
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toContain('TOOL_RESULT_START');
    sub.unsubscribe();
    expect(seen).not.toContain('REPLY_END');
    expect(agent.busy).toBe(false);
    const last = agent.context[agent.context.length - 1]!;
    expect(toolResultsOf(last).map((r) => r.status)).toEqual(['interrupted']);
    assertConsistentConversation(agent.context);
  });

  it('queues a second reply behind the running one', async () => {
    const model = new ScriptedChatModel([{ text: 'first answer' }, { text: 'second answer' }], { delayMs: 5 });
    const agent = new Agent({ model });
    const seen = await lastValueFrom(
      merge(agent.reply('one'), agent.reply('two')).pipe(
        filter(isEvent('REPLY_START', 'REPLY_END', 'TEXT_BLOCK_DELTA')),
        map((e) => (e.type === 'TEXT_BLOCK_DELTA' ? e.delta : e.type)),
        toArray(),
      ),
    );
    expect(seen).toEqual(['REPLY_START', 'first answer', 'REPLY_END', 'REPLY_START', 'second answer', 'REPLY_END']);
  });

  it('maxIters bounds the tool steps, then one final call without tools ends the reply', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] },
      { toolCalls: [{ name: 'add', input: { a: 3, b: 4 } }] },
      { text: 'Stopping here: 3 and 7.' },
    ]);
    const agent = new Agent({ model, tools: [add], maxIters: 2 });
    const msg = await agent.call('Keep adding');
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', 'auto', 'none']);
    expect(msg.metadata?.['finishReason']).toBe('max_iters');
    expect(textOfMsg(msg)).toBe('Stopping here: 3 and 7.');
  });

  it('a forced tool choice applies to the first reasoning step of each reply, then resets to auto', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] },
      { text: '3' },
      { toolCalls: [{ name: 'add', input: { a: 2, b: 2 } }] },
      { text: '4' },
    ]);
    const agent = new Agent({ model, tools: [add], toolChoice: { name: 'add' } });
    await agent.call('1 + 2?');
    await agent.call('2 + 2?');
    expect(model.requests.map((r) => r.toolChoice)).toEqual([{ name: 'add' }, 'auto', { name: 'add' }, 'auto']);
  });

  it('resetToolChoice: false forces every step until maxIters', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] },
      { toolCalls: [{ name: 'add', input: { a: 3, b: 3 } }] },
      { text: 'done' },
    ]);
    const agent = new Agent({ model, tools: [add], toolChoice: 'required', resetToolChoice: false, maxIters: 2 });
    const msg = await agent.call('go');
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['required', 'required', 'none']);
    expect(msg.metadata?.['finishReason']).toBe('max_iters');
  });

  it('saveState() and new Agent({ state }) carry the conversation over', async () => {
    const agent = new Agent({ name: 'assistant', model: new ScriptedChatModel([{ text: 'Nice to meet you, Ada.' }]) });
    await agent.call('My name is Ada.');
    const json = JSON.stringify(agent.saveState());

    const model = new ScriptedChatModel([{ text: 'You are Ada.' }]);
    const restored = new Agent({ name: 'assistant', model, state: JSON.parse(json) });
    expect(restored.sessionId).toBe(agent.sessionId);
    await restored.call('What is my name?');
    expect(model.requests[0]!.messages.map((m) => textOfMsg(m))).toEqual([
      'My name is Ada.',
      'Nice to meet you, Ada.',
      'What is my name?',
    ]);

    const broken = { ...(JSON.parse(json) as object), context: [{ role: 'robot' }] };
    expect(() => new Agent({ model, state: broken })).toThrow(AgentStateError);
  });
});

// ── docs/middleware.md ──────────────────────────────────────────────────────────────────────────

describe('middleware guide', () => {
  it('(a) TimingMiddleware reports model-call and tool-call durations as CUSTOM events', async () => {
    const model = new ScriptedChatModel(
      [{ toolCalls: [{ name: 'wait', input: { ms: 60 } }] }, { text: 'Done waiting.' }],
      { delayMs: 10 }, // 4 events per turn: each model call takes at least 40 ms
    );
    const agent = new Agent({ model, tools: [wait], middlewares: [new TimingMiddleware()] });
    const events = await collect(agent.reply('Wait 60 ms'));
    assertReplyGrammar(events);

    const modelCalls = customs(events, 'timing.model_call').map(
      (e) => e.value as { model: string; iteration: number; ms: number; failed: boolean },
    );
    expect(modelCalls.map(({ model: m, iteration, failed }) => ({ m, iteration, failed }))).toEqual([
      { m: 'scripted-model', iteration: 1, failed: false },
      { m: 'scripted-model', iteration: 2, failed: false },
    ]);
    for (const c of modelCalls) expect(c.ms).toBeGreaterThanOrEqual(35);

    const toolCalls = customs(events, 'timing.tool_call').map(
      (e) => e.value as { tool: string; ms: number; failed: boolean },
    );
    expect(toolCalls).toHaveLength(1);
    expect(toolCalls[0]).toMatchObject({ tool: 'wait', failed: false });
    expect(toolCalls[0]!.ms).toBeGreaterThanOrEqual(55);
    expect(toolCalls[0]!.ms).toBeLessThan(2_000);

    // Each timing event follows the end of what it measured; the totals come just before REPLY_END.
    const types = events.map((e) => (e.type === 'CUSTOM' ? e.name : e.type));
    expect(types[types.indexOf('timing.tool_call') - 1]).toBe('TOOL_RESULT_END');
    expect(types.filter((t, i) => t === 'timing.model_call' && types[i - 1] === 'MODEL_CALL_END')).toHaveLength(2);
    expect(types.slice(-2)).toEqual(['timing.reply', 'REPLY_END']);
    const totals = customs(events, 'timing.reply')[0]!.value as { modelMs: number; toolMs: number };
    expect(totals.modelMs).toBeCloseTo(modelCalls[0]!.ms + modelCalls[1]!.ms, 6);
    expect(totals.toolMs).toBeCloseTo(toolCalls[0]!.ms, 6);
  });

  it('(a) TimingMiddleware times failed attempts too, and keeps replies apart', async () => {
    let t = 0;
    const timing = new TimingMiddleware({ now: () => (t += 5) });
    const model = new ScriptedChatModel([{ error: new ModelError('boom') }, { text: 'fine' }]);
    const agent = new Agent({ model, middlewares: [timing] });
    const failed = await collect(agent.reply('first'));
    expect(assertReplyGrammar(failed).finishReason).toBe('error');
    expect(customs(failed, 'timing.model_call').map((e) => (e.value as { failed: boolean }).failed)).toEqual([true]);
    const ok = await collect(agent.reply('second'));
    expect(customs(ok, 'timing.model_call').map((e) => (e.value as { failed: boolean; ms: number }).failed)).toEqual([
      false,
    ]);
    // The second reply's totals hold only its own call (per-reply state, shared instance).
    expect(customs(ok, 'timing.reply')[0]!.value).toEqual({ modelMs: 5, toolMs: 0 });
  });

  it('(b) PromptContextMiddleware appends the date and the user profile to the system prompt', async () => {
    const profile$ = new BehaviorSubject<UserProfile>({ name: 'Ada', language: 'English' });
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] },
      { text: '2' },
      { text: 'Deux.' },
    ]);
    const agent = new Agent({
      sysPrompt: 'You are a helpful assistant.',
      model,
      tools: [add],
      middlewares: [new PromptContextMiddleware({ profile$, today: () => new Date('2026-03-14T12:00:00Z') })],
    });
    await agent.call('1 + 1?');
    profile$.next({ name: 'Grace', language: 'French' });
    await agent.call('Et en français ?');

    const systemPrompts = model.requests.map((r) =>
      r.messages[0]!.role === 'system' ? textOfMsg(r.messages[0]!) : '',
    );
    expect(systemPrompts[0]).toBe(
      'You are a helpful assistant.\n\n## Context\nToday is 2026-03-14.\nThe user is Ada; answer in English.',
    );
    expect(systemPrompts[1]).toBe(systemPrompts[0]); // recomputed for every reasoning step
    expect(systemPrompts[2]).toContain('The user is Grace; answer in French.');
    // The system prompt is sent to the model, never stored in the conversation.
    expect(agent.context.some((m) => m.role === 'system')).toBe(false);
  });

  it('(c) ToolCallLogMiddleware logs each executed tool call with its status and duration', async () => {
    const lines: string[] = [];
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { name: 'add', input: { a: 2, b: 3 } },
          { name: 'fail', input: { reason: 'disk full' } },
          { name: 'add', input: { a: 'two', b: 3 } }, // invalid: answered before onActing
        ],
      },
      { text: '5, and the other call failed.' },
    ]);
    const agent = new Agent({
      model,
      tools: [add, fail],
      middlewares: [new ToolCallLogMiddleware({ log: (l) => lines.push(l) })],
    });
    const events = await collect(agent.reply('Add 2 and 3, then fail'));
    assertReplyGrammar(events);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[assistant\] add \{"a":2,"b":3\} -> success in \d+ ms$/);
    expect(lines[1]).toMatch(/^\[assistant\] fail \{"reason":"disk full"\} -> error in \d+ ms$/);
    // The invalid call still got an error result, from the validation step.
    expect(events.filter(isEvent('TOOL_RESULT_END')).map((e) => e.status)).toEqual(['success', 'error', 'error']);
  });

  it('(c) ToolCallLogMiddleware logs a call cut off by unsubscribing as cancelled', async () => {
    const lines: string[] = [];
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'wait', input: { ms: 5_000 } }] }]);
    const agent = new Agent({
      model,
      tools: [wait],
      middlewares: [new ToolCallLogMiddleware({ log: (l) => lines.push(l) })],
    });
    const sub = agent.reply('wait').subscribe({ error: (err: unknown) => console.error(err) });
    await new Promise((r) => setTimeout(r, 10));
    sub.unsubscribe();
    expect(lines).toEqual([expect.stringMatching(/^\[assistant\] wait \{"ms":5000\} -> cancelled in \d+ ms$/)]);
  });

  it('the first middleware is the outermost layer; events flow outward through every layer', async () => {
    const seen: string[] = [];
    const spy = (name: string): Middleware => ({
      onAgent: (_a, _c, input, next) => {
        seen.push(`${name}:enter`);
        return next(input).pipe(
          tap((e) => e.type === 'MODEL_CALL_END' && seen.push(`${name}:saw MODEL_CALL_END`)),
          finalize(() => seen.push(`${name}:exit`)),
        );
      },
    });
    const agent = new Agent({
      model: new ScriptedChatModel([{ text: 'hi' }]),
      middlewares: [spy('outer'), spy('inner')],
    });
    await agent.call('hello');
    expect(seen).toEqual([
      'outer:enter',
      'inner:enter',
      'inner:saw MODEL_CALL_END',
      'outer:saw MODEL_CALL_END',
      'inner:exit',
      'outer:exit',
    ]);
  });

  it('a short-circuit layer answers without calling next', async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { name: 'delete_file', input: { path: '/etc/hosts' } },
          { name: 'add', input: { a: 1, b: 1 } },
        ],
      },
      { text: 'I may not delete files; 1 + 1 = 2.' },
    ]);
    const agent = new Agent({ model, tools: [deleteFile, add], middlewares: [new ReadOnlyGuard()] });
    const msg = await agent.call('Delete /etc/hosts and add 1 + 1');
    expect(toolResultsOf(msg).map((r) => [r.name, r.status])).toEqual([
      ['delete_file', 'denied'],
      ['add', 'success'],
    ]);
  });

  it('a new input object changes what inner layers and the model see', async () => {
    const model = new ScriptedChatModel([{ text: 'ok' }]);
    const agent = new Agent({
      model,
      modelOptions: { temperature: 0.8, maxTokens: 100 },
      middlewares: [new DeterministicSampling()],
    });
    await agent.call('hi');
    expect(model.requests[0]!.options).toEqual({ temperature: 0, maxTokens: 100 });
  });

  it('calling next again retries the inner layers; each attempt is a well-formed model call', async () => {
    const model = new ScriptedChatModel([
      { text: 'Hel', error: new ModelError('connection reset', { retryable: true, retryAfterMs: 10 }) },
      { text: 'Hello!' },
    ]);
    const agent = new Agent({ model, middlewares: [new RetryOnce()] });
    const events = await collect(agent.reply('hi'));
    expect(assertReplyGrammar(events).finishReason).toBe('completed');
    expect(events.filter(isEvent('MODEL_CALL_END')).map((e) => e.finishReason)).toEqual(['error', 'stop']);
    expect(model.requests).toHaveLength(2);
    // As the code stands, the failed attempt's partial text stays in the reply message.
    expect(textOfMsg(agent.context[1]!)).toBe('HelHello!');
  });

  it('ContextToken holds per-reply data; ctx.state(key) persists with saveState()', async () => {
    const turns = () => [
      {
        toolCalls: [
          { name: 'add', input: { a: 1, b: 1 } },
          { name: 'add', input: { a: 2, b: 2 } },
        ],
      },
      { text: 'done' },
    ];
    const counter = new ToolCallCounter(); // one instance, shared by both agents
    const agent = new Agent({
      model: new ScriptedChatModel([...turns(), ...turns()]),
      tools: [add],
      middlewares: [counter],
    });
    const first = await collect(agent.reply('one'));
    const second = await collect(agent.reply('two'));
    expect(customs(first, 'tool_calls')[0]!.value).toEqual({ reply: 2, lifetime: 2 });
    expect(customs(second, 'tool_calls')[0]!.value).toEqual({ reply: 2, lifetime: 4 });
    expect(agent.saveState().middlewareState).toEqual({ toolCallCounter: 4 });

    const restored = new Agent({
      model: new ScriptedChatModel(turns()),
      tools: [add],
      middlewares: [counter],
      state: JSON.parse(JSON.stringify(agent.saveState())),
    });
    const third = await collect(restored.reply('three'));
    expect(customs(third, 'tool_calls')[0]!.value).toEqual({ reply: 2, lifetime: 6 });
  });
});

// ── docs/events.md ──────────────────────────────────────────────────────────────────────────────

describe('events guide', () => {
  const script = () =>
    new ScriptedChatModel([
      {
        thinking: 'Two additions; they can run in parallel.',
        toolCalls: [
          { name: 'wait', input: { ms: 30 } },
          { name: 'add', input: { a: 1, b: 2 } },
        ],
      },
      { text: ['Both ', 'done.'] },
    ]);

  it('filters and maps events with the guards', async () => {
    const agent = new Agent({ model: script(), tools: [wait, add] });
    const lines = await lastValueFrom(
      agent.reply('go').pipe(
        filter(isEvent('TOOL_CALL_START', 'TOOL_RESULT_END', 'TEXT_BLOCK_DELTA')),
        map((e) => {
          switch (e.type) {
            case 'TOOL_CALL_START':
              return `call ${e.name}`;
            case 'TOOL_RESULT_END':
              return `result ${e.status}`;
            case 'TEXT_BLOCK_DELTA':
              return e.delta;
          }
        }),
        toArray(),
      ),
    );
    // Parallel calls: `add` finishes first on the stream.
    expect(lines).toEqual(['call wait', 'call add', 'result success', 'result success', 'Both ', 'done.']);
  });

  it('folds events into the reply message; parallel results are in call order', async () => {
    const agent = new Agent({ model: script(), tools: [wait, add] });
    const reducer = createReplyReducer({ source: agent.name });
    const opened: string[] = [];
    const events = await collect(
      agent.reply('go').pipe(
        tap((e) => reducer.apply(e)),
        tap((e) => isBlockStart(e) && opened.push(e.type)),
      ),
    );
    expect(opened).toEqual([
      'THINKING_BLOCK_START',
      'TOOL_CALL_START',
      'TOOL_CALL_START',
      'TOOL_RESULT_START',
      'TOOL_RESULT_START',
      'TEXT_BLOCK_START',
    ]);
    const resultOrderOnStream = events.filter(isEvent('TOOL_RESULT_END')).map((e) => e.toolCallId);
    const msg = reducer.message();
    const callIds = msg.content.flatMap((b) => (b.type === 'tool_call' ? [b.id] : []));
    expect(resultOrderOnStream).toEqual([callIds[1], callIds[0]]); // add ended first...
    expect(toolResultsOf(msg).map((r) => r.toolCallId)).toEqual(callIds); // ...but the message keeps call order
    expect(msg.content.map((b) => b.type)).toEqual([
      'thinking',
      'tool_call',
      'tool_call',
      'tool_result',
      'tool_result',
      'text',
    ]);
    expect(msg.content).toEqual(agent.context[1]!.content);
  });

  it('toMsg() folds a whole reply', async () => {
    const agent = new Agent({ model: script(), tools: [wait, add] });
    const msg = await lastValueFrom(agent.reply('go').pipe(toMsg()));
    expect(msg.role).toBe('assistant');
    expect(textOfMsg(msg)).toBe('Both done.');
    expect(toolResultsOf(msg).map((r) => r.output)).toEqual([
      [{ type: 'text', text: 'waited 30 ms' }],
      [{ type: 'text', text: '3' }],
    ]);
  });

  it('renders text with scan, waits for REPLY_END, shares one reply between consumers', async () => {
    // delayMs: like a real model, events arrive asynchronously, after both consumers subscribed.
    const model = new ScriptedChatModel([{ text: ['Once ', 'upon ', 'a time.'] }, { text: 'hi' }, { text: 'shared' }], {
      delayMs: 1,
    });
    const agent = new Agent({ model });
    const texts = await lastValueFrom(
      agent.reply('Tell me a story').pipe(
        filter(isEvent('TEXT_BLOCK_DELTA')),
        scan((text, e) => text + e.delta, ''),
        toArray(),
      ),
    );
    expect(texts).toEqual(['Once ', 'Once upon ', 'Once upon a time.']);

    const end = await firstValueFrom(agent.reply('hi').pipe(filter(isEvent('REPLY_END'))));
    expect(end.finishReason).toBe('completed');

    const reply$ = agent.reply('go').pipe(share());
    const deltas: string[] = [];
    const done = new Promise<string>((resolve) => {
      reply$
        .pipe(filter(isEvent('REPLY_END')))
        .subscribe({ next: (e) => resolve(e.finishReason), error: (err: unknown) => console.error(err) });
    });
    reply$
      .pipe(filter(isEvent('TEXT_BLOCK_DELTA')))
      .subscribe({ next: (e) => deltas.push(e.delta), error: (err: unknown) => console.error(err) });
    expect(await done).toBe('completed');
    expect(deltas).toEqual(['shared']);
    expect(model.requests).toHaveLength(3); // one request per reply, the shared one included
  });

  it('events survive JSON and are recognised by isAgentEvent', async () => {
    const agent = new Agent({ model: script(), tools: [wait, add] });
    const events = await collect(agent.reply('go'));
    const wire = events.map((e) => JSON.stringify(e));
    const back = wire.map((line) => JSON.parse(line) as unknown);
    expect(back.every(isAgentEvent)).toBe(true);
    expect(back).toEqual(events);
    expect(isAgentEvent({ type: 'TEXT_DELTA', id: 'x', replyId: 'r', createdAt: 1, source: 's' })).toBe(false);
  });

  it('streams tool progress as TOOL_PROGRESS and the output as deltas; TOOL_RESULT_END carries the full output', async () => {
    const search = defineTool({
      name: 'search',
      description: 'Searches the docs',
      input: z.object({ query: z.string() }),
      readOnly: true,
      execute: ({ query }, toolCtx) => {
        toolCtx.emit(`searching for "${query}"...`);
        return of('result 1; ', 'result 2');
      },
    });
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'search', input: { query: 'retry' } }] },
      { text: 'Found two.' },
    ]);
    const agent = new Agent({ model, tools: [search] });
    const events = await collect(agent.reply('search'));
    expect(events.filter(isEvent('TOOL_PROGRESS')).map((e) => e.message)).toEqual(['searching for "retry"...']);
    expect(events.filter(isEvent('TOOL_RESULT_DELTA')).map((e) => e.delta)).toEqual(['result 1; ', 'result 2']);
    expect(events.find(isEvent('TOOL_RESULT_END'))!.output).toEqual([{ type: 'text', text: 'result 1; result 2' }]);
  });
});
