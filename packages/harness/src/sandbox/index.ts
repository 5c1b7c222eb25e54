// What the rest of the harness may use of sandbox/: its other files are its own.
export { BubblewrapSandbox, type BubblewrapSandboxOptions } from './bubblewrap-sandbox.js';
export { LocalSandbox, type LocalSandboxOptions } from './local-sandbox.js';
export { type SandboxChoice } from './sandbox-choice.js';
export { SandboxBusyError, type HeldSandboxLease, type SandboxLease } from './sandbox-lease.js';
export {
  SANDBOX_SESSION,
  SandboxLifecycleMiddleware,
  type SandboxLifecycleOptions,
} from './sandbox-lifecycle/index.js';
export { type ExecEvent, type ExecOptions, type Sandbox, type SandboxSession } from './sandbox.js';
