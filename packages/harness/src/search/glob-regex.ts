import { compileLinear, type PatternDescription } from './linear-regex.js';
import { PatternError } from './pattern-error.js';

/** Longest glob accepted, in characters. */
export const MAX_GLOB_CHARS = 1_000;
/** Longest path a glob is matched against (Linux's PATH_MAX; 4,096 × MAX_PROGRAM is within WORK_PER_CALL). */
const MAX_PATH_CHARS = 4_096;

/** What a refusal says is supported. */
export const GLOB_SUPPORT =
  'Globs support * (within a folder), ** (any folders), ?, [abc] [a-z] [!abc], {a,b} (nested too) and \\ to ' +
  'escape; not extglobs (+(…) @(…) !(…) *(…) ?(…)), negation (!x) or ranges ({1..9}). Example: "src/**/*.{ts,tsx}".';

const ABOUT: PatternDescription = { kind: 'glob', supported: GLOB_SUPPORT };

/** A glob compiled for matching paths, with where a crawl for it starts and how deep it goes. */
export interface CompiledGlob {
  /** Leading folders without wildcards (`src/lib` of `src/lib/**\/*.ts`), `''` for none. */
  readonly base: string;
  /** Folder levels below `base` a match can lie in (`Infinity` with `**`). */
  readonly depth: number;
  /** True when `path` (relative to the folder globbed, `/` separators) matches. */
  test(path: string): boolean;
}

const POSIX_CLASSES = new Set(['alnum', 'alpha', 'ascii', 'blank', 'cntrl', 'digit', 'graph', 'lower']);
['print', 'punct', 'space', 'upper', 'word', 'xdigit'].forEach((c) => POSIX_CLASSES.add(c));

const literal = (c: string): string => (/[A-Za-z0-9_/\- ]/.test(c) ? c : `\\${c}`);

/** Translates a glob to RE2 syntax by recursive descent (braces nest). */
class GlobTranslator {
  private i = 0;

  constructor(private readonly glob: string) {}

  translate(): string {
    if (this.glob.startsWith('!')) this.refuse('a negation', '!', 0, '; glob what you want instead');
    return this.sequence(false);
  }

  private refuse(what: string, construct: string, at: number, hint = ''): never {
    throw new PatternError(
      'pattern_unsupported',
      this.glob,
      `The glob has ${what} ("${construct}" at character ${at + 1}), which is not supported${hint}. ${GLOB_SUPPORT}`,
    );
  }

  /** Atoms up to the end, or (inside braces) up to an unnested `,` or `}`. */
  private sequence(inBraces: boolean): string {
    let out = '';
    while (this.i < this.glob.length) {
      const c = this.glob[this.i]!;
      if (inBraces && (c === ',' || c === '}')) break;
      out += this.atom();
    }
    return out;
  }

  private atom(): string {
    const g = this.glob;
    const c = g[this.i]!;
    if ('?*+@!'.includes(c) && g[this.i + 1] === '(')
      this.refuse('an extglob', `${c}(`, this.i, '; use {a,b} for alternatives');
    if (c === '\\') {
      const next = g[this.i + 1];
      this.i += next === undefined ? 1 : 2;
      return literal(next ?? '\\');
    }
    if (c === '*') return this.stars();
    if (c === '?') {
      this.i++;
      return '[^/]';
    }
    if (c === '[') return this.characterClass() ?? (this.i++, '\\[');
    if (c === '{') return this.braces() ?? (this.i++, '\\{');
    this.i++;
    return literal(c);
  }

  /** `*` is any name part; `**` as a whole path segment is any number of folders. */
  private stars(): string {
    const g = this.glob;
    const start = this.i;
    while (g[this.i] === '*') this.i++;
    const before = start === 0 ? '/' : g[start - 1]!;
    const after = this.i === g.length ? '' : g[this.i]!;
    if (this.i - start >= 2 && '/{,'.includes(before) && ['', '/', ',', '}'].includes(after)) {
      if (after !== '/') return '.*';
      this.i++;
      return '(?:[^/]*/)*';
    }
    return '[^/]*';
  }

