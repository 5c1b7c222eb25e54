// The Hono app with app.request (Hono's own fetch entry): rxscope's SSE as a Web Response, the
// useChat endpoint's refusals, and a bad body.
import type { AgentEvent } from '@rxscope/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { createApp } from './app.js';

const post = (app: ReturnType<typeof createApp>, path: string, body: unknown) =>
  app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('react-chat server on Hono', () => {
  it('streams a reply as rxscope SSE from POST /api/events', async () => {
    const app = createApp(new ScriptedChatModel([{ text: 'Hello from Hono.' }]));
    const res = await post(app, '/api/events', { chatId: 'c1', message: 'Hi' });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as AgentEvent);
    expect(
      events
        .filter((e) => e.type === 'TEXT_BLOCK_DELTA')
        .map((e) => (e as { delta: string }).delta)
        .join(''),
    ).toBe('Hello from Hono.');
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishReason: 'completed' });
  });

  it('streams a useChat reply from POST /api/chat and refuses what is not a useChat request', async () => {
    const app = createApp(new ScriptedChatModel([{ text: 'Hi there.' }]));
    const ok = await post(app, '/api/chat', {
      id: 'c2',
      trigger: 'submit-message',
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
    });
    expect(ok.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const text = await ok.text();
    expect(text).toContain('"type":"text-delta"');
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
    const bad = await post(app, '/api/chat', { id: 'c2', messages: 'nope', trigger: 'submit-message' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: {
        code: 'invalid_chat_request',
        message: 'Not a useChat request: messages: an array of UI messages is required.',
      },
    });
    expect((await post(app, '/api/events', { chatId: 3 })).status).toBe(400);
  });
});
