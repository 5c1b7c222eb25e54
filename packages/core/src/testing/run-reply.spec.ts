import { of } from 'rxjs';
import { Agent } from '../agent/agent.js';
import { createEvent } from '../event/create.js';
import { ofType, replyEndOf, runReply } from './run-reply.js';
import { ScriptedChatModel } from './scripted-model.js';

describe('runReply, ofType, replyEndOf', () => {
  it('runs a reply from its input and returns every event, the REPLY_END last', async () => {
    const agent = new Agent({ model: new ScriptedChatModel([{ text: ['Hel', 'lo'] }]) });
    const events = await runReply(agent, 'hi');
    expect(ofType(events, 'TEXT_BLOCK_DELTA').map((e) => e.delta)).toEqual(['Hel', 'lo']);
    expect(replyEndOf(events).finishReason).toBe('completed');
  });

  it('takes a reply stream already made', async () => {
    const agent = new Agent({ model: new ScriptedChatModel([{ text: 'ok' }]) });
    expect(replyEndOf(await runReply(agent, agent.reply('hi'))).type).toBe('REPLY_END');
  });

  it('rejects a stream that breaks the reply grammar', async () => {
    const agent = new Agent({ model: new ScriptedChatModel([]) });
    const start = createEvent('REPLY_START', {}, { source: 'a', replyId: 'r1' });
    await expect(runReply(agent, of(start))).rejects.toThrow(/Stream grammar violated/);
  });

  it('replyEndOf says what the events end with instead', () => {
    expect(() => replyEndOf([])).toThrow('The events do not end with REPLY_END (last: none).');
  });
});
