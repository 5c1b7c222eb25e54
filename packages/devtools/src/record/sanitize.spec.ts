import { sanitize } from './sanitize.js';

const options = { maxStringLength: 100 };

describe('sanitize', () => {
  it('keeps a plain event as it is (no copy) with its size', () => {
    const event = { type: 'TEXT_BLOCK_DELTA', blockId: 'b1', delta: 'hello ', id: 'e1', replyId: 'r1', createdAt: 1 };
    const kept = sanitize(event, options);
    expect(kept.value).toBe(event);
    expect(kept.bytes).toBeGreaterThan(30);
    expect(kept.flag).toBeUndefined();
  });

  it('redacts credential fields at any depth and masks key-like strings, leaving token counts alone', () => {
    const kept = sanitize(
      {
        type: 'CUSTOM',
        value: { headers: { Authorization: 'Bearer abcdefghijklmnop', 'x-api-key': 'k' }, apiKey: 'sk-123' },
        note: 'use sk-abcdefghijklmnopqrstuv please',
        usage: { inputTokens: 10, outputTokens: 3 },
      },
      options,
    ).value as Record<string, unknown>;
    expect(kept['value']).toEqual({
      headers: { Authorization: { $redacted: true }, 'x-api-key': { $redacted: true } },
      apiKey: { $redacted: true },
    });
    expect(kept['note']).toBe('use [redacted] please');
    expect(kept['usage']).toEqual({ inputTokens: 10, outputTokens: 3 });
  });

  it('truncates a long string to its head and UTF-8 size, masking a key that the cut would split', () => {
    const text = `${'é'.repeat(240)}sk-abcdefghijklmnopqrstuvwxyz${'x'.repeat(1000)}`;
    const kept = sanitize({ type: 'TOOL_RESULT_DELTA', delta: text }, { maxStringLength: 250 }).value as {
      delta: { $truncated: boolean; size: number; head: string };
    };
    expect(kept.delta.$truncated).toBe(true);
    expect(kept.delta.size).toBe(Buffer.byteLength(text));
    expect(kept.delta.head).toHaveLength(250);
    expect(kept.delta.head).not.toContain('sk-abcdefgh');
  });

  it('flags what is not JSON and never throws: cycles, bigints, functions, deep nesting, throwing getters', () => {
    const cycle: Record<string, unknown> = { type: 'CUSTOM' };
    cycle['self'] = cycle;
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 40; i++) deep = { deep };
    const getter = Object.defineProperty({ type: 'CUSTOM' }, 'boom', {
      enumerable: true,
      get: () => {
        throw new Error('no');
      },
    });
    const cases: [unknown, RegExp][] = [
      [cycle, /circular/],
      [{ type: 'CUSTOM', n: 10n }, /bigint/],
      [{ type: 'CUSTOM', f: () => 1 }, /function/],
      [{ type: 'CUSTOM', deep }, /nested deeper/],
      [getter, /cannot be read/],
    ];
    for (const [value, why] of cases) {
      const kept = sanitize(value, options);
      expect(kept.flag).toMatch(why);
      expect(() => JSON.stringify(kept.value)).not.toThrow();
    }
  });
});
