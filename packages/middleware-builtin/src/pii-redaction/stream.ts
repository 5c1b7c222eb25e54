import { detectPii, PII_TYPES, type PiiMatch, type PiiType } from './detect.js';
import { sha256Hex } from './sha256.js';

/**
 * What to do with one kind of personal data: replace it with a label (`mask`), with a stable
 * salted hash (`hash`), refuse the content (`block`), leave it (`off`), or compute the
 * replacement yourself.
 */
export type PiiStrategy = 'mask' | 'hash' | 'block' | 'off' | ((match: PiiMatch) => string);

const LABEL: Record<PiiType, string> = { email: 'EMAIL', phone: 'PHONE', card: 'CARD', iban: 'IBAN', secret: 'SECRET' };
const NOUN: Record<PiiType, string> = {
  email: 'an e-mail address',
  phone: 'a phone number',
  card: 'a card number',
  iban: 'an IBAN',
  secret: 'a secret (API key or token)',
};

/** Result of redacting a piece of text. */
export interface Redacted {
  readonly text: string;
  /** Number of replacements made. */
  readonly count: number;
  /** The first match whose strategy is `block`; `text` then ends right before it. */
  readonly blocked?: PiiMatch;
}

/**
 * A compiled redaction policy: which types to look for and how to replace each.
 *
 * @internal
 */
export class RedactionPolicy {
  readonly types: ReadonlySet<PiiType>;
  private readonly strategies: Readonly<Record<PiiType, PiiStrategy>>;

  constructor(
    strategies: Partial<Record<PiiType, PiiStrategy>>,
    private readonly hashSalt: string,
  ) {
    const all = {} as Record<PiiType, PiiStrategy>;
    for (const t of PII_TYPES) all[t] = strategies[t] ?? 'mask';
    this.strategies = all;
    this.types = new Set(PII_TYPES.filter((t) => all[t] !== 'off'));
  }

  /** What was found, in words (`a card number`). */
  describe(match: PiiMatch): string {
    return NOUN[match.type];
  }

  /** The replacement of blocked content in a request (`[removed: contained a card number]`). */
  notice(match: PiiMatch): string {
    return `[removed: contained ${NOUN[match.type]}]`;
  }

  isBlocked(match: PiiMatch): boolean {
    return this.strategies[match.type] === 'block';
  }

  replacement(match: PiiMatch): string {
    const strategy = this.strategies[match.type];
    if (typeof strategy === 'function') return strategy(match);
    if (strategy === 'hash')
      return `[${LABEL[match.type]}:${sha256Hex(`${this.hashSalt}${normalize(match)}`).slice(0, 12)}]`;
    if (match.type === 'card') return `****${match.value.replace(/\D/g, '').slice(-4)}`;
    return `[${LABEL[match.type]}]`;
  }

  /**
   * Replaces the matches of `text` that lie in `[from, to)` (all of them must), stopping at the
   * first blocked one.
   */
  render(text: string, from: number, to: number, matches: readonly PiiMatch[]): Redacted {
    let out = '';
    let at = from;
    let count = 0;
    for (const m of matches) {
      if (m.start < from || m.end > to) continue;
      out += text.slice(at, m.start);
      if (this.isBlocked(m)) return { text: out, count, blocked: m };
      out += this.replacement(m);
      count++;
      at = m.end;
    }
    return { text: out + text.slice(at, to), count };
  }

  /** Redacts a complete text. */
  redact(text: string): Redacted {
    if (!this.types.size || !text) return { text, count: 0 };
    return this.render(text, 0, text.length, detectPii(text, this.types));
  }
}

/** The form a value is hashed in, so that `Jane@Example.com`/`jane@example.com` and spacing variants agree. */
function normalize(match: PiiMatch): string {
  switch (match.type) {
    case 'email':
      return `email:${match.value.toLowerCase()}`;
    case 'phone':
      return `phone:${match.value.startsWith('+') ? '+' : ''}${match.value.replace(/\D/g, '')}`;
    case 'card':
      return `card:${match.value.replace(/\D/g, '')}`;
    case 'iban':
      return `iban:${match.value.replace(/ /g, '')}`;
    case 'secret':
      return `secret:${match.value}`;
  }
}

