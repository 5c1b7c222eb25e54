import { lastValueFrom, toArray } from 'rxjs';
import { Agent } from '../../../index.js';
import { assertReplyGrammar, ScriptedChatModel } from '../../../testing/index.js';

it('completes a reply', async () => {
  const agent = new Agent({ model: new ScriptedChatModel([{ text: 'Hello!' }]) });
  const events = await lastValueFrom(agent.reply('hi').pipe(toArray()));
  expect(assertReplyGrammar(events).finishReason).toBe('completed');
});
