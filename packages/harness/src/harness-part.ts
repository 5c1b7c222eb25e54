import type { Middleware, Tool } from '@rxscope/core';
import type { MessageBus } from './bus/index.js';
import type { BackgroundTasks } from './tasks/index.js';
import type { WorkspaceFileSystem } from './workspace/index.js';

/** One part of an assembled harness, as `describeHarness` reports it. */
export interface HarnessPart {
  /** The middleware's class name, or `tools` for the file tools. */
  readonly name: string;
  /** The option that switches it (`sandbox`, `planMode`, ...). */
  readonly option: string;
  readonly enabled: boolean;
  /** Why it is on or off. */
  readonly reason: string;
  /** Hooks it implements (middlewares that are on). */
  readonly hooks: readonly string[];
  /** Tools it contributes (parts that are on). */
  readonly tools: readonly string[];
}

/** A part while the harness is assembled: what it is, and its middleware or tools when on. */
export interface AssembledPart {
  readonly part: Omit<HarnessPart, 'hooks' | 'tools'>;
  readonly middleware?: Middleware;
  readonly tools?: readonly Tool[];
}

/** What every part is built with: made once per harness agent, before the parts. */
export interface HarnessEnv {
  /** The workspace's files. */
  readonly fileSystem: WorkspaceFileSystem;
  /** The workspace folder (absolute). */
  readonly workspace: string;
  /** The bus of the inbox and of background work. */
  readonly bus: MessageBus;
  /** The agent's background work. */
  readonly tasks: BackgroundTasks;
  /**
   * The middlewares of the parts that lend theirs to subagents, in chain order. Filled only for
   * a part that `borrows` (it is built after all the others).
   */
  readonly lent: readonly Middleware[];
}

/**
 * One feature's part of the harness: how it is built from the options (`O` is the slice of the
 * harness options it reads) and where it sits is decided by its place in the ordered list of
 * parts. A part that is off still reports itself, with the reason.
 */
export interface HarnessPartDefinition<O> {
  /** Its middleware is lent to subagents (they run with it too). */
  readonly lends?: true;
  /** It needs the lent middlewares: built after every other part. */
  readonly borrows?: true;
  build(options: O, env: HarnessEnv): AssembledPart | readonly AssembledPart[];
}

/** A part that is off: its name, its option and why. */
export const offPart = (name: string, option: string, reason: string): AssembledPart => ({
  part: { name, option, enabled: false, reason },
});

/** A part that is on: its middleware (or tools) and why. */
export const onPart = (
  name: string,
  option: string,
  reason: string,
  what: { readonly middleware?: Middleware; readonly tools?: readonly Tool[] },
): AssembledPart => ({ part: { name, option, enabled: true, reason }, ...what });

/** `value` switches a part on: `undefined` takes the part's default, `false` is off. */
export const isOn = <T>(value: T | boolean | undefined, byDefault: boolean): value is T | true =>
  value === undefined ? byDefault : value !== false;

/** The object form of a `boolean | object` option (`{}` for `true` or absent). */
export const objectOf = <T extends object>(value: T | boolean | undefined): Partial<T> =>
  typeof value === 'object' && value !== null ? value : {};
