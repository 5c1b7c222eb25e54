import { readFile, writeFile } from 'node:fs/promises';
import { Agent, type ChatModel, type Tool } from '../../../index.js';

export async function rememberAda(model: ChatModel, getWeather: Tool, file = 'session.json') {
  const agent = new Agent({ name: 'assistant', model });
  await agent.call('My name is Ada.');
  await writeFile(file, JSON.stringify(agent.saveState()));

  // later, maybe in another process
  const restored = new Agent({
    name: 'assistant',
    model,
    tools: [getWeather],
    state: JSON.parse(await readFile(file, 'utf8')),
  });
  await restored.call('What is my name?'); // the model sees the earlier conversation
}
