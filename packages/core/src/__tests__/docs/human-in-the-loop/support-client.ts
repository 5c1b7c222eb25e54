import type { AgentEvent } from '../../../index.js';

async function send(sessionId: string, body: unknown): Promise<AgentEvent[]> {
  const res = await fetch(`/sessions/${sessionId}`, { method: 'POST', body: JSON.stringify(body) });
  return (await res.text())
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AgentEvent);
}

export async function askForARefund(): Promise<AgentEvent[]> {
  let events = await send('customer-1', { message: 'Refund order A-17 please (80 EUR)' });
  const ask = events.find((e) => e.type === 'REQUIRE_USER_CONFIRM');
  if (ask) {
    const { amount } = ask.toolCalls[0]!.input as { amount: number };
    const ok = window.confirm(`Refund ${amount} EUR?`);
    events = await send('customer-1', { confirm: ask.toolCalls.map((c) => ({ toolCallId: c.id, confirmed: ok })) });
  }
  return events;
}
