import { builtOne, partEnv } from '../__tests__/part-env.js';
import { AsyncToolMiddleware } from './async-tool/index.js';
import { asyncToolPart } from './async-tool-part.js';

describe('the background tool calls part', () => {
  const env = partEnv();
  afterAll(() => env.cleanup());

  it('is on by default with a 60 s timeout, and says a different one in its unit', () => {
    const on = builtOne(asyncToolPart, {}, env);
    expect(on.middleware).toBeInstanceOf(AsyncToolMiddleware);
    expect(on.part.reason).toBe(
      'a tool call still running after 60 s gets a placeholder and goes on in the background; its result comes through the inbox',
    );
    expect(builtOne(asyncToolPart, { asyncTools: { timeoutMs: 1500 } }, env).part.reason).toMatch(/after 1500 ms /);
  });

  it('is off with false, and off without the inbox that would deliver the late results', () => {
    expect(builtOne(asyncToolPart, { asyncTools: false }, env).part).toMatchObject({
      enabled: false,
      reason: 'asyncTools: false',
    });
    const noInbox = builtOne(asyncToolPart, { asyncTools: true, inbox: false }, env);
    expect(noInbox.middleware).toBeUndefined();
    expect(noInbox.part.reason).toBe('needs the inbox (inbox: false), which delivers the late results');
  });
});
