/**
 * The code of docs/middleware.md, run as tests: every middleware class and usage example below is
 * a file in ./docs/ that the page shows through a `<!-- snippet: ... -->` marker (checked by
 * scripts/doc-snippets.spec.ts), and each test checks what a reader of the guide would notice if
 * the example stopped working. The page's "Testing a middleware" example is itself a spec
 * (./docs/timing-middleware.spec.ts), run as is.
 *
 * Blocks of the page that are not run, and why:
 * - `interface Middleware` (and `type Next`): a type signature (the real one is
 *   src/middleware/middleware.ts);
 * - `new Agent({ model, tools, middlewares: [...] })`: a one-line registration of two middlewares
 *   that the tests below register the same way;
 * - the two diagrams (the five hooks, the timing events of one reply): listings, not code;
 * - the sketches `quota`, `compaction`, `retrieval` and the blocks beside them: they call
 *   functions the page leaves to the reader (`quotaLeft`, `summarise`, `search`...); the hooks
 *   they use are tested in src/middleware/ and src/agent/;
 * - the import list of the worked examples: the example files carry their own imports.
 */
import { BehaviorSubject, lastValueFrom, map, type Observable, timer, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent, type AgentEvent, defineTool, isEvent, ModelError, textOfMsg, toolResultsOf } from '../index.js';
import { assertReplyGrammar, ScriptedChatModel } from '../testing/index.js';
import { layeredAgent } from './docs/layer-order.js';
import { PromptContextMiddleware, type UserProfile } from './docs/prompt-context-middleware.js';
import { askInTwoLanguages } from './docs/prompt-context-usage.js';
import { addThenFail } from './docs/tool-call-log-usage.js';
import { TimingMiddleware } from './docs/timing-middleware.js';
import { ToolCallLogMiddleware } from './docs/tool-call-log-middleware.js';
import { DeterministicSampling } from './docs/deterministic-sampling.js';
import { ReadOnlyGuard } from './docs/read-only-guard.js';
import { RetryOnce } from './docs/retry-once.js';
import { ToolCallCounter } from './docs/tool-call-counter.js';
import { abortWith } from './docs/abort-with.js';

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
    const model = new ScriptedChatModel([{ text: '2' }, { text: 'Deux.' }]);
    const before = new Date().toISOString().slice(0, 10);
    await askInTwoLanguages(model);
    const after = new Date().toISOString().slice(0, 10);
    const systemPrompts = model.requests.map((r) =>
      r.messages[0]!.role === 'system' ? textOfMsg(r.messages[0]!) : '',
    );
    expect([before, after]).toContain(/Today is (\S+)\./.exec(systemPrompts[0]!)?.[1]);
    expect(systemPrompts[0]).toMatch(
      /^You are a helpful assistant\.\n\n## Context\nToday is \S+\.\nThe user is Ada; answer in English\.$/,
    );
    expect(systemPrompts[1]).toContain('The user is Grace; answer in French.');
    // The system prompt is sent to the model, never stored in the conversation.
    expect(model.requests[1]!.messages.slice(1).some((m) => m.role === 'system')).toBe(false);
  });

  it('(b) PromptContextMiddleware recomputes the prompt at every reasoning step', async () => {
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] }, { text: '2' }]);
    const agent = new Agent({
      sysPrompt: 'You are a helpful assistant.',
      model,
      tools: [add],
      middlewares: [
        new PromptContextMiddleware({
          profile$: new BehaviorSubject<UserProfile>({ name: 'Ada', language: 'English' }),
          today: () => new Date('2026-03-14T12:00:00Z'),
        }),
      ],
    });
    await agent.call('1 + 1?');
    const systemPrompts = model.requests.map((r) => textOfMsg(r.messages[0]!));
    expect(systemPrompts).toEqual([
      'You are a helpful assistant.\n\n## Context\nToday is 2026-03-14.\nThe user is Ada; answer in English.',
      'You are a helpful assistant.\n\n## Context\nToday is 2026-03-14.\nThe user is Ada; answer in English.',
    ]);
    expect(agent.context.some((m) => m.role === 'system')).toBe(false);
  });

  it('(c) ToolCallLogMiddleware logs to console.info by default, one line per tool call', async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { name: 'add', input: { a: 2, b: 3 } },
          { name: 'fail', input: { reason: 'disk full' } },
        ],
      },
      { text: '5, and the other call failed.' },
    ]);
    const info = jest.spyOn(console, 'info').mockImplementation(() => {});
    await addThenFail(model, add, fail);
    expect(info.mock.calls).toEqual([
      [expect.stringMatching(/^\[assistant\] add \{"a":2,"b":3\} -> success in \d+ ms$/)],
      [expect.stringMatching(/^\[assistant\] fail \{"reason":"disk full"\} -> error in \d+ ms$/)],
    ]);
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
    const agent = layeredAgent(new ScriptedChatModel([{ text: 'hi' }]), seen);
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

describe('Staying cheap: abortWith', () => {
  it("aborts the controller with the signal's reason, and not once unlinked", () => {
    const reply = new AbortController();
    const call = new AbortController();
    abortWith(reply.signal, call);
    reply.abort(new Error('stop'));
    expect(call.signal.aborted).toBe(true);
    expect(String(call.signal.reason)).toBe('Error: stop');

    const later = new AbortController();
    const other = new AbortController();
    const unlink = abortWith(later.signal, other);
    unlink();
    later.abort();
    expect(other.signal.aborted).toBe(false);
  });
});
