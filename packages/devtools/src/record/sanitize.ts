/**
 * How {@link sanitize} treats a value.
 *
 * @example
 * ```ts
 * const options: SanitizeOptions = { maxStringLength: 4096 };
 * ```
 */
export interface SanitizeOptions {
  /** Strings longer than this (in characters) are kept as `{ $truncated, size, head }`. */
  readonly maxStringLength: number;
}

/**
 * A value made safe to keep and to send: its copy, its approximate size, and why it was malformed.
 *
 * @example
 * ```ts
 * const { value, bytes, flag }: Sanitized = sanitize(event, { maxStringLength: 4096 });
 * ```
 */
export interface Sanitized {
  readonly value: unknown;
  /** Approximate size in bytes of the kept copy (what the recorder's byte bound counts). */
  readonly bytes: number;
  /** Set when something in the value was not plain JSON (a cycle, a function, a bigint, too deep). */
  readonly flag?: string;
}

const MAX_DEPTH = 24;
const HEAD_CHARS = 256;
// Field names whose value is a credential: never kept, whatever it holds.
const SECRET_FIELD =
  /^(api[-_]?key|x-api-key|authorization|proxy-authorization|password|passwd|secret|client[-_]?secret|token|access[-_]?token|refresh[-_]?token|id[-_]?token|session[-_]?token|cookie|set-cookie|private[-_]?key)$/i;
