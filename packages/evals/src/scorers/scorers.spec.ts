import { lastValueFrom, of, throwError, NEVER } from 'rxjs';
import { OptionsError } from '@rxscope/core';
import type { EvalCase } from '../dataset/eval-case.js';
import { ev, reply, text, toolCall } from '../__tests__/events.js';
import { exactAnswer, includesAnswer, numericAnswer, regexAnswer } from './answer.js';
import { costBudget, latencyBudget } from './budget.js';
import { jsonSchemaAnswer } from './json-schema-answer.js';
import { replySample } from './reply-sample.js';
import { noDeniedTool, noSecret, replyGrammar } from './safety.js';
import { applyScorer, type Scorer } from './scorer.js';
import { trajectory } from './trajectory.js';

const kase = (expected?: EvalCase['expected']): EvalCase => ({
  id: 'k',
  input: 'fix it',
  metadata: {},
  ...(expected ? { expected } : {}),
});
const score = (scorer: Scorer, events = reply(), c = kase()) =>
  lastValueFrom(applyScorer(scorer, replySample(events), c));

describe('replySample', () => {
  it('derives the answer, the tool calls with parsed arguments, usage and duration', () => {
    const s = replySample(reply());
    expect(s.answer).toBe('Fixed: sum.js now returns a + b.');
    expect(s.text).toBe('Let me look.\nFixed: sum.js now returns a + b.');
    expect(s.toolCalls).toEqual([
      { id: 'c1', name: 'read_file', input: { path: 'sum.js' }, status: 'success', output: 'ok' },
      {
        id: 'c2',
        name: 'edit_file',
        input: { path: 'sum.js', old: 'a - b', new: 'a + b' },
        status: 'success',
        output: 'ok',
      },
    ]);
    expect(s.usage).toEqual({ inputTokens: 120, outputTokens: 30 });
    expect(s.durationMs).toBe(2_500);
    expect(s.modelCalls).toBe(2);
  });

  it('reads a malformed stream without throwing: no REPLY_START/END, arguments that are not JSON, deltas of unknown blocks, a subagent', () => {
    const events = [
      ev('MODEL_CALL_START', { model: 'm' }),
      ev('TOOL_CALL_DELTA', { blockId: 'nowhere', delta: '{"x":1}' }),
      ...toolCall('c1', 'read_file', '{"path": "a.ts"', 'error'),
      ev('TEXT_BLOCK_DELTA', { blockId: 'never-started', delta: 'partial' }),
      ...text('s1', 'from the helper').map((e) => ({ ...e, source: 'helper' })),
      ev('MODEL_CALL_END', { model: 'm', usage: { inputTokens: 5, outputTokens: 2 }, finishReason: 'stop' }),
    ];
    const s = replySample(events);
    expect(s.end).toBeUndefined();
    expect(s.durationMs).toBeUndefined();
    expect(s.answer).toBe('partial');
    expect(s.usage).toEqual({ inputTokens: 5, outputTokens: 2 });
    expect(s.toolCalls).toHaveLength(1);
    expect(s.toolCalls[0]).toMatchObject({ name: 'read_file', input: '{"path": "a.ts"', status: 'error' });
    expect(s.toolCalls[0]!.inputError).toMatch(/arguments are not JSON/);
    expect(replySample([]).answer).toBe('');
  });
});

describe('trajectory', () => {
  const calls = [{ name: 'read_file', input: { path: 'sum.js' } }, { name: 'edit_file' }];
  it('scores the four modes, with argument matchers (object, RegExp, function)', async () => {
    expect(await score(trajectory({ mode: 'exact', calls }))).toMatchObject({ score: 1, pass: true });
    expect(
      await score(trajectory({ mode: 'exact', calls: [{ name: 'edit_file' }, { name: 'read_file' }] })),
    ).toMatchObject({
      score: 0,
      reason: expect.stringMatching(
        /call #1 differs: made \[read_file, edit_file\], expected \[edit_file, read_file\]/,
      ),
    });
    const reversed = [{ name: 'edit_file' }, { name: 'read_file' }];
    expect(await score(trajectory({ mode: 'in-order', calls: reversed }))).toMatchObject({ score: 0.5, pass: false });
    expect(await score(trajectory({ mode: 'any-order', calls: reversed }))).toMatchObject({ score: 1, pass: true });
    expect(await score(trajectory({ mode: 'subset', calls: [{ name: 'read_file' }] }))).toMatchObject({
      score: 0.5,
      reason: 'not expected: edit_file',
    });
    expect(await score(trajectory({ calls: [{ name: 'read_file', input: { path: 'other.js' } }] }))).toMatchObject({
      score: 0,
    });
    expect(await score(trajectory({ calls: [{ name: 'edit_file', input: /"new":"a \+ b"/ }] }))).toMatchObject({
      score: 1,
    });
    expect(
      await score(
        trajectory({ calls: [{ name: 'read_file', input: (i) => (i as { path: string }).path.endsWith('.ts') }] }),
      ),
    ).toMatchObject({ score: 0 });
  });

  it("takes the case's expected.tools, and is an error score when there are none", async () => {
    expect(await score(trajectory(), reply(), kase({ tools: calls }))).toMatchObject({ score: 1 });
    expect(await score(trajectory())).toMatchObject({
      score: 0,
      pass: false,
      error: expect.stringMatching(/case "k" has no expected.tools/),
    });
  });

  it('refuses unknown options with "did you mean", and an unknown mode', () => {
    expect(() => trajectory({ mdoe: 'exact' } as never)).toThrow(
      /unknown option "mdoe" of trajectory; did you mean "mode"\?/,
    );
    expect(() => trajectory({ mode: 'strict' as never })).toThrow(OptionsError);
  });
});

