import { type HarnessPartDefinition, offPart, onPart } from '../harness-part.js';
import type { SandboxChoice } from './sandbox-choice.js';
import { sandboxOf } from './sandbox-choice.js';
import type { SandboxLease } from './sandbox-lease.js';
import { SandboxLifecycleMiddleware, type SandboxLifecycleOptions } from './sandbox-lifecycle/index.js';

/** The options the sandbox part reads. */
export interface SandboxPartOptions {
  readonly sandbox?: SandboxChoice;
  readonly sandboxLease?: SandboxLease;
  readonly execute?: Pick<
    SandboxLifecycleOptions,
    'askPermission' | 'defaultTimeoutS' | 'maxTimeoutS' | 'maxOutputChars'
  >;
}

/** The sandbox lifecycle and `execute`; lent to subagents, so they have a sandbox of their own. */
export const sandboxPart: HarnessPartDefinition<SandboxPartOptions> = {
  lends: true,
  build(options, env) {
    const name = 'SandboxLifecycleMiddleware';
    const sandbox = sandboxOf(options.sandbox ?? 'none');
    if (!sandbox) return offPart(name, 'sandbox', "sandbox: 'none' — the agent has no shell");
    const lease = options.sandboxLease
      ? "; a reply first takes the session's sandbox lease (one process at a time)"
      : '';
    return onPart(name, 'sandbox', `sandbox: ${sandbox.kind} — ${sandbox.description}${lease}`, {
      middleware: new SandboxLifecycleMiddleware({
        sandbox,
        workspace: env.workspace,
        ...options.execute,
        ...(options.sandboxLease ? { lease: options.sandboxLease } : {}),
      }),
    });
  },
};