// Strings that look like a key or a bearer credential, wherever they appear.
const SECRET_VALUE =
  /\b(?:sk-[A-Za-z0-9_-]{16,}|sk_(?:live|test)_[A-Za-z0-9]{16,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{30,}|xox[abposr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{30,})|\bBearer\s+[A-Za-z0-9._~+/-]{12,}=*/g;

/**
 * The marker a credential (and, by default, a model request's messages) is replaced with.
 *
 * @example
 * ```ts
 * const hidden = (v: unknown) => JSON.stringify(v) === JSON.stringify(REDACTED);
 * ```
 */
export const REDACTED = Object.freeze({ $redacted: true });

/** UTF-8 length of a string without allocating (the recorder runs in the agent's hot path). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

// Event fields that never hold a secret nor a long text: copied as they are (the hot path).
const PLAIN_FIELDS = new Set([
  'type',
  'id',
  'replyId',
  'source',
  'createdAt',
  'blockId',
  'toolCallId',
  'name',
  'status',
]);
// Field names seen so far, and whether they name a credential (a handful of names, tested once each).
const secretField = new Map<string, boolean>();
function isSecretField(key: string): boolean {
  let known = secretField.get(key);
  if (known === undefined) {
    known = SECRET_FIELD.test(key);
    if (secretField.size < 10_000) secretField.set(key, known);
  }
  return known;
}
// Cheap pre-test: a key-like value contains one of these; only then does SECRET_VALUE run.
const MAYBE_SECRET = /sk[-_]|AKIA|gh[pousr]_|xox[abposr]-|AIza|Bearer/;

/** What one walk collects: why the value was malformed, and the objects being walked (cycles). */
interface Walk {
  readonly options: SanitizeOptions;
  flags: string[] | undefined;
  readonly ancestors: object[];
  bytes: number;
}

function flag(w: Walk, why: string): void {
  (w.flags ??= []).push(why);
}

function keepString(s: string, w: Walk): unknown {
  if (s.length > w.options.maxStringLength) {
    // Masked before it is cut, so that a key across the cut cannot leave in part.
    const n = Math.min(HEAD_CHARS, w.options.maxStringLength);
    const head = s
      .slice(0, n + 128)
      .replace(SECRET_VALUE, '[redacted]')
      .slice(0, n);
    w.bytes += head.length + 40;
    return { $truncated: true, size: utf8Length(s), head };
  }
  const clean = s.length >= 12 && MAYBE_SECRET.test(s) ? s.replace(SECRET_VALUE, '[redacted]') : s;
  w.bytes += clean.length + 2;
  return clean;
}

function walk(v: unknown, depth: number, w: Walk): unknown {
  switch (typeof v) {
    case 'string':
      return keepString(v, w);
    case 'number':
    case 'boolean':
      w.bytes += 8;
      return v;
    case 'undefined':
      return undefined;
    case 'bigint':
      flag(w, 'a bigint (not JSON)');
      w.bytes += 16;
      return `${v}n`;
    case 'function':
    case 'symbol':
      flag(w, `a ${typeof v} (not JSON)`);
      w.bytes += 12;
      return `[${typeof v}]`;
  }
  if (v === null) {
    w.bytes += 4;
    return null;
  }
  const obj = v as object;
  if (w.ancestors.includes(obj)) {
    flag(w, 'a circular reference');
    w.bytes += 10;
    return '[circular]';
  }
  if (depth >= MAX_DEPTH) {
    flag(w, `nested deeper than ${MAX_DEPTH} levels`);
    w.bytes += 10;
    return '[too deep]';
  }
  if (obj instanceof Date) {
    w.bytes += 26;
    return obj.toISOString();
  }
  w.ancestors.push(obj);
  try {
    w.bytes += 2;
    if (Array.isArray(obj)) {
      const out: unknown[] = [];
      for (const item of obj) {
        out.push(walk(item, depth + 1, w));
        w.bytes += 1;
      }
      return out;
    }
    const out: Record<string, unknown> = {};
    for (const key in obj) {
      if (!Object.prototype.hasOwnProperty.call(obj, key)) continue;
      const item = (obj as Record<string, unknown>)[key];
      w.bytes += key.length + 4;
      if (PLAIN_FIELDS.has(key) && (typeof item === 'number' || (typeof item === 'string' && item.length <= 256))) {
        out[key] = item;
        w.bytes += typeof item === 'string' ? item.length : 8;
        continue;
      }
      if (item !== undefined && item !== null && item !== '' && isSecretField(key)) {
        out[key] = REDACTED;
        w.bytes += 16;
        continue;
      }
      const kept = walk(item, depth + 1, w);
      if (kept !== undefined) out[key] = kept;
    }
    return out;
  } catch (e) {
    // A getter that throws: the value is kept as what could be read.
    flag(w, `a field that cannot be read (${e instanceof Error ? e.message : String(e)})`);
    return '[unreadable]';
  } finally {
    w.ancestors.pop();
  }
}

/**
 * The size of an object that needs no copy (the common event: a delta, a block start): own
 * fields of numbers, booleans and short strings without anything key-like, no credential field
 * name. -1 when it needs the walk. Keeping such an event as it is saves a copy per event.
 */
function flatBytes(obj: object, options: SanitizeOptions): number {
  if (Object.getPrototypeOf(obj) !== Object.prototype) return -1;
  let bytes = 2;
  for (const key in obj) {
    const item = (obj as Record<string, unknown>)[key];
    if (typeof item === 'string') {
      if (item.length > options.maxStringLength || (item.length >= 12 && MAYBE_SECRET.test(item))) return -1;
      bytes += item.length + 2;
    } else if (typeof item === 'number' || typeof item === 'boolean') bytes += 8;
    else if (item !== undefined) return -1;
    if (!PLAIN_FIELDS.has(key) && isSecretField(key)) return -1;
    bytes += key.length + 4;
  }
  return bytes;
}

/**
 * A copy of `value` that is safe to keep and to send to the devtools page: fields named like a
 * credential (`apiKey`, `authorization`, `token`, ...) replaced by `{ $redacted: true }`,
 * key-like strings (`sk-...`, `Bearer ...`) masked, strings over `maxStringLength` truncated to
 * `{ $truncated: true, size, head }` (size in UTF-8 bytes), and what is not JSON (cycles,
 * functions, bigints, symbols, nesting past 24 levels) replaced and reported in `flag`. Never
 * throws. A flat object that needs none of this (most events) is kept as it is, not copied:
 * events are immutable.
 *
 * @example
 * ```ts
 * sanitize({ apiKey: 'sk-…', text: 'x'.repeat(10_000) }, { maxStringLength: 1000 }).value;
 * // { apiKey: { $redacted: true }, text: { $truncated: true, size: 10000, head: 'xxx…' } }
 * ```
 */
export function sanitize(value: unknown, options: SanitizeOptions): Sanitized {
  let flat = -1;
  try {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) flat = flatBytes(value, options);
  } catch {
    // a getter that throws: the walk below reports it
  }
  if (flat >= 0) return { value, bytes: flat };
  const w: Walk = { options, flags: undefined, ancestors: [], bytes: 0 };
  const kept = walk(value, 0, w);
  return w.flags
    ? { value: kept, bytes: w.bytes, flag: [...new Set(w.flags)].join('; ') }
    : { value: kept, bytes: w.bytes };
}
