/** Kinds of personal data and secrets the PII redaction recognises. */
export type PiiType = 'email' | 'phone' | 'card' | 'iban' | 'secret';

/** Every {@link PiiType}. */
export const PII_TYPES: readonly PiiType[] = ['email', 'phone', 'card', 'iban', 'secret'];

/** One piece of personal data found in a text. */
export interface PiiMatch {
  readonly type: PiiType;
  /** Offsets in the text searched: `text.slice(start, end) === value`. */
  readonly start: number;
  readonly end: number;
  readonly value: string;
}

// Every detector below decides from the match itself plus ONE character on each side (the
// boundary checks). The streaming redactor relies on this locality; see stream.ts.

const EMAIL = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![A-Za-z0-9-])/g;

/** Secrets with a well-known prefix. */
const KNOWN_SECRET = new RegExp(
  '(?<![A-Za-z0-9_-])(?:' +
    [
      'sk-[A-Za-z0-9_-]{20,}', // OpenAI (sk-..., sk-proj-...), Anthropic (sk-ant-...)
      'gh[pousr]_[A-Za-z0-9]{30,}', // GitHub tokens
      'github_pat_[A-Za-z0-9_]{30,}', // GitHub fine-grained tokens
      '(?:AKIA|ASIA)[A-Z0-9]{16}', // AWS access key ids
      'xox[abposr]-[A-Za-z0-9-]{10,}', // Slack tokens
      'AIza[A-Za-z0-9_-]{35}', // Google API keys
      '(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}', // Stripe secret and restricted keys
      'eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}', // JWTs
    ].join('|') +
    ')(?![A-Za-z0-9_-])',
  'g',
);

/** Long tokens, kept only when they look random (see {@link looksRandom}). */
const LONG_TOKEN = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])/g;

const IBAN_START = /(?<![A-Za-z0-9])[A-Z]{2}\d{2}/g;

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isWordChar = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_]/.test(c);
const isUpperAlnum = (c: string | undefined): boolean => c !== undefined && /[A-Z0-9]/.test(c);

/** Luhn checksum of a string of digits. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** ISO 13616 check of a compact, upper-case IBAN: the rearranged number mod 97 is 1. */
export function ibanValid(compact: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(compact)) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let rest = 0;
  for (const ch of rearranged) {
    const v = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of v) rest = (rest * 10 + (d.charCodeAt(0) - 48)) % 97;
  }
  return rest === 1;
}

/** Shannon entropy in bits per character. */
function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/**
 * Conservative test for a random-looking token: upper- and lower-case letters, at least two
 * digits, at least 4 bits of entropy per character, and not made of words (runs of five or more
 * letters of one case cover less than 35% of it). Identifiers, hex hashes, UUIDs and words
 * joined by `_` or `-` do not pass.
 */
function looksRandom(token: string): boolean {
  if (!/[a-z]/.test(token) || !/[A-Z]/.test(token)) return false;
  if ((token.match(/\d/g)?.length ?? 0) < 2) return false;
  const wordy = (token.match(/[a-z]{5,}|[A-Z]{5,}/g) ?? []).reduce((n, w) => n + w.length, 0);
  if (wordy >= 0.35 * token.length) return false;
  return entropy(token) >= 4;
}

function regexMatches(
  re: RegExp,
  type: PiiType,
  text: string,
  from: number,
  keep?: (value: string) => boolean,
): PiiMatch[] {
  const out: PiiMatch[] = [];
  re.lastIndex = from;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (!keep || keep(m[0])) out.push({ type, start: m.index, end: m.index + m[0].length, value: m[0] });
  }
  return out;
}

/**
 * IBANs, compact (`DE89370400440532013000`) or printed in groups of four
 * (`DE89 3704 0044 0532 0130 00`), upper case, with a valid mod-97 check. The longest valid
 * reading wins, so trailing words in capitals are not swallowed.
 */
function ibans(text: string, from: number): PiiMatch[] {
  const out: PiiMatch[] = [];
  IBAN_START.lastIndex = from;
  for (let m = IBAN_START.exec(text); m; m = IBAN_START.exec(text)) {
    const start = m.index;
    // Groups separated by single spaces; candidate ends after each group at a word boundary.
    const groups: string[] = [];
    const ends: number[] = [];
    let i = start;
    let length = 0;
    for (;;) {
      let j = i;
      while (isUpperAlnum(text[j])) j++;
      groups.push(text.slice(i, j));
      length += j - i;
      ends.push(isWordChar(text[j]) ? -1 : j);
      if (length > 34 || text[j] !== ' ' || !isUpperAlnum(text[j + 1])) break;
      i = j + 1;
    }
    for (let k = groups.length - 1; k >= 0; k--) {
      const end = ends[k]!;
      if (end < 0) continue;
      const shaped = k === 0 || (groups.slice(0, k).every((g) => g.length === 4) && groups[k]!.length <= 4);
      const compact = groups.slice(0, k + 1).join('');
      if (shaped && compact.length >= 15 && compact.length <= 34 && ibanValid(compact)) {
        out.push({ type: 'iban', start, end, value: text.slice(start, end) });
        IBAN_START.lastIndex = end;
        break;
      }
    }
  }
  return out;
}

