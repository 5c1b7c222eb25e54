import { TestBed } from '@angular/core/testing';
import { OptionsError } from '@rxscope/core';
import { injectAgentChat, type InjectAgentChatOptions } from '../agent-chat.js';
import { provideRxscope, type RxscopeConfig } from '../provide-rxscope.js';

describe('provideRxscope refuses a bad configuration when the app starts', () => {
  const refusal = (config: unknown) => {
    try {
      provideRxscope(config as RxscopeConfig);
    } catch (e) {
      return e as OptionsError;
    }
    throw new Error('not refused');
  };

  it('an unknown key, with "did you mean"', () => {
    const e = refusal({ url: '/api/chat', transport: 'sse', header: {} });
    expect(e).toBeInstanceOf(OptionsError);
    expect(e.code).toBe('unknown_option');
    expect(e.message).toMatch(/did you mean "headers"/);
  });

  it('a missing url, an unknown transport, a bad timeout', () => {
    expect(refusal({ url: ' ', transport: 'sse' })).toMatchObject({
      code: 'invalid_option',
      option: 'provideRxscope.url',
    });
    expect(refusal({ url: '/x', transport: 'websocket' }).message).toMatch(/"websocket"; use "sse"/);
    expect(refusal({ url: '/x', transport: 'sse', firstEventTimeoutMs: -1 })).toMatchObject({
      option: 'provideRxscope.firstEventTimeoutMs',
    });
  });
});

describe('injectAgentChat refuses options it does not know', () => {
  afterEach(() => TestBed.resetTestingModule());
  const chatRefusal = (options: unknown) => {
    TestBed.resetTestingModule();
    TestBed.configureTestingModule({ providers: [provideRxscope({ url: '/api/chat', transport: 'sse' })] });
    try {
      TestBed.runInInjectionContext(() => injectAgentChat(options as InjectAgentChatOptions));
    } catch (e) {
      return e as OptionsError;
    }
    throw new Error('not refused');
  };

  it('an unknown key of its own or of its config override, with "did you mean"', () => {
    expect(chatRefusal({ confg: { url: '/b' } })).toMatchObject({ code: 'unknown_option' });
    expect(chatRefusal({ confg: {} }).message).toMatch(/did you mean "config"/);
    expect(chatRefusal({ config: { ulr: '/b' } }).message).toMatch(/did you mean "url"/);
    expect(chatRefusal({ config: { transport: 'ws' } })).toMatchObject({
      code: 'invalid_option',
      option: 'injectAgentChat.config.transport',
    });
  });
});
