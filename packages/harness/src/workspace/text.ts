/** True when the bytes look like a binary file: a NUL byte, or not UTF-8, in the first 8 KB. */
export function looksBinary(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) return true;
  try {
    // stream: true, so a character cut at the 8 KB boundary is not taken for bad UTF-8.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return false;
  } catch {
    return true;
  }
}

/** UTF-8 text of bytes (invalid sequences replaced). */
export function decodeText(bytes: Uint8Array): string {
  return new TextDecoder('utf-8').decode(bytes);
}

/** Splits text into lines (a final newline does not start an empty line). */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** `n` with a noun, pluralised: `count(3, 'line')` is `'3 lines'`. */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? noun : plural}`;
}
