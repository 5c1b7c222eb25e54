import { lastValueFrom } from 'rxjs';
import { Agent } from '../agent/agent.js';
import { InvalidReplyInputError } from '../agent/errors.js';
import { createMsg } from '../message/msg.js';
import { ScriptedChatModel } from '../testing/index.js';

describe('reply() refuses an input that is none of the accepted shapes', () => {
  it.each([
    ['false', false, 'boolean false'],
    ['{}', {}, 'an object with keys []'],
    ['an unknown event', { type: 'NOPE', results: [] }, 'an object with keys ["type","results"]'],
    ['an array with a non-message', [{ role: 'user', content: [] }, 42], 'an array that is not all messages'],
    ['null', null, 'null'],
  ])('%s: InvalidReplyInputError naming what it got; nothing stored, no model call', async (_label, input, got) => {
    const model = new ScriptedChatModel([{ text: 'never' }]);
    const agent = new Agent({ name: 'a', model });
    const error = await lastValueFrom(agent.reply(input as never)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidReplyInputError);
    expect(error).toMatchObject({ code: 'invalid_input', message: expect.stringContaining(`got ${got}.`) as string });
    expect(agent.context).toEqual([]);
    expect(model.requests).toHaveLength(0);
  });

  it('still takes a string, a message and an array of messages', async () => {
    const model = new ScriptedChatModel([{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
    const agent = new Agent({ name: 'a', model });
    await agent.call('hi');
    await agent.call(createMsg('user', 'again'));
    await agent.call([createMsg('user', 'third')]);
    expect(model.requests).toHaveLength(3);
  });
});