/** What a run of digits (with its separators) is, if anything. */
function classifyNumber(run: string): 'card' | 'phone' | undefined {
  const digits = run.replace(/\D/g, '');
  if (digits.length >= 13 && digits.length <= 19 && /^[2-6]/.test(digits) && /^[\d -]+$/.test(run) && luhnValid(digits))
    return 'card';
  if (run.startsWith('+')) return digits.length >= 8 && digits.length <= 15 ? 'phone' : undefined;
  if (/^\(\d{3}\) ?\d{3}[-. ]\d{4}$/.test(run) || /^\d{3}([-. ])\d{3}\1\d{4}$/.test(run)) return 'phone';
  if (/^0/.test(digits) && digits.length >= 9 && digits.length <= 12 && /^[\d -]+$/.test(run) && /[ -]/.test(run))
    return 'phone';
  return undefined;
}

/**
 * Card numbers (13–19 digits starting with 2–6, spaces or dashes between groups, Luhn valid) and
 * phone numbers (`+` and 8–15 digits; `(415) 555-2671`, `415-555-2671`, `415.555.2671`,
 * `415 555 2671`; national numbers starting with 0, 9–12 digits, written with a space or dash).
 * Runs glued to letters (`ID4111...`, `4111...abc`) are not personal data.
 */
function numbers(text: string, from: number): PiiMatch[] {
  const out: PiiMatch[] = [];
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    const n1 = text[i + 1];
    const starts =
      isDigit(c) || (c === '+' && (isDigit(n1) || (n1 === '(' && isDigit(text[i + 2])))) || (c === '(' && isDigit(n1));
    if (!starts || isWordChar(text[i - 1]) || text[i - 1] === '+') continue;
    // Scan the run: groups of digits, optionally in parentheses, joined by one of " .-" or nothing after ")".
    const ends: number[] = [];
    let j = c === '+' ? i + 1 : i;
    let digits = 0;
    for (;;) {
      const paren = text[j] === '(';
      if (paren) j++;
      if (!isDigit(text[j])) break;
      while (isDigit(text[j])) {
        j++;
        digits++;
      }
      if (paren) {
        if (text[j] !== ')') break;
        j++;
      }
      if (digits > 19) break;
      if (!isWordChar(text[j])) ends.push(j);
      const sep = text[j];
      if (
        (sep === ' ' || sep === '-' || sep === '.') &&
        (isDigit(text[j + 1]) || (text[j + 1] === '(' && isDigit(text[j + 2])))
      )
        j++;
      else if (!(paren && isDigit(text[j]))) break;
    }
    for (let k = ends.length - 1; k >= 0; k--) {
      const end = ends[k]!;
      const type = classifyNumber(text.slice(i, end));
      if (type) {
        out.push({ type, start: i, end, value: text.slice(i, end) });
        i = end - 1;
        break;
      }
    }
  }
  return out;
}

/**
 * Finds personal data and secrets in `text`: e-mail addresses, phone numbers, card numbers
 * (Luhn checked), IBANs (mod-97 checked) and API-key-like secrets (known prefixes such as
 * `sk-`, `ghp_`, `AKIA`, `xoxb-`, `AIza`, JWTs, and long random-looking tokens). Overlaps are
 * resolved leftmost first, then longest. `from` starts the search later while still using the
 * characters before it as context (the streaming redactor's left context).
 *
 * @example
 * ```ts
 * detectPii('Mail jane@example.com, card 4111 1111 1111 1111.');
 * // [{ type: 'email', value: 'jane@example.com', ... }, { type: 'card', value: '4111 1111 1111 1111', ... }]
 * ```
 */
export function detectPii(text: string, types: ReadonlySet<PiiType> = new Set(PII_TYPES), from = 0): PiiMatch[] {
  const all: PiiMatch[] = [];
  if (types.has('email')) all.push(...regexMatches(EMAIL, 'email', text, from));
  if (types.has('secret')) {
    all.push(...regexMatches(KNOWN_SECRET, 'secret', text, from));
    all.push(...regexMatches(LONG_TOKEN, 'secret', text, from, looksRandom));
  }
  if (types.has('iban')) all.push(...ibans(text, from));
  if (types.has('card') || types.has('phone')) all.push(...numbers(text, from).filter((m) => types.has(m.type)));
  all.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: PiiMatch[] = [];
  let lastEnd = -1;
  for (const m of all) {
    if (m.start >= lastEnd) {
      out.push(m);
      lastEnd = m.end;
    }
  }
  return out;
}
