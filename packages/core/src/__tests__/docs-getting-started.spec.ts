/**
 * The code of docs/getting-started.md, run as tests. Every `ts` block of the page is a file in
 * ./docs/getting-started/ that the page shows through a `<!-- snippet: ... -->` marker (checked by
 * scripts/doc-snippets.spec.ts), so what runs here is what the reader copies. Each test checks
 * what a reader would notice if the example stopped working.
 *
 * Blocks of the page that are not run here, and why:
 * - the two `sh` blocks of "Install" and `npx tsc && node dist/agent.js`: shell commands
 *   (scripts/consumer-install.spec.ts runs them: it packs the tarballs, installs them with npm and
 *   builds and runs `src/agent.ts` with the page's `tsconfig.json`);
 * - `tsconfig.json`: configuration (used by scripts/consumer-install.spec.ts);
 * - the `text output` block: the output of `src/agent.ts`, which the first test compares with it.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastValueFrom, map, timer, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent, type AgentEvent, defineTool, ModelError, textOfMsg, toolResultsOf } from '../index.js';
import { assertConsistentConversation, ScriptedChatModel } from '../testing/index.js';
import { leadWithCalculator } from './docs/getting-started/as-tool.js';
import { sayHi } from './docs/getting-started/call-error.js';
import { askForTheWeather } from './docs/getting-started/call.js';
import { replyWithCancel } from './docs/getting-started/cancel.js';
import { tellAStory } from './docs/getting-started/interrupt.js';
import { keepAdding } from './docs/getting-started/max-iters.js';
import { twoReplies } from './docs/getting-started/reply-queue.js';
import { alwaysUseTools } from './docs/getting-started/reset-tool-choice.js';
import { weatherOrApology } from './docs/getting-started/retry-failed-reply.js';
import { rememberAda } from './docs/getting-started/save-state.js';
import { weatherReport } from './docs/getting-started/structured-output.js';
import { weatherOverHttp } from './docs/getting-started/test-server.js';
import { forceAddFirst } from './docs/getting-started/tool-choice.js';

const PAGE = join(__dirname, '..', '..', '..', '..', 'docs', 'getting-started.md');

/** Resolves once `done()` holds (polling), for examples that subscribe and print instead of returning. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 5));
}

/** Every console.log line while `run` goes on, until `done(lines)` holds. */
async function logged(run: () => unknown, done: (lines: string[]) => boolean): Promise<string[]> {
  const lines: string[] = [];
  const spy = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    lines.push(args.map(String).join(' '));
  });
  try {
    await run();
    await until(() => done(lines));
    return lines;
  } finally {
    spy.mockRestore();
  }
}

// What the examples that take a tool or a model get: the page defines them in the sections above.
const getWeather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  input: z.object({ city: z.string() }),
  readOnly: true,
  execute: ({ city }) => ({ city, tempC: 21, sky: 'sunny' }),
});
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
const weatherTurns = () => [
  { toolCalls: [{ name: 'get_weather', input: { city: 'Paris' } }] },
  { text: ['It is 21 °C ', 'and sunny in Paris.'] },
];

