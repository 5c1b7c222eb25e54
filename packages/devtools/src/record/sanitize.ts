/** How {@link sanitize} treats a value. */
export interface SanitizeOptions {
  /** Strings longer than this (in characters) are kept as `{ $truncated, size, head }`. */
  readonly maxStringLength: number;
}

/** A value made safe to keep and to send: its copy, its approximate size, and why it was malformed. */
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

/** The marker a credential is replaced with. */
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

function keepString(s: string, options: SanitizeOptions): { value: unknown; bytes: number } {
  if (s.length > options.maxStringLength) {
    const head = s.slice(0, Math.min(HEAD_CHARS, options.maxStringLength)).replace(SECRET_VALUE, '[redacted]');
    return { value: { $truncated: true, size: utf8Length(s), head }, bytes: head.length + 40 };
  }
  SECRET_VALUE.lastIndex = 0;
  const clean = SECRET_VALUE.test(s) ? s.replace(SECRET_VALUE, '[redacted]') : s;
  return { value: clean, bytes: clean.length + 2 };
}

/**
 * A copy of `value` that is safe to keep and to send to the devtools page: fields named like a
 * credential (`apiKey`, `authorization`, `token`, ...) replaced by `{ $redacted: true }`,
 * key-like strings (`sk-...`, `Bearer ...`) masked, strings over `maxStringLength` truncated to
 * `{ $truncated: true, size, head }` (size in UTF-8 bytes), and what is not JSON (cycles,
 * functions, bigints, symbols, nesting past 24 levels) replaced and reported in `flag`. Never
 * throws.
 *
 * @example
 * ```ts
 * sanitize({ apiKey: 'sk-…', text: 'x'.repeat(10_000) }, { maxStringLength: 1000 }).value;
 * // { apiKey: { $redacted: true }, text: { $truncated: true, size: 10000, head: 'xxx…' } }
 * ```
 */
export function sanitize(value: unknown, options: SanitizeOptions): Sanitized {
  const flags: string[] = [];
  const ancestors: object[] = [];
  const walk = (v: unknown, depth: number): { value: unknown; bytes: number } => {
    switch (typeof v) {
      case 'string':
        return keepString(v, options);
      case 'number':
      case 'boolean':
        return { value: v, bytes: 8 };
      case 'undefined':
        return { value: undefined, bytes: 0 };
      case 'bigint':
        flags.push('a bigint (not JSON)');
        return { value: `${v}n`, bytes: 16 };
      case 'function':
      case 'symbol':
        flags.push(`a ${typeof v} (not JSON)`);
        return { value: `[${typeof v}]`, bytes: 12 };
    }
    if (v === null) return { value: null, bytes: 4 };
    const obj = v as object;
    if (ancestors.includes(obj)) {
      flags.push('a circular reference');
      return { value: '[circular]', bytes: 10 };
    }
    if (depth >= MAX_DEPTH) {
      flags.push(`nested deeper than ${MAX_DEPTH} levels`);
      return { value: '[too deep]', bytes: 10 };
    }
    if (obj instanceof Date) return { value: obj.toISOString(), bytes: 26 };
    ancestors.push(obj);
    try {
      let bytes = 2;
      if (Array.isArray(obj)) {
        const out: unknown[] = [];
        for (const item of obj) {
          const kept = walk(item, depth + 1);
          out.push(kept.value);
          bytes += kept.bytes + 1;
        }
        return { value: out, bytes };
      }
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(obj)) {
        const item = (obj as Record<string, unknown>)[key];
        if (SECRET_FIELD.test(key) && item !== undefined && item !== null && item !== '') {
          out[key] = REDACTED;
          bytes += key.length + 20;
          continue;
        }
        const kept = walk(item, depth + 1);
        if (kept.value === undefined) continue;
        out[key] = kept.value;
        bytes += key.length + kept.bytes + 4;
      }
      return { value: out, bytes };
    } catch (e) {
      // A getter that throws: the value is kept as what could be read.
      flags.push(`a field that cannot be read (${e instanceof Error ? e.message : String(e)})`);
      return { value: '[unreadable]', bytes: 12 };
    } finally {
      ancestors.pop();
    }
  };
  const kept = walk(value, 0);
  return flags.length ? { ...kept, flag: [...new Set(flags)].join('; ') } : kept;
}
