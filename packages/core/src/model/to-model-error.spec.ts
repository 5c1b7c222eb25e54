import type { ModelEvent } from '../event/events.js';
import { BlockAssembler } from './block-assembler.js';
import { ModelError } from './model-error.js';
import { parseRetryAfter, toModelError } from './to-model-error.js';

/** An error shaped like the openai SDK's APIError (status + Headers). */
function apiError(status: number, message: string, headers: Record<string, string> = {}): Error {
  return Object.assign(new Error(`${status} ${message}`), { status, headers: new Headers(headers) });
}

describe('parseRetryAfter', () => {
  it('reads delay-seconds and HTTP dates', () => {
    const now = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter(' 0.5 ')).toBe(500);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:28:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:27:00 GMT', now)).toBe(0);
  });

  it('ignores missing and unparseable values', () => {
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('')).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('-3')).toBeUndefined();
  });
});

describe('toModelError', () => {
  it.each([
    [400, 'bad_request', false],
    [401, 'unauthorized', false],
    [403, 'forbidden', false],
    [404, 'not_found', false],
    [408, 'timeout', true],
    [409, 'conflict', true],
    [429, 'rate_limited', true],
    [500, 'server_error', true],
    [503, 'server_error', true],
  ])('HTTP %i → code %s, retryable %s', (status, code, retryable) => {
    const e = toModelError(apiError(status, 'boom'));
    expect(e).toBeInstanceOf(ModelError);
    expect(e).toMatchObject({ status, code, retryable });
  });

  it('reads Retry-After as seconds or date, preferring retry-after-ms', () => {
    expect(toModelError(apiError(429, 'slow down', { 'retry-after': '3' })).retryAfterMs).toBe(3000);
    const date = new Date(Date.now() + 10_000).toUTCString();
    expect(toModelError(apiError(503, 'busy', { 'retry-after': date })).retryAfterMs).toBeGreaterThan(8000);
    expect(toModelError(apiError(429, 'x', { 'retry-after': '3', 'retry-after-ms': '1500' })).retryAfterMs).toBe(1500);
    expect(toModelError(apiError(429, 'x')).retryAfterMs).toBeUndefined();
  });

  it('names a context overflow, keeps the status and does not retry it', () => {
    const e = toModelError(
      apiError(400, "This model's maximum context length is 8192 tokens (context_length_exceeded)"),
    );
    expect(e).toMatchObject({ code: 'context_length_exceeded', status: 400, retryable: false });
  });

  it('drops LangChain troubleshooting links from the message and keeps the original as cause', () => {
    const original = apiError(
      401,
      'Incorrect API key\n\nTroubleshooting URL: https://docs.langchain.com/x/MODEL_AUTHENTICATION/\n',
    );
    const e = toModelError(original);
    expect(e.message).toBe('401 Incorrect API key');
    expect(e.cause).toBe(original);
  });

  it('classifies connection failures, timeouts, aborts and malformed responses', () => {
    const cut = Object.assign(new TypeError('terminated'), {
      cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    });
    expect(toModelError(cut)).toMatchObject({ code: 'connection_error', retryable: true });
    expect(toModelError(Object.assign(new Error('fetch failed'), { cause: { code: 'ECONNREFUSED' } }))).toMatchObject({
      code: 'connection_error',
      retryable: true,
    });
    expect(toModelError(Object.assign(new Error('Request timed out.'), { name: 'TimeoutError' }))).toMatchObject({
      code: 'timeout',
      retryable: true,
    });
    expect(toModelError(Object.assign(new Error('Request was aborted.'), { name: 'AbortError' }))).toMatchObject({
      code: 'cancelled',
      retryable: false,
    });
    expect(toModelError(new SyntaxError('Error reading response: malformed server-sent event JSON.'))).toMatchObject({
      code: 'malformed_response',
      retryable: true,
    });
  });

  it('passes ModelErrors through and wraps anything else as a non-retryable model_error', () => {
    const own = new ModelError('x', { code: 'custom', retryable: true });
    expect(toModelError(own)).toBe(own);
    expect(toModelError(new Error('weird'))).toMatchObject({ code: 'model_error', retryable: false, message: 'weird' });
    expect(toModelError('plain string')).toMatchObject({ code: 'model_error', message: 'plain string' });
  });
});

