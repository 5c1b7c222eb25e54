import { filter, map } from 'rxjs';
import { z } from 'zod';
import { Agent, defineTool, isEvent } from '../../../index.js';
import { ScriptedChatModel } from '../../../testing/index.js';

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a word up in the dictionary',
  input: z.object({ word: z.string() }),
  execute: async ({ word }) => {
    await new Promise((r) => setTimeout(r, 50));
    return `${word}: a tiny speck`;
  },
});
const model = new ScriptedChatModel([
  { toolCalls: [{ name: 'lookup', input: { word: 'mote' } }] },
  { text: 'A mote is a tiny speck (in French: "grain de poussière").' },
]);
const agent = new Agent({ model, tools: [lookup] });

agent
  .reply('What is a mote?')
  .pipe(
    filter(isEvent('MODEL_CALL_START', 'TOOL_RESULT_END', 'HINT_BLOCK', 'REPLY_END')),
    map((e) => (e.type === 'HINT_BLOCK' ? `${e.type} ${e.hintSource}: ${e.text}` : e.type)),
  )
  .subscribe(console.log);
agent.send('Also give the French word.'); // the user types while the tool runs
// MODEL_CALL_START
// TOOL_RESULT_END
// HINT_BLOCK user: Also give the French word.
// MODEL_CALL_START        ← this request includes the message
// REPLY_END
