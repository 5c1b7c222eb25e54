import { Agent, textOfMsg } from '../../../index.js';
import { ScriptedChatModel } from '../../../testing/index.js';

export async function tellAStory() {
  const model = new ScriptedChatModel([{ text: ['Once ', 'upon ', 'a ', 'time ', 'there ', 'was...'] }], {
    delayMs: 20,
  });
  const agent = new Agent({ model });

  setTimeout(() => agent.interrupt('user pressed stop'), 70);
  const msg = await agent.call('Tell me a story');
  return {
    finishReason: msg.metadata?.['finishReason'], // 'interrupted'
    text: textOfMsg(msg), // the text streamed so far, e.g. 'Once upon '
  };
}
