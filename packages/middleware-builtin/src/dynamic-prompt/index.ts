/**
 * `DynamicPromptMiddleware`: appends computed sections to the system prompt, recomputed at
 * every reasoning step (the core runs `onSystemPrompt` once per step). Built in: the current
 * time, in a time zone of your choice. Your own sections take a `value` that is a string, a
 * function (sync, async, or returning an Observable; it receives the reply's context), or an
 * Observable.
 *
 * Observables give their **latest** value: a `BehaviorSubject`, a `ReplaySubject(1)`, a
 * `shareReplay(1)` stream or a store selector answer at once, and one that never completes is
 * fine (the middleware takes one value and unsubscribes). A source that has no value within
 * `timeoutMs` (default 2000 ms; a never-emitted `Subject`, a slow request), or completes
 * without one, or gives an empty string, leaves its section out: the step never hangs. A source
 * that fails fails the reasoning step, like any `onSystemPrompt` error; wrap the middleware in
 * `resilient(...)` to run without it instead.
 *
 * Sections are evaluated in parallel and appended in order (time first) as
 * `## <title>\n<value>`, separated from the prompt and each other by a blank line.
 *
 * @example
 * ```ts
 * const profile$ = new BehaviorSubject({ name: 'Ada', language: 'English' });
 * new DynamicPromptMiddleware({
 *   currentTime: { timeZone: 'Europe/Berlin' },
 *   sections: [
 *     { title: 'User', value: profile$.pipe(map((p) => `${p.name}; answer in ${p.language}.`)) },
 *     { title: 'Open tickets', value: async (ctx) => (await tickets.open(ctx.sessionId)).join('\n') },
 *   ],
 * });
 * ```
 *
 * @module
 */
import { checkOptionKeys, optionKeys } from '@rxscope/core';
import {
  catchError,
  defaultIfEmpty,
  defer,
  EMPTY,
  forkJoin,
  from,
  isObservable,
  map,
  type Observable,
  of,
  take,
  timeout,
} from 'rxjs';
import type { AgentHandle, Middleware, RuntimeContext } from '@rxscope/core';

/** What a section's value may be. */
export type PromptSectionValue =
  string | Observable<string> | ((ctx: RuntimeContext) => string | PromiseLike<string> | Observable<string>);

/** One computed section of the system prompt. */
export interface PromptSection {
  readonly title: string;
  readonly value: PromptSectionValue;
  /** How long to wait for the value. Default: the middleware's `timeoutMs`. */
  readonly timeoutMs?: number;
}

/** Options of the built-in current-time section. */
export interface CurrentTimeOptions {
  /** IANA time zone (`'Europe/Berlin'`). Default: the host's time zone. */
  readonly timeZone?: string;
  /** Section title. Default `'Current time'`. */
  readonly title?: string;
  /**
   * `'minute'` (default), `'second'`, or `'date'` (the day only). A coarser value changes the
   * prompt less often, which keeps providers' prompt caches warm.
   */
  readonly precision?: 'date' | 'minute' | 'second';
}

/** Options of {@link DynamicPromptMiddleware}. */
export interface DynamicPromptOptions {
  /** Your sections, appended after the time. Default: none. */
  readonly sections?: readonly PromptSection[];
  /** Append the current time (`true`, or options). Default: off. */
  readonly currentTime?: boolean | CurrentTimeOptions;
  /** Default wait for a section's value, in ms. Default 2000. */
  readonly timeoutMs?: number;
  /** Formats one section. Default: `## <title>\n<value>`. */
  readonly format?: (title: string, value: string) => string;
  /** The clock of the time section. Default: `() => new Date()`. */
  readonly now?: () => Date;
  /** State key. Default `'DynamicPromptMiddleware'`. */
  readonly key?: string;
}

/**
 * The current time as the model should read it: `2026-03-14 09:26 (Saturday), Europe/Berlin (GMT+01:00)`.
 *
 * @example
 * ```ts
 * formatCurrentTime(new Date('2026-03-14T08:26:00Z'), { timeZone: 'Europe/Berlin' });
 * // '2026-03-14 09:26 (Saturday), Europe/Berlin (GMT+01:00)'
 * ```
 */
export function formatCurrentTime(date: Date, options: CurrentTimeOptions = {}): string {
  const precision = options.precision ?? 'minute';
  const format = new Intl.DateTimeFormat('en-US', {
    ...(options.timeZone ? { timeZone: options.timeZone } : {}),
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    weekday: 'long',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'longOffset',
  });
  const parts: Record<string, string> = {};
  for (const p of format.formatToParts(date)) parts[p.type] = p.value;
  const zone = format.resolvedOptions().timeZone;
  const day = `${parts.year}-${parts.month}-${parts.day} (${parts.weekday})`;
  if (precision === 'date') return `${day}, ${zone}`;
  const time =
    precision === 'second' ? `${parts.hour}:${parts.minute}:${parts.second}` : `${parts.hour}:${parts.minute}`;
  return `${parts.year}-${parts.month}-${parts.day} ${time} (${parts.weekday}), ${zone} (${parts.timeZoneName})`;
}

// Every option, typed against DynamicPromptOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<DynamicPromptOptions>({
  sections: true,
  currentTime: true,
  timeoutMs: true,
  format: true,
  now: true,
  key: true,
});

/** Appends computed sections to the system prompt at every reasoning step. See the module documentation. */
export class DynamicPromptMiddleware implements Middleware {
  readonly key: string;
  private readonly sections: readonly PromptSection[];
  private readonly timeoutMs: number;
  private readonly format: (title: string, value: string) => string;

  constructor(options: DynamicPromptOptions = {}) {
    checkOptionKeys('DynamicPromptMiddleware', options, OPTION_KEYS);
    this.key = options.key ?? 'DynamicPromptMiddleware';
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.format = options.format ?? ((title, value) => `## ${title}\n${value}`);
    const time = options.currentTime;
    const now = options.now ?? (() => new Date());
    const timeOptions = typeof time === 'object' ? time : {};
    this.sections = [
      ...(time
        ? [{ title: timeOptions.title ?? 'Current time', value: () => formatCurrentTime(now(), timeOptions) }]
        : []),
      ...(options.sections ?? []),
    ];
  }

  onSystemPrompt(_agent: AgentHandle, ctx: RuntimeContext, prompt: string): Observable<string> | string {
    if (!this.sections.length) return prompt;
    return forkJoin(this.sections.map((s) => this.valueOf(s, ctx))).pipe(
      map((values) => {
        const parts = values.flatMap((v, i) => (v.trim() ? [this.format(this.sections[i]!.title, v.trim())] : []));
        return [prompt, ...parts].filter(Boolean).join('\n\n');
      }),
    );
  }

  /** The section's value now ('' when it has none in time). */
  private valueOf(section: PromptSection, ctx: RuntimeContext): Observable<string> {
    return defer(() => {
      const v = section.value;
      const out = typeof v === 'function' ? v(ctx) : v;
      if (typeof out === 'string') return of(out);
      const source = isObservable(out) ? out : from(out);
      return source.pipe(
        take(1),
        timeout({ first: section.timeoutMs ?? this.timeoutMs, with: () => EMPTY }),
        map((value) => (typeof value === 'string' ? value : '')),
        defaultIfEmpty(''),
      );
    }).pipe(
      catchError((err: unknown) => {
        throw new Error(
          `DynamicPromptMiddleware: section "${section.title}" failed: ${err instanceof Error ? err.message : String(err)}`,
          { cause: err },
        );
      }),
    );
  }
}
