import type { SearchRegex } from './search-regex.js';
import type { TimeSlice } from './time-slice.js';

const NEWLINE = 0x0a;
const RETURN = 0x0d;

/** What {@link searchLines} went through. */
export interface LineSearchResult {
  /** Lines longer than the pattern's `lineBytes`, searched in their first `lineBytes` only. */
  readonly longLines: number;
  /** True when `onMatch` asked to stop. */
  readonly stopped: boolean;
}

/**
 * Calls `onMatch` with the number (from 1) and text of each line of UTF-8 `bytes` that `regex`
 * matches, until it returns false. Lines end at `\n` (a `\r` before it is dropped; a leading
 * byte-order mark is skipped). The search runs on the bytes themselves (RE2 reads UTF-8), so a
 * file costs no string per line — only a matching line is decoded, its first `showChars`
 * characters and one more (to tell it was longer) — and the event loop gets a turn whenever
 * `slice` is due.
 *
 * @example
 * ```ts
 * await searchLines(bytes, compileSearchRegex('TODO'), new TimeSlice(), 300, (n, text) => (hits.push(`${n}: ${text}`), true));
 * ```
 */
export async function searchLines(
  bytes: Uint8Array,
  regex: SearchRegex,
  slice: TimeSlice,
  showChars: number,
  onMatch: (line: number, text: string) => boolean,
): Promise<LineSearchResult> {
  const decoder = new TextDecoder('utf-8');
  // A character is at most 4 bytes: this window always holds showChars + 1 of them when the line does.
  const window = (showChars + 1) * 4;
  let longLines = 0;
  let line = 0;
  let at = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (at < bytes.length) {
    if (slice.due) await slice.next();
    let end = bytes.indexOf(NEWLINE, at);
    const next = end === -1 ? bytes.length : end + 1;
    if (end === -1) end = bytes.length;
    if (end > at && bytes[end - 1] === RETURN) end--;
    line++;
    const length = end - at;
    if (length > regex.lineBytes) longLines++;
    if (regex.test(bytes.subarray(at, at + Math.min(length, regex.lineBytes)))) {
      const text = decoder.decode(bytes.subarray(at, at + Math.min(length, window)));
      if (!onMatch(line, text)) return { longLines, stopped: true };
    }
    at = next;
  }
  return { longLines, stopped: false };
}
