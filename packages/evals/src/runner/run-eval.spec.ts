import { lastValueFrom, Observable, type Subscription, toArray } from 'rxjs';
import { Agent, type ChatModel, defineTool, type ModelEvent } from '@rxscope/core';
import { z } from 'zod';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { type Cassette, RecordingMiddleware, ReplayChatModel } from '@rxscope/middleware-builtin/recording';
import type { EvalCase } from '../dataset/eval-case.js';
import { casesFromCassette } from '../dataset/from-recording.js';
import { parseJsonlDataset } from '../dataset/jsonl.js';
import { exactAnswer, numericAnswer } from '../scorers/answer.js';
import { compareRuns } from './compare.js';
import { formatComparison, formatSummary } from './format.js';
import { checkThresholds } from './gate.js';
import { type EvalEvent, type EvalRun, runEval, type RunEvalOptions } from './run-eval.js';

const cases = (n: number): EvalCase[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `c${i + 1}`,
    input: `${i} + 1?`,
    expected: { answer: String(i + 1) },
    metadata: {},
  }));

/** A model answering `<n + 1>` after `delayMs`, counting the calls in flight. */
function slowAdder(delayMs: number, flight: { now: number; max: number }): ChatModel {
  return {
    modelName: 'adder',
    provider: 'test',
    stream: (request) =>
      new Observable<ModelEvent>((sub) => {
        flight.now++;
        flight.max = Math.max(flight.max, flight.now);
        const q = JSON.stringify(request.messages.at(-1)!.content);
        const t = setTimeout(() => {
          const n = Number(/(\d+) \+ 1/.exec(q)![1]) + 1;
          sub.next({ type: 'TEXT_BLOCK_START', blockId: 'b' });
          sub.next({ type: 'TEXT_BLOCK_DELTA', blockId: 'b', delta: String(n) });
          sub.next({ type: 'TEXT_BLOCK_END', blockId: 'b' });
          sub.next({
            type: 'MODEL_CALL_END',
            model: 'adder',
            finishReason: 'stop',
            usage: { inputTokens: 3, outputTokens: 1 },
          });
          sub.complete();
        }, delayMs);
        return () => {
          flight.now--;
          clearTimeout(t);
        };
      }),
  };
}

const runAll = async (options: RunEvalOptions) => {
  const events = await lastValueFrom(runEval(options).pipe(toArray()));
  const done = events.at(-1)! as Extract<EvalEvent, { type: 'done' }>;
  return { events, run: done.run };
};

