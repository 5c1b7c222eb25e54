import { OptionsError } from '@rxscope/core';
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
