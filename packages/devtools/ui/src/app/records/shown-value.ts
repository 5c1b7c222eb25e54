/**
 * A recorded value as the page shows it. The recorder replaces a string over its limit with
 * `{ $truncated: true, size, head }`; the page shows the head and says how big the original was,
 * so a huge tool output never floods the page.
 */
export interface ShownValue {
  /** The text to show (the head only, for a truncated string). */
  readonly text: string;
  /** The original size in bytes when the recorder truncated the value (somewhere inside it). */
  readonly truncatedSize?: number;
}

/** The marker the recorder puts in place of a string over its `maxStringLength`. */
export interface TruncatedMarker {
  readonly $truncated: true;
  readonly size: number;
  readonly head: string;
}

/** Whether a recorded value is the recorder's truncation marker. */
export function isTruncated(value: unknown): value is TruncatedMarker {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { $truncated?: unknown }).$truncated === true &&
    typeof (value as { size?: unknown }).size === 'number'
  );
}

/** Byte count as people read it: `812 B`, `12.3 kB`, `4.1 MB`. */
export function formatBytes(size: number): string {
  if (size < 1000) return `${size} B`;
  if (size < 1_000_000) return `${(size / 1000).toFixed(1)} kB`;
  return `${(size / 1_000_000).toFixed(1)} MB`;
}

/** The sum of the sizes of every truncation marker inside a value (0 when none). */
function truncatedBytes(value: unknown, depth = 0): number {
  if (isTruncated(value)) return value.size;
  if (depth > 20 || typeof value !== 'object' || value === null) return 0;
  let sum = 0;
  for (const v of Array.isArray(value) ? value : Object.values(value)) sum += truncatedBytes(v, depth + 1);
  return sum;
}

/** A truncation marker inside JSON becomes its head followed by a note, so the JSON stays readable. */
function replaceMarkers(_key: string, value: unknown): unknown {
  return isTruncated(value) ? `${value.head}… [truncated, ${formatBytes(value.size)}]` : value;
}

/**
 * Shows a recorded value: a string as it is, a truncated string as its head, anything else as
 * indented JSON (with every truncated string inside shown as its head and size).
 *
 * @example
 * ```ts
 * showValue({ $truncated: true, size: 2_000_000, head: 'abc' }); // { text: 'abc…', truncatedSize: 2000000 }
 * ```
 */
export function showValue(value: unknown): ShownValue {
  if (value === undefined) return { text: '' };
  if (typeof value === 'string') return { text: value };
  if (isTruncated(value)) return { text: `${value.head}…`, truncatedSize: value.size };
  const text = JSON.stringify(value, replaceMarkers, 2) ?? typeof value; // a function or a symbol
  const size = truncatedBytes(value);
  return size > 0 ? { text, truncatedSize: size } : { text };
}

/**
 * Joins recorded string pieces (tool-call argument deltas, result deltas, text blocks), any of
 * which may be a truncation marker.
 */
export function joinPieces(pieces: readonly unknown[]): ShownValue {
  let text = '';
  let size = 0;
  let truncated = false;
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      text += piece;
      size += new TextEncoder().encode(piece).length;
    } else if (isTruncated(piece)) {
      text += `${piece.head}…`;
      size += piece.size;
      truncated = true;
    }
  }
  return truncated ? { text, truncatedSize: size } : { text };
}