describe('runEval', () => {
  it('answers every case with a fresh agent, at most `concurrency` at once, and summarises', async () => {
    const flight = { now: 0, max: 0 };
    const built: string[] = [];
    const { events, run } = await runAll({
      dataset: cases(7),
      agent: (c) => {
        built.push(c.id);
        return new Agent({ model: slowAdder(15, flight) });
      },
      scorers: [exactAnswer()],
      concurrency: 3,
      name: 'adder',
    });
    expect(flight.max).toBe(3);
    expect(built.sort()).toEqual(
      cases(7)
        .map((c) => c.id)
        .sort(),
    );
    expect(events.filter((e) => e.type === 'case').map((e) => (e as { done: number }).done)).toEqual([
      1, 2, 3, 4, 5, 6, 7,
    ]);
    expect(run.results.map((r) => r.caseId)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7']);
    expect(run.results[0]).toMatchObject({
      answer: '1',
      finishReason: 'completed',
      usage: { inputTokens: 3, outputTokens: 1 },
    });
    expect(run.summary.scorers).toEqual([{ scorer: 'answer:exact', n: 7, mean: 1, passRate: 1, errors: 0, sd: 0 }]);
    expect(formatSummary(run)).toContain('answer:exact  1.00  100%  0');
  });

  it('a scorer that throws gives error scores for the cases it fails on; the run goes on', async () => {
    const picky = {
      name: 'picky',
      score: (s: { answer: string }) => {
        if (s.answer === '2') throw new Error('cannot score 2');
        return { score: 1 };
      },
    };
    const { run } = await runAll({
      dataset: cases(3),
      agent: () => new Agent({ model: slowAdder(1, { now: 0, max: 0 }) }),
      scorers: [picky, exactAnswer()],
    });
    expect(run.results.map((r) => r.scores.map((s) => s.error ?? s.score))).toEqual([
      [1, 1],
      ['scorer "picky" failed: cannot score 2', 1],
      [1, 1],
    ]);
    expect(run.summary.scorers[0]).toMatchObject({ scorer: 'picky', errors: 1, passRate: 2 / 3 });
  });

  it('repeats each case and gives a confidence interval; a flaky agent gets a wide one', async () => {
    let call = 0;
    const { run } = await runAll({
      dataset: cases(2),
      agent: () => new Agent({ model: new ScriptedChatModel([{ text: call++ % 2 ? 'wrong' : '1' }]) }),
      scorers: [exactAnswer({ value: '1' })],
      repeat: 4,
      concurrency: 1,
    });
    expect(run.results.map((r) => `${r.caseId}/${r.run}`)).toEqual([
      'c1/1',
      'c1/2',
      'c1/3',
      'c1/4',
      'c2/1',
      'c2/2',
      'c2/3',
      'c2/4',
    ]);
    const s = run.summary.scorers[0]!;
    expect(s).toMatchObject({ n: 8, mean: 0.5, passRate: 0.5 });
    expect(s.ci!.low).toBeCloseTo(0.5 - (2.365 * s.sd) / Math.sqrt(8), 6);
    expect(s.ci!.high).toBeCloseTo(0.5 + (2.365 * s.sd) / Math.sqrt(8), 6);
    expect(formatSummary(run)).toMatch(/answer:exact\s+0\.50 \[0\.0\d, 0\.9\d\]\s+50%/);
  });

  it("reports the dataset's unreadable lines and names a cassette to re-record with its first differing request", async () => {
    const saved: Cassette[] = [];
    await new Agent({
      name: 'a',
      model: new ScriptedChatModel([{ text: '5' }]),
      middlewares: [new RecordingMiddleware({ save: (c) => void saved.push(c) })],
    }).call('2 + 3?');
    const [recorded] = casesFromCassette(saved[0]!, { name: 'sum' });
    const dataset = parseJsonlDataset('{"id":"changed","input":"2 + 4?"}\n{nope', { name: 'd' });
    const { run } = await runAll({
      dataset: { ...dataset, cases: [recorded!, { ...dataset.cases[0]!, cassette: recorded!.cassette! }] },
      agent: (c) => new Agent({ name: 'a', model: new ReplayChatModel(c.cassette!) }),
      scorers: [numericAnswer({ value: 5 })],
    });
    expect(run.results[0]).toMatchObject({ caseId: 'sum', answer: '5', scores: [{ score: 1 }] });
    expect(run.results[1]!.error).toMatch(
      /^the cassette no longer matches the agent's requests; re-record it \(ReplayChatModel: model call #1 does not match the recording: request\.messages\[0\]\.content\[0\]\.text: recorded "2 \+ 3\?", but now "2 \+ 4\?"\)$/,
    );
    expect(run.results[1]!.errorCode).toBe('cassette_outdated');
    expect(run.results[1]!.scores[0]!.error).toBe(run.results[1]!.error);
    expect(run.datasetErrors).toEqual([{ line: 2, reason: expect.stringMatching(/^not JSON/) }]);
    expect(formatSummary(run)).toMatch(/unreadable dataset lines:\n {2}line 2: not JSON/);
    expect(checkThresholds(run, { 'answer:numeric': { passRate: 0.5 } })).toEqual([
      '1 dataset line(s) could not be read',
    ]);
  });

  it('names a cassette to re-record when the agent now makes fewer model calls than were recorded', async () => {
    const input = z.object({ n: z.number() });
    const double = defineTool({ name: 'double', description: 'Doubles n.', input, execute: ({ n }) => String(2 * n) });
    const saved: Cassette[] = [];
    await new Agent({
      name: 'a',
      model: new ScriptedChatModel([{ toolCalls: [{ id: 'd1', name: 'double', input: { n: 2 } }] }, { text: '4' }]),
      tools: [double],
      middlewares: [new RecordingMiddleware({ save: (c) => void saved.push(c) })],
    }).call('double 2');
    const [recorded] = casesFromCassette(saved[0]!, { name: 'double' });
    // The same first request, but the tool now runs outside the agent: the reply stops after one call.
    const external = defineTool({ name: 'double', description: 'Doubles n.', input, external: true });
    const { run } = await runAll({
      dataset: [recorded!],
      agent: (c) => new Agent({ name: 'a', model: new ReplayChatModel(c.cassette!), tools: [external] }),
      scorers: [numericAnswer({ value: 4 })],
    });
    expect(run.results[0]).toMatchObject({ errorCode: 'cassette_outdated' });
    expect(run.results[0]!.error).toMatch(
      /re-record it \(ReplayChatModel: 1 recorded model call\(s\) were not made \(1 of 2 played\)\.\)$/,
    );
  });

  it('an agent that cannot be built, or a reply that fails, is a failed case, not a failed run', async () => {
    const { run } = await runAll({
      dataset: cases(3),
      agent: (c) => {
        if (c.id === 'c1') throw new Error('no key');
        if (c.id === 'c3') return new Agent({ model: new ScriptedChatModel([{ error: new Error('overloaded') }]) });
        return new Agent({ model: slowAdder(1, { now: 0, max: 0 }) });
      },
      scorers: [exactAnswer()],
    });
    expect(run.results.map((r) => [r.errorCode, r.finishReason])).toEqual([
      ['reply_not_run', undefined],
      [undefined, 'completed'],
      ['reply_failed', 'error'],
    ]);
    expect(run.results[0]!.error).toBe('the reply could not run: no key');
    expect(run.results[2]!.error).toMatch(/overloaded/);
    // A failed reply is still scored (its answer is empty): a 0, not an error.
    expect(run.results[2]!.scores).toEqual([expect.objectContaining({ score: 0, pass: false })]);
    expect(run.results[2]!.scores[0]!.error).toBeUndefined();
    expect(run.summary.caseErrors).toBe(2);
  });

  it('refuses bad options early, with "did you mean"', () => {
    const ok = {
      dataset: cases(1),
      agent: () => new Agent({ model: slowAdder(1, { now: 0, max: 0 }) }),
      scorers: [exactAnswer()],
    };
    expect(() => runEval({ ...ok, concurency: 2 } as never)).toThrow(
      /unknown option "concurency" of runEval; did you mean "concurrency"\?/,
    );
    expect(() => runEval({ ...ok, scorers: [] })).toThrow(/give at least one scorer/);
    expect(() => runEval({ ...ok, scorers: [exactAnswer(), exactAnswer()] })).toThrow(
      /two scorers are named "answer:exact"/,
    );
    expect(() => runEval({ ...ok, repeat: 0 })).toThrow(/repeat must be an integer from 1 to 1000/);
  });
});

describe('runEval over HTTP: unsubscribing stops every case and its model request', () => {
  let server: OpenAITestServer;
  afterEach(() => server.close());

  it('closes the in-flight requests and starts no new case', async () => {
    server = await startOpenAITestServer({
      chunkDelayMs: 40,
      handler: () => ({ text: Array.from({ length: 100 }, (_, i) => `word${i} `) }),
    });
    const results: EvalEvent[] = [];
    let sub: Subscription | undefined;
    await new Promise<void>((resolve) => {
      sub = runEval({
        dataset: cases(6),
        agent: () => new Agent({ model: new OpenAIChatModel({ model: 'm', apiKey: 'k', baseURL: server.url }) }),
        scorers: [exactAnswer()],
        concurrency: 2,
      }).subscribe({ next: (e) => results.push(e) });
      const poll = setInterval(() => {
        if (server.requests.length === 2) {
          clearInterval(poll);
          resolve();
        }
      }, 5);
    });
    sub!.unsubscribe();
    await server.waitForConnections(0);
    await new Promise((r) => setTimeout(r, 100));
    expect(results).toEqual([]);
    expect(server.requests).toHaveLength(2);
    expect(server.requests.map((r) => [r.completed, r.clientClosed])).toEqual([
      [false, true],
      [false, true],
    ]);
  });
});

describe('compareRuns and the gate', () => {
  const runOf = (name: string, passes: boolean[], scorer = 'answer:exact'): EvalRun => {
    const results = passes.map((p, i) => ({
      caseId: `c${i}`,
      run: 1,
      input: '',
      answer: '',
      toolCalls: [],
      usage: { inputTokens: 0, outputTokens: 0 },
      scores: [{ scorer, score: p ? 1 : 0, pass: p }],
    }));
    const mean = passes.filter(Boolean).length / passes.length;
    const sd = Math.sqrt(passes.reduce((a, p) => a + ((p ? 1 : 0) - mean) ** 2, 0) / (passes.length - 1));
    return {
      name,
      results,
      datasetErrors: [],
      summary: {
        cases: passes.length,
        repeat: 1,
        caseErrors: 0,
        scorers: [{ scorer, n: passes.length, mean, passRate: mean, errors: 0, sd }],
      },
    };
  };

  it('marks a difference beyond noise, not one within it, and lists the cases that changed', () => {
    const base = runOf(
      'coding',
      Array.from({ length: 12 }, () => true),
    );
    const worse = runOf(
      'research',
      Array.from({ length: 12 }, (_, i) => i < 4),
    );
    const close = runOf(
      'custom',
      Array.from({ length: 12 }, (_, i) => i !== 3),
    );
    expect(compareRuns(base, worse).rows[0]).toMatchObject({ diff: expect.closeTo(-8 / 12, 9), significant: true });
    expect(compareRuns(base, close).rows[0]).toMatchObject({ diff: expect.closeTo(-1 / 12, 9), significant: false });
    expect(compareRuns(base, close).changedCases).toEqual([{ caseId: 'c3', scorer: 'answer:exact', a: 1, b: 0 }]);
    const text = formatComparison(compareRuns(base, worse));
    expect(text).toMatch(/answer:exact\s+1\.00\s+100%\s+0\.33\s+33%\s+-0\.67\s+\*/);
  });

  it('gates on mean and pass rate, and refuses a threshold for a scorer the run lacks', () => {
    const run = runOf('r', [true, true, false, true]);
    expect(checkThresholds(run, { 'answer:exact': { passRate: 0.75, mean: 0.7 } })).toEqual([]);
    expect(checkThresholds(run, { 'answer:exact': { passRate: 0.9 } })).toEqual([
      'answer:exact: pass rate 0.750 < 0.9',
    ]);
    expect(checkThresholds(run, { judge: { mean: 0.5 } })).toEqual([
      'judge: no such scorer in the run (it has answer:exact)',
    ]);
    expect(() => checkThresholds(run, { 'answer:exact': { passrate: 1 } as never })).toThrow(/did you mean "passRate"/);
  });
});