const WORD_CHAR = /[\w.%+@-]/;
const NUMBER_CHAR = /[\d ().+-]/;
const IBAN_CHAR = /[A-Z0-9 ]/;
/** Raw characters kept before the pending text: the detectors look one character back. */
const CONTEXT = 4;

/**
 * Start of the shortest tail of `text` (not before `from`) that could still change: the start of
 * a possible match that is unfinished, or finished but extensible, or whose right boundary is
 * not known yet. Everything before it is final, whatever text follows. Conservative (it may hold
 * a little more than needed, never less):
 * - a trailing run of word characters (`[\w.%+@-]`): e-mail addresses, secrets, compact IBANs
 *   and numbers, all of which cannot contain other characters;
 * - a trailing run of digits with separators (`[\d ().+-]`), from the first position a number
 *   may start at, while it has at most 19 digits (the longest card number);
 * - a trailing run of `[A-Z0-9 ]` from an IBAN start (`DE89`), while at most 34 characters long
 *   without spaces (the longest IBAN).
 */
function liveStart(text: string, from: number): number {
  const n = text.length;
  let i = n;
  while (i > from && WORD_CHAR.test(text[i - 1]!)) i--;
  let live = i;

  i = n;
  while (i > from && NUMBER_CHAR.test(text[i - 1]!)) i--;
  for (let p = i; p < live; p++) {
    const c = text[p]!;
    if (!/[\d+(]/.test(c) || /\w|\+/.test(text[p - 1] ?? '')) continue;
    if ((text.slice(p).match(/\d/g)?.length ?? 0) <= 19) {
      live = p;
      break;
    }
  }

  i = n;
  while (i > from && IBAN_CHAR.test(text[i - 1]!)) i--;
  for (let p = i; p + 4 <= n && p < live; p++) {
    if (!/^[A-Z]{2}\d{2}/.test(text.slice(p, p + 4)) || /[A-Za-z0-9]/.test(text[p - 1] ?? '')) continue;
    if (text.slice(p).replace(/ /g, '').length <= 34) {
      live = p;
      break;
    }
  }
  return live;
}

/**
 * Redacts a text that arrives in pieces (the deltas of one block) so that the pieces it returns
 * concatenate to exactly what {@link RedactionPolicy.redact} makes of the whole text, however the
 * text was split. It holds back only the tail that could still turn out to be (part of) a match
 * (see {@link liveStart}), and releases it when the block ends (`flush`). A tail longer than
 * `maxHold` characters is released anyway, redacted as far as it can be judged at that point.
 *
 * @internal
 */
export class StreamRedactor {
  private pending = '';
  private context = '';
  private stopped = false;

  constructor(
    private readonly policy: RedactionPolicy,
    private readonly maxHold: number,
  ) {}

  /** Adds a piece; returns the redacted text that is final now (possibly empty). */
  push(delta: string): Redacted {
    if (this.stopped) return { text: '', count: 0 };
    this.pending += delta;
    return this.release(false);
  }

  /** The block ended: returns everything still held, redacted. */
  flush(): Redacted {
    if (this.stopped) return { text: '', count: 0 };
    const out = this.release(true);
    this.stopped = true;
    return out;
  }

  private release(all: boolean): Redacted {
    const text = this.context + this.pending;
    const from = this.context.length;
    const matches = detectPii(text, this.policy.types, from);
    let cut = all ? text.length : liveStart(text, from);
    if (text.length - cut > this.maxHold) cut = text.length;
    for (const m of matches) if (m.start < cut && m.end > cut) cut = m.start;
    if (cut === from) return { text: '', count: 0 };
    const out = this.policy.render(text, from, cut, matches);
    if (out.blocked) this.stopped = true;
    this.context = text.slice(Math.max(0, cut - CONTEXT), cut);
    this.pending = text.slice(cut);
    return out;
  }
}
