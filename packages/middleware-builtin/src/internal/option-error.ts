import { RxscopeError } from '@rxscope/core';

/**
 * A middleware's options refused at construction (code `invalid_option`), or a value refused at
 * run time with its own code (`unpriced_model`, `unknown_currency`).
 */
export class MiddlewareOptionError extends RxscopeError {
  override readonly name = 'MiddlewareOptionError';
  constructor(
    message: string,
    readonly code: string = 'invalid_option',
  ) {
    super(message);
  }
}

/** Refuses keys of `options` that are not in `known`, suggesting the closest known one. */
export function checkKeys(owner: string, options: object, known: readonly string[]): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const near = closest(key, known);
    throw new MiddlewareOptionError(
      `${owner}: unknown option "${key}"${near ? ` (did you mean "${near}"?)` : ''}; known options: ${known.join(', ')}.`,
    );
  }
}

/** The known name closest to `name` (edit distance at most a third of its length), if any. */
function closest(name: string, known: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const k of known) {
    const d = distance(name.toLowerCase(), k.toLowerCase());
    if (d <= Math.max(1, Math.floor(k.length / 3)) && (!best || d < best.d)) best = { name: k, d };
  }
  return best?.name;
}

function distance(a: string, b: string): number {
  if (a.length > 64 || b.length > 64) return Infinity; // bounded: option names are short
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** Checks a money amount: a finite number >= 0, or `undefined`. */
export function checkAmount(owner: string, name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new MiddlewareOptionError(
      `${owner}: ${name} must be a finite amount >= 0, got ${typeof value === 'number' ? String(value) : JSON.stringify(value)}.`,
    );
  return value;
}
