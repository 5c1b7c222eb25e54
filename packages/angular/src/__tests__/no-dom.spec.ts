/**
 * @jest-environment node
 */
// Server-side rendering has no DOM: providing and creating the chat touches no browser API and
// opens nothing, and a chat created there still works with Node's fetch.
import { createEnvironmentInjector, type EnvironmentInjector, Injector, runInInjectionContext } from '@angular/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { injectAgentChat } from '../agent-chat.js';
import { provideRxscope } from '../provide-rxscope.js';
import { startChatServer, until, type ChatServer } from './chat-server.js';

describe('injectAgentChat without a DOM (as in server-side rendering)', () => {
  let server: ChatServer;
  let injector: EnvironmentInjector;
  beforeEach(async () => {
    server = await startChatServer(new ScriptedChatModel([{ text: ['Rendered ', 'on the server.'] }]));
  });
  afterEach(async () => {
    injector.destroy();
    await server.close();
  });

  it('is created without window or document, opens no request until send(), then streams', async () => {
    expect(typeof window).toBe('undefined');
    expect(typeof document).toBe('undefined');
    injector = createEnvironmentInjector(
      [provideRxscope({ url: server.url, transport: 'sse' })],
      Injector.NULL as EnvironmentInjector,
    );
    const chat = runInInjectionContext(injector, () => injectAgentChat());
    expect(chat.status()).toBe('idle');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.bodies).toEqual([]); // nothing was requested by creating it

    chat.send('Hi');
    await until(() => chat.status() !== 'streaming', 'the reply');
    expect(chat.messages().map((m) => m.text)).toEqual(['Hi', 'Rendered on the server.']);
  });
});
