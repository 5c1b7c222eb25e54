import { formatBytes, joinPieces, showValue } from './shown-value';

describe('shown values', () => {
  it('shows strings as they are and other values as JSON', () => {
    expect(showValue('hi')).toEqual({ text: 'hi' });
    expect(showValue({ a: 1 })).toEqual({ text: '{\n  "a": 1\n}' });
    expect(showValue(undefined)).toEqual({ text: '' });
  });

  it('shows a truncated string as its head and the size of the original, also deep inside JSON', () => {
    const marker = { $truncated: true, size: 5_300_000, head: 'abc' };
    expect(showValue(marker)).toEqual({ text: 'abc…', truncatedSize: 5_300_000 });
    const nested = showValue({ output: [{ text: marker }] });
    expect(nested.truncatedSize).toBe(5_300_000);
    expect(nested.text).toContain('"abc… [truncated, 5.3 MB]"');
  });

  it('joins streamed pieces and counts their bytes when one was truncated', () => {
    expect(joinPieces(['{"a":', '1}'])).toEqual({ text: '{"a":1}' });
    expect(joinPieces(['é', { $truncated: true, size: 100, head: 'x' }])).toEqual({ text: 'éx…', truncatedSize: 102 });
  });

  it('writes sizes as people read them', () => {
    expect([formatBytes(812), formatBytes(12_345), formatBytes(4_100_000)]).toEqual(['812 B', '12.3 kB', '4.1 MB']);
  });
});
