import { AgentError, type Agent } from '../../../index.js';

export async function sayHi(agent: Agent) {
  try {
    await agent.call('hi');
  } catch (e) {
    if (e instanceof AgentError) console.error(e.info.name, e.info.status, e.info.retryable);
  }
}