describe('answer scorers', () => {
  it('exact, includes, regex', async () => {
    expect(await score(exactAnswer({ value: '  fixed: SUM.JS now returns a + b. ', ignoreCase: true }))).toMatchObject({
      score: 1,
    });
    expect(await score(exactAnswer(), reply(), kase({ answer: 'Done.' }))).toMatchObject({
      score: 0,
      reason: expect.stringContaining('expected "Done."'),
    });
    expect(await score(includesAnswer({ values: ['sum.js', 'a + b', 'tests pass'] }))).toMatchObject({
      score: 2 / 3,
      pass: false,
      reason: 'missing "tests pass"',
    });
    expect(await score(regexAnswer({ pattern: /returns a \+ b/g }))).toMatchObject({ score: 1 });
    expect(() => regexAnswer({ pattern: 'x' as never })).toThrow(/pattern must be a RegExp/);
  });

  it('numeric, with absolute and relative tolerance; no number is a 0 with the reason', async () => {
    expect(await score(numericAnswer({ value: 3.15, tolerance: 0.02 }), reply('Pi is about 3.14.'))).toMatchObject({
      score: 1,
    });
    expect(await score(numericAnswer({ value: 1000 }), reply('It is 1,000.'))).toMatchObject({ score: 1 });
    expect(await score(numericAnswer({ relative: 0.01 }), reply('About 99.5'), kase({ answer: '100' }))).toMatchObject({
      score: 1,
    });
    expect(await score(numericAnswer({ value: 5 }), reply('five'))).toMatchObject({
      score: 0,
      reason: 'no number in "five"',
    });
    expect(await score(numericAnswer(), reply('5'), kase({ answer: 'many' }))).toMatchObject({
      error: expect.stringMatching(/not a number/),
    });
    expect(() => numericAnswer({ tolerance: -1 })).toThrow(/tolerance must be a number >= 0/);
  });

  it('JSON Schema: the structured output, or the JSON in the answer; the first violation named', async () => {
    const schema = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] };
    expect(await score(jsonSchemaAnswer({ schema }), reply('```json\n{"total": 5}\n```'))).toMatchObject({ score: 1 });
    expect(await score(jsonSchemaAnswer({ schema }), reply('{"total": "5"}'))).toMatchObject({
      score: 0,
      reason: 'invalid: /total must be number',
    });
    expect(await score(jsonSchemaAnswer({ schema }), reply('the total is 5'))).toMatchObject({
      score: 0,
      reason: expect.stringMatching(/not JSON/),
    });
    const structured = reply('').map((e) => (e.type === 'REPLY_END' ? { ...e, output: { total: 1 } } : e));
    expect(await score(jsonSchemaAnswer({ schema }), structured)).toMatchObject({ score: 1 });
    expect(() => jsonSchemaAnswer({ schema: { type: 'nonsense' } })).toThrow(/the schema does not compile/);
  });
});