describe('BlockAssembler', () => {
  const run = (feed: (b: BlockAssembler) => void): ModelEvent[] => {
    const events: ModelEvent[] = [];
    const b = new BlockAssembler((e) => events.push(e));
    feed(b);
    b.close();
    return events;
  };

  it('opens a new block whenever the kind changes and ignores empty deltas', () => {
    const types = run((b) => {
      b.text('');
      b.thinking('a');
      b.text('b');
      b.text(null);
      b.thinking('c');
    }).map((e) => e.type);
    expect(types).toEqual([
      'THINKING_BLOCK_START',
      'THINKING_BLOCK_DELTA',
      'THINKING_BLOCK_END',
      'TEXT_BLOCK_START',
      'TEXT_BLOCK_DELTA',
      'TEXT_BLOCK_END',
      'THINKING_BLOCK_START',
      'THINKING_BLOCK_DELTA',
      'THINKING_BLOCK_END',
    ]);
  });

  it('holds arguments until the tool name arrives, and starts unnamed calls at the end', () => {
    const events = run((b) => {
      b.toolCall(0, { id: 'x', arguments: '{"a"' });
      b.toolCall(0, { name: 'add', arguments: ':1}' });
      b.toolCall(1, { arguments: '{}' });
    });
    expect(events).toEqual([
      { type: 'TOOL_CALL_START', blockId: expect.any(String), toolCallId: 'x', name: 'add' },
      { type: 'TOOL_CALL_DELTA', blockId: expect.any(String), delta: '{"a":1}' },
      { type: 'TOOL_CALL_END', blockId: expect.any(String) },
      { type: 'TOOL_CALL_START', blockId: expect.any(String), toolCallId: expect.stringMatching(/^call_/), name: '' },
      { type: 'TOOL_CALL_DELTA', blockId: expect.any(String), delta: '{}' },
      { type: 'TOOL_CALL_END', blockId: expect.any(String) },
    ]);
  });

  it('refuses interleaved tool-call pieces with a clear malformed_response error', () => {
    expect(() =>
      run((b) => {
        b.toolCall(0, { name: 'a', arguments: '{' });
        b.toolCall(1, { name: 'b', arguments: '{' });
        b.toolCall(0, { arguments: '}' });
      }),
    ).toThrow(expect.objectContaining({ code: 'malformed_response' }) as Error);
  });
});

describe('toModelError: root causes of fetch failures', () => {
  it('a URL fetch cannot use (unknown scheme) is invalid_url, not retryable, and says so', async () => {
    const fetchError = await fetch('localhost:8080/v1').then(
      () => undefined,
      (e: unknown) => e,
    );
    // As the openai SDK wraps it.
    const err = toModelError(
      Object.assign(new Error('Connection error.'), { name: 'APIConnectionError', cause: fetchError }),
    );
    expect(err).toMatchObject({ code: 'invalid_url', retryable: false });
    expect(err.message).toContain('unknown scheme');
    expect(err.message).toContain('http://');
  });

  it('ENOTFOUND is host_not_found, not retryable, with the host in the message', () => {
    const dns = Object.assign(new Error('getaddrinfo ENOTFOUND llm.internal'), { code: 'ENOTFOUND' });
    const err = toModelError(
      Object.assign(new Error('Connection error.'), {
        cause: Object.assign(new TypeError('fetch failed'), { cause: dns }),
      }),
    );
    expect(err).toMatchObject({ code: 'host_not_found', retryable: false });
    expect(err.message).toContain('getaddrinfo ENOTFOUND llm.internal');
  });

  it('a refused connection keeps connection_error (a server may be starting) with the innermost cause in the message', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8080'), { code: 'ECONNREFUSED' });
    const aggregate = Object.assign(new AggregateError([refused], ''), { code: 'ECONNREFUSED' });
    const err = toModelError(
      Object.assign(new Error('Connection error.'), {
        cause: Object.assign(new TypeError('fetch failed'), { cause: aggregate }),
      }),
    );
    expect(err).toMatchObject({ code: 'connection_error', retryable: true });
    expect(err.message).toBe(
      'connection to the model server failed: Connection error. (connect ECONNREFUSED 127.0.0.1:8080)',
    );
  });
});
