import { Agent, type Tool } from '../../../index.js';
import { ScriptedChatModel } from '../../../testing/index.js';

export async function keepAdding(add: Tool) {
  const model = new ScriptedChatModel([
    { toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] },
    { toolCalls: [{ name: 'add', input: { a: 3, b: 4 } }] },
    { text: 'Stopping here: 3 and 7.' },
  ]);
  const agent = new Agent({ model, tools: [add], maxIters: 2 });
  const msg = await agent.call('Keep adding');
  return {
    toolChoices: model.requests.map((r) => r.toolChoice), // ['auto', 'auto', 'none']
    finishReason: msg.metadata?.['finishReason'], // 'max_iters'
  };
}
