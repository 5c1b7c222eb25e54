import { lastValueFrom } from 'rxjs';
import { Agent } from '@rxscope/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { type Cassette, RecordingMiddleware, ReplayChatModel } from '@rxscope/middleware-builtin/recording';
import type { EvalCase } from '../dataset/eval-case.js';
import { reply } from '../__tests__/events.js';
import { llmJudge } from './llm-judge.js';
import { replySample } from './reply-sample.js';
import { applyScorer } from './scorer.js';

const kase: EvalCase = { id: 'fix', input: 'Fix sum.js', expected: { answer: 'sum returns a + b' }, metadata: {} };
const judgeWith = (model: ScriptedChatModel | ReplayChatModel, extra: Partial<Parameters<typeof llmJudge>[0]> = {}) =>
  llmJudge({ agent: () => new Agent({ name: 'judge', model }), rubric: 'The answer says what was fixed.', ...extra });
const judged = (judge: ReturnType<typeof llmJudge>) => lastValueFrom(applyScorer(judge, replySample(reply()), kase));

describe('llmJudge', () => {
  it('asks with the rubric, the question, the reference, the tool calls and the reply; reads score and reason', async () => {
    const model = new ScriptedChatModel([{ text: 'Here: {"score": 0.9, "reason": "names the fix"}' }]);
    expect(await judged(judgeWith(model))).toEqual({
      scorer: 'judge',
      score: 0.9,
      pass: true,
      reason: 'names the fix',
    });
    const prompt = JSON.stringify(model.requests[0]!.messages.at(-1)!.content);
    for (const part of [
      'The answer says what was fixed.',
      'Fix sum.js',
      'sum returns a + b',
      'read_file',
      'Fixed: sum.js now returns a + b.',
    ]) {
      expect(prompt).toContain(part);
    }
  });

  it('sends an unreadable answer back once, saying what is wrong', async () => {
    const model = new ScriptedChatModel([{ text: 'Looks good to me!' }, { text: '{"score": 0.4, "reason": "vague"}' }]);
    expect(await judged(judgeWith(model, { passAt: 0.5 }))).toMatchObject({ score: 0.4, pass: false, reason: 'vague' });
    expect(JSON.stringify(model.requests[1]!.messages.at(-1)!.content)).toContain(
      'could not be read (no JSON object in the answer)',
    );
  });

  it('twice unreadable: an error score naming the judge and its answer', async () => {
    const model = new ScriptedChatModel([{ text: '{"score": "high"}' }, { text: 'I refuse.' }]);
    expect(await judged(judgeWith(model))).toEqual({
      scorer: 'judge',
      score: 0,
      pass: false,
      error:
        'scorer "judge" failed: judge "judge" answered twice without a readable verdict (no JSON object in the answer); its last answer: "I refuse."',
    });
  });

  it("a judge's failed reply is an error score with its reason", async () => {
    const model = new ScriptedChatModel([{ error: new Error('rate limited') }]);
    expect((await judged(judgeWith(model))).error).toMatch(/the judge's reply failed: .*rate limited/);
  });

  it('is deterministic under ReplayChatModel: a recorded judging replays to the same score', async () => {
    const saved: Cassette[] = [];
    const recording = llmJudge({
      agent: () =>
        new Agent({
          name: 'judge',
          model: new ScriptedChatModel([{ text: '{"score": 0.75, "reason": "mostly"}' }]),
          middlewares: [new RecordingMiddleware({ save: (c) => void saved.push(c) })],
        }),
      rubric: 'r',
    });
    const first = await judged(recording);
    const replayed = await judged(
      llmJudge({ agent: () => new Agent({ name: 'judge', model: new ReplayChatModel(saved[0]!) }), rubric: 'r' }),
    );
    expect(replayed).toEqual(first);
    expect(first).toMatchObject({ score: 0.75, pass: true });
  });

  it("unsubscribing cancels the judge's model request", async () => {
    const model = new ScriptedChatModel([{ text: '{"score": 1, "reason": "fine"}' }], { delayMs: 50 });
    const sub = applyScorer(judgeWith(model), replySample(reply()), kase).subscribe();
    await new Promise((r) => setTimeout(r, 20));
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.signal?.aborted).toBe(false);
    sub.unsubscribe();
    expect(model.requests[0]!.signal?.aborted).toBe(true);
  });

  it('refuses bad options', () => {
    expect(() =>
      llmJudge({ agent: () => new Agent({ model: new ScriptedChatModel([]) }), rubric: 'r', passat: 1 } as never),
    ).toThrow(/did you mean "passAt"/);
    expect(() => llmJudge({ agent: new Agent({ model: new ScriptedChatModel([]) }) as never, rubric: 'r' })).toThrow(
      /agent must be a function/,
    );
    expect(() => llmJudge({ agent: () => new Agent({ model: new ScriptedChatModel([]) }), rubric: ' ' })).toThrow(
      /rubric must be a non-empty string/,
    );
  });
});