  /** `[abc]`, `[a-z]`, `[!abc]` or `[^abc]`, `[[:alpha:]]`; undefined when never closed. */
  private characterClass(): string | undefined {
    const g = this.glob;
    let j = this.i + 1;
    const negated = g[j] === '!' || g[j] === '^';
    if (negated) j++;
    let body = '';
    for (let first = true; j < g.length; first = false) {
      const c = g[j]!;
      if (c === ']' && !first) {
        this.i = j + 1;
        return `[${negated ? '^/' : ''}${body}]`;
      }
      const posix = /^\[:([a-z]+):\]/.exec(g.slice(j, j + 10));
      if (posix) {
        if (!POSIX_CLASSES.has(posix[1]!)) this.refuse('an unknown class', posix[0], j);
        body += posix[0];
        j += posix[0].length;
      } else if (c === '\\' && j + 1 < g.length) {
        body += literal(g[j + 1]!);
        j += 2;
      } else {
        body += c === '-' ? '-' : literal(c);
        j++;
      }
    }
    return undefined;
  }

  /** `{a,b}` as an alternation; undefined when never closed; `{x}` stays literal. */
  private braces(): string | undefined {
    if (!this.closes(this.i)) return undefined;
    const open = this.i;
    this.i++;
    const alternatives: string[] = [];
    for (;;) {
      alternatives.push(this.sequence(true));
      const c = this.glob[this.i++];
      if (c === '}') break;
      if (c === undefined) {
        // The closing brace was inside a class (`{a,[}]`): the brace is a literal after all.
        this.i = open;
        return undefined;
      }
    }
    if (alternatives.length === 1) {
      const raw = this.glob.slice(open + 1, this.i - 1);
      if (/^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(\.\.-?\d+)?$/.test(raw)) {
        this.refuse('a range', `{${raw}}`, open, '; list the values instead, as in {1,2,3}');
      }
      return `\\{${alternatives[0]}\\}`;
    }
    return `(?:${alternatives.join('|')})`;
  }

  /** True when the `{` at `open` has its `}` (nesting and escapes counted). */
  private closes(open: number): boolean {
    let depth = 0;
    for (let j = open; j < this.glob.length; j++) {
      const c = this.glob[j];
      if (c === '\\') j++;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) return true;
    }
    return false;
  }
}

const MAGIC = /[*?[\]{}()!+@\\]/;

/**
 * Compiles a glob for matching workspace paths in linear time (RE2, never picomatch's
 * backtracking regular expressions: `*a*a*a*a*a*a*a*a*b` against a long name took picomatch
 * minutes). Dotfiles match `*` like any name. At most {@link MAX_GLOB_CHARS} characters. Throws a
 * {@link PatternError} naming what is not supported.
 *
 * @example
 * ```ts
 * const glob = compileGlob('src/**\/*.{ts,tsx}');
 * glob.base;                    // 'src': the crawl starts there
 * glob.test('src/app/main.tsx'); // true
 * ```
 */
export function compileGlob(pattern: string): CompiledGlob {
  if (pattern.length > MAX_GLOB_CHARS) {
    throw new PatternError(
      'pattern_too_long',
      pattern.slice(0, 80) + '…',
      `The glob is ${pattern.length.toLocaleString('en-US')} characters long; at most ${MAX_GLOB_CHARS.toLocaleString('en-US')} are allowed.`,
    );
  }
  const glob = pattern.replace(/^(?:\.\/)+/, '');
  const re = compileLinear(`^(?:${new GlobTranslator(glob).translate()})$`, pattern, ABOUT);
  const segments = glob.split('/');
  let fixed = 0;
  while (fixed < segments.length - 1 && !MAGIC.test(segments[fixed]!) && segments[fixed] !== '') fixed++;
  const rest = segments.slice(fixed).join('/');
  return {
    base: segments.slice(0, fixed).join('/'),
    depth: rest.includes('**') ? Infinity : (rest.match(/\//g) ?? []).length,
    test: (path) => path.length <= MAX_PATH_CHARS && re.test(path),
  };
}
