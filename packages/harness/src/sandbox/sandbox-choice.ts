import { HarnessOptionError } from '../options/index.js';
import { BubblewrapSandbox } from './bubblewrap-sandbox.js';
import { findExecutable } from './host-tools.js';
import { LocalSandbox } from './local-sandbox.js';
import type { Sandbox } from './sandbox.js';
import { SandboxError } from './sandbox-error.js';

/** Where `execute` runs: no shell, a local child process, bubblewrap, or your own sandbox. */
export type SandboxChoice = 'none' | 'local' | 'bubblewrap' | Sandbox;

/**
 * Refuses `sandbox: 'bubblewrap'` on a machine without `bwrap` on its `PATH` (every Mac), when
 * the agent is built: otherwise every reply, even one that runs no command, would fail when it
 * acquires the sandbox. Throws a `SandboxError` with code `sandbox_unavailable` that names
 * `sandbox: 'local'` and what it does and does not protect.
 */
function requireBubblewrap(): void {
  if (findExecutable('bwrap') !== undefined) return;
  throw new SandboxError(
    'sandbox_unavailable',
    "sandbox: 'bubblewrap' needs bubblewrap (the bwrap command), which is not on this machine's PATH " +
      '(it runs on Linux only; Debian/Ubuntu: apt-get install bubblewrap). ' +
      "Without it, pass sandbox: 'local' (trusted work on your own machine): commands run in the workspace " +
      'with a scrubbed environment (no API keys), time, CPU and memory limits, but they can read and change ' +
      "every file your user can and reach the network; or sandbox: 'none' for no shell.",
  );
}

/** The sandbox a choice names (`undefined` for `'none'`); refuses anything else. */
export function sandboxOf(choice: SandboxChoice): Sandbox | undefined {
  if (choice === 'none') return undefined;
  if (choice === 'local') return new LocalSandbox();
  if (choice === 'bubblewrap') {
    requireBubblewrap();
    return new BubblewrapSandbox();
  }
  if (choice && typeof choice === 'object' && typeof choice.acquire === 'function') return choice;
  throw new HarnessOptionError(
    'invalid_option',
    'createHarnessAgent.sandbox',
    `sandbox must be 'none', 'local', 'bubblewrap' or a Sandbox object, got ${JSON.stringify(choice)}.`,
  );
}
