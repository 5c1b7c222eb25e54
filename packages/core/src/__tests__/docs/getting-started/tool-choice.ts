import { Agent, type Tool } from '../../../index.js';
import type { ScriptedChatModel } from '../../../testing/index.js';

export async function forceAddFirst(model: ScriptedChatModel, add: Tool) {
  const agent = new Agent({ model, tools: [add], toolChoice: { name: 'add' } });
  await agent.call('1 + 2?');
  await agent.call('2 + 2?');
  return model.requests.map((r) => r.toolChoice); // [{ name: 'add' }, 'auto', { name: 'add' }, 'auto']
}
