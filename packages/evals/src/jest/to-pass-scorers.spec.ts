import { Agent } from '@rxscope/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { exactAnswer, includesAnswer } from '../scorers/answer.js';
import { trajectory } from '../scorers/trajectory.js';
import { reply } from '../__tests__/events.js';
import { toPassScorers } from './index.js';

expect.extend({ toPassScorers });

describe('expect(reply).toPassScorers(...)', () => {
  it('runs a reply stream and passes when every scorer passes', async () => {
    const agent = new Agent({ model: new ScriptedChatModel([{ text: 'It is 5.' }]) });
    await expect(agent.reply('2 + 3?')).toPassScorers([includesAnswer({ values: ['5'] })]);
  });

  it('fails listing each score and reason; .not inverts', async () => {
    const scorers = [exactAnswer({ value: 'Done.' }), trajectory({ calls: [{ name: 'read_file' }] })];
    await expect(expect(reply()).toPassScorers(scorers)).rejects.toThrow(
      /expected the reply to pass every scorer:\n {2}✗ answer:exact 0\.00: answered "Fixed: sum\.js now returns a \+ b\.", expected "Done\."\n {2}✓ trajectory:in-order 1\.00/,
    );
    await expect(reply()).not.toPassScorers([exactAnswer({ value: 'Done.' })]);
    await expect(expect(reply()).toPassScorers([])).rejects.toThrow(/give at least one scorer/);
  });

  it("scores against the case's expectations when given", async () => {
    await expect(reply('5')).toPassScorers([exactAnswer()], { expected: { answer: '5' } });
  });
});