describe('docs/getting-started.md', () => {
  it('src/agent.ts prints what the page shows', async () => {
    const shown = /```text output\n([\s\S]*?)```/.exec(readFileSync(PAGE, 'utf8'))![1]!;
    let out = '';
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out += String(chunk);
      return true;
    });
    try {
      await import('./docs/getting-started/agent.js');
      await until(() => out.includes('('));
    } finally {
      write.mockRestore();
    }
    expect(out).toBe(shown);
  });

  it('throwOnErrorEnd() lets retry and catchError handle a failed reply', async () => {
    const down = () => ({ error: new ModelError('upstream unavailable', { status: 503, retryable: true }) });
    const failing = new Agent({ model: new ScriptedChatModel([down(), down()]) });
    expect(await lastValueFrom(weatherOrApology(failing))).toBe('sorry: upstream unavailable');
    // The failed reply stays in the conversation: the question was asked twice.
    expect(failing.context.filter((m) => m.role === 'user').map(textOfMsg)).toEqual([
      'What is the weather in Paris?',
      'What is the weather in Paris?',
    ]);

    const flaky = new Agent({ tools: [getWeather], model: new ScriptedChatModel([down(), ...weatherTurns()]) });
    const events = await lastValueFrom(weatherOrApology(flaky).pipe(toArray()));
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
  });

  it('call() resolves with the reply message and its metadata', async () => {
    const agent = new Agent({ model: new ScriptedChatModel(weatherTurns()), tools: [getWeather] });
    const { text, blocks, metadata } = await askForTheWeather(agent);
    expect(text).toBe('It is 21 °C and sunny in Paris.');
    expect(blocks).toEqual(['tool_call', 'tool_result', 'text']);
    expect(metadata).toMatchObject({ finishReason: 'completed', usage: { inputTokens: 20 } });
    expect(agent.context.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('call() rejects with an AgentError that tells the failure', async () => {
    const model = new ScriptedChatModel([
      { error: new ModelError('upstream unavailable', { status: 503, retryable: true }) },
    ]);
    const error = jest.spyOn(console, 'error').mockImplementation(() => {});
    await sayHi(new Agent({ model }));
    expect(error.mock.calls).toEqual([['ModelError', 503, true]]);
  });

  it('interrupt() ends the running reply gracefully; call() still resolves with the text so far', async () => {
    const { finishReason, text } = await tellAStory();
    expect(finishReason).toBe('interrupted');
    expect('Once upon a time there was...'.startsWith(text)).toBe(true);
    expect(text).not.toContain('was...');
  });

  it('unsubscribing cancels the running tool, keeping the conversation consistent', async () => {
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'wait', input: { ms: 5_000 } }] }, { text: 'never' }]);
    const agent = new Agent({ model, tools: [wait] });
    const seen: string[] = [];
    const cancelButton = { onclick: null } as unknown as HTMLButtonElement;
    replyWithCancel(agent, (e: AgentEvent) => seen.push(e.type), cancelButton);
    await until(() => seen.includes('TOOL_RESULT_START'));
    (cancelButton.onclick as () => void)();
    expect(seen).not.toContain('REPLY_END');
    expect(agent.busy).toBe(false);
    expect(toolResultsOf(agent.context.at(-1)!).map((r) => r.status)).toEqual(['interrupted']);
    assertConsistentConversation(agent.context);
  });

  it('queues a second reply behind the running one', async () => {
    const lines = await logged(twoReplies, (l) => l.length === 6);
    expect(lines).toEqual(['REPLY_START', 'first answer', 'REPLY_END', 'REPLY_START', 'second answer', 'REPLY_END']);
  });

  it('send(): a message typed while the tool runs joins the next model request', async () => {
    const lines = await logged(
      () => import('./docs/getting-started/send.js'),
      (l) => l.includes('REPLY_END'),
    );
    expect(lines).toEqual([
      'MODEL_CALL_START',
      'TOOL_RESULT_END',
      'HINT_BLOCK user: Also give the French word.',
      'MODEL_CALL_START',
      'REPLY_END',
    ]);
  });

  it('send() while no reply runs: the message joins the next reply after its own input', async () => {
    const model = new ScriptedChatModel([{ text: 'Bonjour !' }]);
    const agent = new Agent({ model });
    agent.send('Answer in French.');
    expect(agent.queued.map(textOfMsg)).toEqual(['Answer in French.']);
    await agent.call('Say hello');
    expect(agent.queued).toEqual([]);
    const [input, reply] = model.requests[0]!.messages;
    expect(textOfMsg(input!)).toBe('Say hello');
    expect(reply!.content).toMatchObject([{ type: 'hint', source: 'user', text: 'Answer in French.' }]);
  });

  it('{output} resolves call() with the parsed value and puts it on REPLY_END', async () => {
    const answer = (city: string, tempC: number) => ({
      toolCalls: [{ name: 'final_output', input: { city, tempC, conditions: 'sunny' } }],
    });
    const agent = new Agent({ model: new ScriptedChatModel([answer('Paris', 21), answer('Oslo', -3)]) });
    const rendered: unknown[] = [];
    await weatherReport(agent, (w) => rendered.push(w));
    await until(() => rendered.length === 2);
    expect(rendered).toEqual([
      { city: 'Paris', tempC: 21, conditions: 'sunny' },
      { city: 'Oslo', tempC: -3, conditions: 'sunny' },
    ]);
  });

  it('asTool(): the inner reply streams inside the outer tool result', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'calculator', input: { message: 'add 2 and 3' } }] },
      { toolCalls: [{ name: 'add', input: { a: 2, b: 3 } }] },
      { text: '5' },
      { text: '2 + 3 = 5.' },
    ]);
    const lines = await logged(
      () => leadWithCalculator(model, add),
      (l) => l.includes('lead REPLY_END'),
    );
    const at = (line: string) => lines.indexOf(line);
    expect(lines[0]).toBe('lead REPLY_START');
    expect(at('lead TOOL_RESULT_START')).toBeLessThan(at('calculator REPLY_START'));
    expect(at('calculator REPLY_START')).toBeLessThan(at('calculator TOOL_RESULT_END'));
    expect(at('calculator TOOL_RESULT_END')).toBeLessThan(at('calculator REPLY_END'));
    expect(at('calculator REPLY_END')).toBeLessThan(lines.lastIndexOf('lead TOOL_RESULT_END'));
    expect(lines.at(-1)).toBe('lead REPLY_END');
  });

  it('maxIters bounds the tool steps, then one final call without tools ends the reply', async () => {
    expect(await keepAdding(add)).toEqual({ toolChoices: ['auto', 'auto', 'none'], finishReason: 'max_iters' });
  });

  it('a forced tool choice applies to the first reasoning step of each reply, then resets to auto', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] },
      { text: '3' },
      { toolCalls: [{ name: 'add', input: { a: 2, b: 2 } }] },
      { text: '4' },
    ]);
    expect(await forceAddFirst(model, add)).toEqual([{ name: 'add' }, 'auto', { name: 'add' }, 'auto']);
  });

  it('resetToolChoice: false forces every step until maxIters', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] },
      { toolCalls: [{ name: 'add', input: { a: 3, b: 3 } }] },
      { text: 'done' },
    ]);
    const msg = await alwaysUseTools(model, add).call('go');
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['required', 'required', 'none']);
    expect(msg.metadata?.['finishReason']).toBe('max_iters');
  });

  it('saveState() written to a file and new Agent({ state }) carry the conversation over', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rxscope-docs-'));
    try {
      const model = new ScriptedChatModel([{ text: 'Nice to meet you, Ada.' }, { text: 'You are Ada.' }]);
      await rememberAda(model, getWeather, join(dir, 'session.json'));
      expect(model.requests[1]!.messages.map((m) => textOfMsg(m))).toEqual([
        'My name is Ada.',
        'Nice to meet you, Ada.',
        'What is my name?',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the OpenAI-compatible test server plays the same turns over HTTP', async () => {
    const { text, toolMessage } = await weatherOverHttp(getWeather);
    expect(text).toBe('It is 21 °C and sunny in Paris.');
    expect(toolMessage).toMatchObject({ role: 'tool', content: '{"city":"Paris","tempC":21,"sky":"sunny"}' });
  });
});
