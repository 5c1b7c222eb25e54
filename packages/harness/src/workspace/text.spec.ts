// The text helpers behind read_file and grep_files: telling a binary file from text, splitting
// lines, and the counts in their notes.
import { count, decodeText, looksBinary, splitLines } from './text.js';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('looksBinary', () => {
  it('takes UTF-8 text, accents and emoji included, for text', () => {
    expect(looksBinary(utf8('plain ascii\n'))).toBe(false);
    expect(looksBinary(utf8('Grüße, 日本語, 😀\n'))).toBe(false);
    expect(looksBinary(new Uint8Array())).toBe(false);
  });

  it('takes a NUL byte in the first 8 KB for binary', () => {
    const bytes = utf8('text'.repeat(100));
    bytes[200] = 0;
    expect(looksBinary(bytes)).toBe(true);
  });

  it('looks no further than 8 KB: a NUL after that does not make a file binary', () => {
    const bytes = new Uint8Array(20_000).fill(0x61);
    bytes[10_000] = 0;
    expect(looksBinary(bytes)).toBe(false);
  });

  it('takes bytes that are not UTF-8 (a Latin-1 file, a PNG header) for binary', () => {
    expect(looksBinary(Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x0a]))).toBe(true);
    expect(looksBinary(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  });

  it('does not mistake a character cut at the 8 KB boundary for bad UTF-8', () => {
    // 8,191 ASCII bytes, then a 3-byte character across the boundary.
    const bytes = utf8('a'.repeat(8_191) + '€ and more');
    expect(looksBinary(bytes)).toBe(false);
  });
});

describe('decodeText', () => {
  it('decodes UTF-8 and replaces invalid sequences instead of throwing', () => {
    expect(decodeText(utf8('naïve'))).toBe('naïve');
    expect(decodeText(Uint8Array.from([0x61, 0xff, 0x62]))).toBe('a\uFFFDb');
  });
});

describe('splitLines', () => {
  it('splits on LF and CRLF alike, a final newline starting no empty line', () => {
    expect(splitLines('a\nb\r\nc\n')).toEqual(['a', 'b', 'c']);
    expect(splitLines('a\nb')).toEqual(['a', 'b']);
  });

  it('keeps empty lines in the middle and a lone newline as one empty line', () => {
    expect(splitLines('a\n\n\nb\n')).toEqual(['a', '', '', 'b']);
    expect(splitLines('\n')).toEqual(['']);
    expect(splitLines('')).toEqual([]);
  });

  it('keeps a lone carriage return inside a line', () => {
    expect(splitLines('a\rb\n')).toEqual(['a\rb']);
  });
});

describe('count', () => {
  it('pluralises unless the count is exactly one, with thousands separators', () => {
    expect(count(1, 'line')).toBe('1 line');
    expect(count(0, 'line')).toBe('0 lines');
    expect(count(12_345, 'match', 'matches')).toBe('12,345 matches');
    expect(count(1, 'match', 'matches')).toBe('1 match');
  });
});