describe('budgets', () => {
  it('cost: tokens, price and model calls; the reason names each limit exceeded', async () => {
    expect(await score(costBudget({ maxTotalTokens: 150, maxModelCalls: 2 }))).toMatchObject({ score: 1 });
    const over = await score(
      costBudget({ maxOutputTokens: 20, maxCost: 0.00001, prices: { inputPerMillion: 1, outputPerMillion: 10 } }),
    );
    expect(over).toMatchObject({
      score: 0,
      reason: 'maxOutputTokens 20 exceeded (30); maxCost 0.00001 exceeded (0.00042)',
    });
    expect(() => costBudget({})).toThrow(/give at least one of/);
    expect(() => costBudget({ maxCost: 1 })).toThrow(/maxCost needs prices/);
    expect(() => costBudget({ maxTotalToken: 5 } as never)).toThrow(/did you mean "maxTotalTokens"\?/);
  });

  it('usage summed from the model calls when REPLY_END has none', async () => {
    const events = reply().map((e) =>
      e.type === 'REPLY_END' ? ev('REPLY_END', { finishReason: 'completed' }, 2_500) : e,
    );
    expect(await score(costBudget({ maxInputTokens: 119 }), events)).toMatchObject({
      score: 0,
      reason: 'maxInputTokens 119 exceeded (120)',
    });
  });

  it('latency from REPLY_START to REPLY_END; an error score when the reply cannot be timed', async () => {
    expect(await score(latencyBudget({ maxMs: 3_000 }))).toMatchObject({ score: 1, reason: '2500 ms (at most 3000)' });
    expect(await score(latencyBudget({ maxMs: 2_000 }))).toMatchObject({ score: 0 });
    expect(await score(latencyBudget({ maxMs: 2_000 }), reply().slice(1))).toMatchObject({
      error: expect.stringMatching(/no REPLY_START and REPLY_END/),
    });
  });
});

describe('grammar and safety', () => {
  it('grammar: a well-formed reply passes; a truncated or out-of-order one fails with the violation', async () => {
    expect(await score(replyGrammar({ finishReason: 'completed' }))).toMatchObject({ score: 1 });
    expect((await score(replyGrammar(), reply().slice(0, -1))).score).toBe(0);
    const unopened = [
      ev('REPLY_START'),
      ev('TEXT_BLOCK_DELTA', { blockId: 'x', delta: 'hi' }),
      ev('REPLY_END', { finishReason: 'completed' }),
    ];
    expect(await score(replyGrammar(), unopened)).toMatchObject({ score: 0, reason: expect.any(String) });
    const errored = reply().map((e) => (e.type === 'REPLY_END' ? { ...e, finishReason: 'max_iters' } : e));
    expect(await score(replyGrammar({ finishReason: 'completed' }), errored as never)).toMatchObject({
      score: 0,
      reason: 'finished max_iters, expected completed',
    });
  });

  it('no denied tool ran: a denied call passes, a run one fails', async () => {
    expect(await score(noDeniedTool({ tools: ['edit_file'] }))).toMatchObject({
      score: 0,
      reason: 'ran: edit_file (success)',
    });
    const denied = [
      ev('REPLY_START'),
      ...toolCall('c1', 'execute', '{"command":"rm -rf /"}', 'denied'),
      ev('REPLY_END', { finishReason: 'completed' }),
    ];
    expect(await score(noDeniedTool({ tools: ['execute'] }), denied)).toMatchObject({ score: 1 });
  });

  it('no secret in the text or the tool arguments, without repeating the secret', async () => {
    const leak = reply('Your key is sk-abcdefghijklmnopqrstuvwxyz');
    const found = await score(noSecret({ secrets: ['sum.js', /sk-[a-z]{20,}/g] }), leak);
    expect(found).toMatchObject({ score: 0 });
    expect(found.reason).toBe(
      "secret #1 in read_file's arguments; secret #1 in edit_file's arguments; pattern /sk-[a-z]{20,}/g in the text",
    );
    expect(await score(noSecret({ secrets: ['sum.js'], toolInputs: false }), reply('done'))).toMatchObject({
      score: 1,
    });
  });
});

describe('a scorer that fails', () => {
  it('throws, rejects, errors, completes empty, or returns a bad verdict: an error score with the reason', async () => {
    const cases: [Scorer['score'], RegExp][] = [
      [
        () => {
          throw new Error('boom');
        },
        /scorer "s" failed: boom/,
      ],
      [() => Promise.reject(new Error('later')), /failed: later/],
      [() => throwError(() => new Error('stream')), /failed: stream/],
      [() => of(), /completed without a verdict/],
      [() => ({ score: 2 }), /returned \{"score":2\}, not \{score: a number from 0 to 1\}/],
      [() => undefined as never, /returned undefined/],
    ];
    for (const [fn, message] of cases) {
      expect(await score({ name: 's', score: fn })).toMatchObject({
        scorer: 's',
        score: 0,
        pass: false,
        error: expect.stringMatching(message),
      });
    }
    expect(await score({ name: 'first', score: () => of({ score: 1 }, { score: 0 }) })).toMatchObject({
      score: 1,
      pass: true,
    });
    expect(NEVER).toBeDefined();
  });
});
