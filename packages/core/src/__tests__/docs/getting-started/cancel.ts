import type { Agent, AgentEvent } from '../../../index.js';

export function replyWithCancel(agent: Agent, render: (e: AgentEvent) => void, cancelButton: HTMLButtonElement) {
  const sub = agent.reply('Wait five seconds').subscribe({ next: render, error: console.error });
  cancelButton.onclick = () => sub.unsubscribe();
}
