import { OptionsError, type OptionsErrorCode } from './options-error.js';

/**
 * Every key of an options type, each `true`: a record the compiler checks against the type, so
 * adding an option to the type without listing it (or listing one the type does not have) fails
 * to compile. Give it to {@link optionKeys}.
 *
 * @example
 * ```ts
 * const KEYS: OptionKeyRecord<{ a?: number; b: string }> = { a: true, b: true };
 * ```
 */
export type OptionKeyRecord<T> = { readonly [K in keyof Required<T>]: true };

/**
 * The keys of an options type as a list, checked by the compiler against the type (see
 * {@link OptionKeyRecord}): the list {@link checkOptionKeys} compares a user's object with.
 *
 * @example
 * ```ts
 * interface GreeterOptions { readonly greeting?: string; readonly name: string }
 * const GREETER_KEYS = optionKeys<GreeterOptions>({ greeting: true, name: true });
 * // GREETER_KEYS: readonly ('greeting' | 'name')[]
 * ```
 */
export function optionKeys<T>(keys: OptionKeyRecord<T>): readonly (keyof T & string)[] {
  return Object.keys(keys) as (keyof T & string)[];
}

// Names other frameworks (LangChain, the AI SDK, OpenAI Agents, LangGraph) use for what rxscope
// calls otherwise. Applied only where the rxscope key is one the refused object knows.
const FOREIGN: Readonly<Record<string, readonly string[]>> = {
  systemPrompt: ['sysPrompt'],
  system: ['sysPrompt'],
  instructions: ['sysPrompt'],
  systemMessage: ['sysPrompt'],
  maxSteps: ['maxIters'],
  maxTurns: ['maxIters'],
  maxIterations: ['maxIters'],
  recursionLimit: ['maxIters'],
  stopWhen: ['maxIters'],
  baseUrl: ['baseURL', 'baseUrl'],
  baseURL: ['baseUrl', 'baseURL'],
  basePath: ['baseURL', 'baseUrl'],
  modelName: ['model'],
  openAIApiKey: ['apiKey'],
  inputSchema: ['input'],
  schema: ['input'],
  parameters: ['input'],
  argsSchema: ['input'],
  func: ['execute'],
  fn: ['execute'],
  handler: ['execute'],
  outputSchema: ['output'],
  retries: ['maxRetries'],
};

/** Edit distance of two short strings (option names), case-insensitive. */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[y.length]!;
}

/**
 * The known option closest to a refused `key`, when it is close enough to be a slip
 * (`maxRetry` → `maxRetries`), else `undefined`.
 *
 * @example
 * ```ts
 * closestOption('maxRetry', ['maxRetries', 'initialDelayMs']); // 'maxRetries'
 * closestOption('colour', ['maxRetries']); // undefined
 * ```
 */
export function closestOption(key: string, known: Iterable<string>): string | undefined {
  let best: { key: string; d: number } | undefined;
  for (const k of known) {
    const d = distance(key, k);
    if (!best || d < best.d) best = { key: k, d };
  }
  return best && best.d <= Math.max(2, Math.ceil(key.length / 3)) ? best.key : undefined;
}

/** How {@link checkOptionKeys} words and throws a refusal. */
export interface CheckOptionKeysOptions {
  /**
   * Other frameworks' names for this object's options, as `{ theirName: 'rxscopeKey' }`, added
   * to the common ones (`systemPrompt`/`instructions` → `sysPrompt`, `maxSteps` → `maxIters`,
   * `baseUrl` ↔ `baseURL`, `inputSchema`/`schema` → `input`, `func` → `execute`, ...).
   */
  readonly foreign?: Readonly<Record<string, string>>;
  /**
   * Builds the error thrown, for a package that keeps an error class of its own (callers branch
   * on it). Default: an {@link OptionsError}.
   */
  readonly error?: (code: OptionsErrorCode, option: string, message: string) => Error;
}

function what(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return `${value}`;
  return typeof value === 'function' ? 'a function' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The rxscope key a foreign spelling stands for, when the refused object knows it. */
function foreignHint(key: string, known: readonly string[], extra?: Readonly<Record<string, string>>) {
  // Own keys only: a refused key may be "constructor" or "toString".
  const own = (table: object | undefined) => table !== undefined && Object.prototype.hasOwnProperty.call(table, key);
  const targets = [...(own(extra) ? [extra![key]!] : []), ...(own(FOREIGN) ? FOREIGN[key]! : [])];
  return targets.find((t) => known.includes(t) && t !== key);
}

/**
 * Refuses an options object that is not an object, or that has a key `known` does not list:
 * a misspelt option would otherwise be ignored silently and a default kept (or a request sent
 * to the wrong server). The message names the owner and the key, suggests the closest known key
 * ("did you mean") or the rxscope spelling of another framework's name, and lists the known
 * keys. `undefined` options and keys whose value is `undefined` count as absent. Throws an
 * {@link OptionsError} (`code` `unknown_option` or `invalid_option`), or what `how.error` builds.
 *
 * Give `known` from {@link optionKeys}, so the list cannot fall behind the options type.
 *
 * @example
 * ```ts
 * const KEYS = optionKeys<GreeterOptions>({ greeting: true, name: true });
 * class Greeter {
 *   constructor(options: GreeterOptions) {
 *     checkOptionKeys('Greeter', options, KEYS);
 *   }
 * }
 * new Greeter({ name: 'x', greetng: 'hi' } as never);
 * // OptionsError (unknown_option): unknown option "greetng" of Greeter; did you mean "greeting"? Known: greeting, name.
 * checkOptionKeys('OpenAIChatModel', { baseUrl: 'http://x' }, ['model', 'baseURL']);
 * // … unknown option "baseUrl" of OpenAIChatModel; did you mean "baseURL"? (…other frameworks' name…) …
 * ```
 */
export function checkOptionKeys(
  owner: string,
  options: unknown,
  known: readonly string[],
  how: CheckOptionKeysOptions = {},
): void {
  if (options === undefined) return;
  const fail = how.error ?? ((code, option, message) => new OptionsError(code, option, message));
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw fail(
      'invalid_option',
      owner,
      `The options of ${owner} must be an object (${known.join(', ')}), got ${what(options)}.`,
    );
  }
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined || known.includes(key)) continue;
    const foreign = foreignHint(key, known, how.foreign);
    const guess = foreign ?? closestOption(key, known);
    const hint = foreign
      ? `; did you mean "${foreign}"? ("${key}" is another framework's name for it)`
      : guess
        ? `; did you mean "${guess}"?`
        : '.';
    throw fail(
      'unknown_option',
      `${owner}.${key}`,
      `unknown option "${key}" of ${owner}${hint} Known: ${known.join(', ')}.`,
    );
  }
}
