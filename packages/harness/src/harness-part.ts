import type { Middleware, Tool } from '@rxscope/core';

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
