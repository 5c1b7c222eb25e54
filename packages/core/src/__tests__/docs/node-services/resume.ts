import { Agent, type AgentEvent, type ChatModel, type SessionStore, type Tool } from '../../../index.js';

export async function resumeOrders(
  model: ChatModel,
  tools: Tool[],
  store: SessionStore,
  render: (e: AgentEvent) => void,
) {
  const agent = new Agent({ model, tools, store, sessionId: 'orders' });
  const stored = await store.load('orders');
  if (stored?.state.pending?.shutdown) {
    agent.reply({ type: 'RESUME_REPLY' }).subscribe(render); // REPLY_START (same replyId) … REPLY_END completed
  }
}
