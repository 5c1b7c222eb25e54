import { BubblewrapSandbox } from './bubblewrap-sandbox.js';
import { LocalSandbox } from './local-sandbox.js';
import type { Sandbox } from './sandbox.js';

/** Where `execute` runs: no shell, a local child process, bubblewrap, or your own sandbox. */
export type SandboxChoice = 'none' | 'local' | 'bubblewrap' | Sandbox;

/** The sandbox a choice names (`undefined` for `'none'`); refuses anything else. */
export function sandboxOf(choice: SandboxChoice): Sandbox | undefined {
  if (choice === 'none') return undefined;
  if (choice === 'local') return new LocalSandbox();
  if (choice === 'bubblewrap') return new BubblewrapSandbox();
  if (choice && typeof choice === 'object' && typeof choice.acquire === 'function') return choice;
  throw new TypeError(
    `sandbox must be 'none', 'local', 'bubblewrap' or a Sandbox object, got ${JSON.stringify(choice)}.`,
  );
}
