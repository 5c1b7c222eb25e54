/**
 * `SandboxLifecycleMiddleware`: acquires a sandbox session when a reply starts (`onAgent`),
 * keeps it in that reply's context, and releases it when the reply ends, fails or is
 * unsubscribed (whatever still runs is killed). It contributes the `execute` tool, which runs
 * commands in the session of the reply that called it: two replies of two sessions running at
 * the same time on one agent definition never see each other's processes.
 *
 * A reply suspended for confirmation releases its sandbox; the resumed reply acquires a new one.
 *
 * With a `lease` (a `RedisSandboxLease` for many processes), a reply first takes its session's
 * lease, so two processes never drive one session's sandbox at once: a reply that cannot get it
 * ends with a `SandboxBusyError` (`REPLY_END {finishReason: 'error'}`, code `sandbox_busy`)
 * before anything runs. The lease is given up after the sandbox
 * is released (its commands are dead by then); a reply that loses its lease is stopped
 * (`REPLY_END {finishReason: 'stopped', stopReason: {code: 'sandbox_lease_lost'}}`).
 *
 * @example
 * ```ts
 * const sandbox = new SandboxLifecycleMiddleware({ sandbox: new BubblewrapSandbox(), workspace: '/srv/ws' });
 * const agent = new Agent({ model, middlewares: [sandbox] }); // the agent has the `execute` tool
 * ```
 *
 * @module
 */
import { defer, filter, finalize, from, map, type Observable, switchMap, tap } from 'rxjs';
import { z } from 'zod';
import {
  type ActingInput,
  type AgentHandle,
  type AgentEvent,
  type AgentInput,
  ContextToken,
  defineTool,
  type Middleware,
  type Next,
  type RuntimeContext,
  type Tool,
  type ToolContext,
  optionKeys,
} from '@rxscope/core';
import type { ExecEvent, Sandbox, SandboxSession } from '../sandbox.js';
import { SandboxLimitError } from '../sandbox-limit-error.js';
import type { SandboxLease } from '../sandbox-lease.js';
import { HarnessOptionError, refuseUnknownOptions } from '../../options/index.js';

/** Options of {@link SandboxLifecycleMiddleware}. */
export interface SandboxLifecycleOptions {
  readonly sandbox: Sandbox;
  /** Real path of the workspace the commands run in. */
  readonly workspace: string;
  /** Contribute the `execute` tool. Default true. */
  readonly executeTool?: boolean;
  /** `execute` asks for confirmation before each command (an allow rule can lift it). Default true. */
  readonly askPermission?: boolean;
  /** Timeout of a command without `timeout_s`. Default 120 s. */
  readonly defaultTimeoutS?: number;
  /** Largest `timeout_s` accepted. Default 600 s. */
  readonly maxTimeoutS?: number;
  /** Output kept in the result (head and tail). Default 30,000 characters. */
  readonly maxOutputChars?: number;
  /** One driver per session across processes: the reply takes the session's lease first. Default: none. */
  readonly lease?: SandboxLease;
  /** Receives a failure to release a sandbox (nothing is left to report it on). Default: console.error. */
  readonly onReleaseError?: (error: unknown) => void;
}

/** The sandbox session of the running reply (set by {@link SandboxLifecycleMiddleware}). */
export const SANDBOX_SESSION = new ContextToken<SandboxSession | undefined>('harness.sandboxSession', () => undefined);

const executeInput = (maxTimeoutS: number) =>
  z.object({
    command: z.string().min(1).describe('The shell command to run (sh -c) in the workspace folder.'),
    timeout_s: z
      .number()
      .positive()
      .max(maxTimeoutS)
      .optional()
      .describe('Seconds before the command is killed. Default 120.'),
  });

// Every option, typed against SandboxLifecycleOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<SandboxLifecycleOptions>({
  sandbox: true,
  workspace: true,
  executeTool: true,
  askPermission: true,
  defaultTimeoutS: true,
  maxTimeoutS: true,
  maxOutputChars: true,
  lease: true,
  onReleaseError: true,
});

/** See the module documentation. */
export class SandboxLifecycleMiddleware implements Middleware {
  readonly key = 'SandboxLifecycleMiddleware';
  readonly sandbox: Sandbox;
  private readonly workspace: string;
  private readonly execute: Tool<{ command: string; timeout_s?: number | undefined }> | undefined;
  private readonly defaultTimeoutS: number;
  private readonly maxOutputChars: number;
  private readonly onReleaseError: (error: unknown) => void;
  private readonly lease: SandboxLease | undefined;

  constructor(options: SandboxLifecycleOptions) {
    refuseUnknownOptions('SandboxLifecycleMiddleware', options, OPTION_KEYS);
    if (!options?.sandbox || typeof options.sandbox.acquire !== 'function') {
      throw new HarnessOptionError(
        'invalid_option',
        'SandboxLifecycleMiddleware.sandbox',
        'SandboxLifecycleMiddleware needs a sandbox (LocalSandbox, BubblewrapSandbox or your own Sandbox).',
      );
    }
    if (typeof options.workspace !== 'string' || options.workspace === '')
      throw new HarnessOptionError(
        'invalid_option',
        'SandboxLifecycleMiddleware.workspace',
        'SandboxLifecycleMiddleware needs the workspace path.',
      );
    this.sandbox = options.sandbox;
    this.workspace = options.workspace;
    this.defaultTimeoutS = options.defaultTimeoutS ?? 120;
    this.maxOutputChars = options.maxOutputChars ?? 30_000;
    this.onReleaseError =
      options.onReleaseError ?? ((e) => console.error('[rxscope/harness] releasing the sandbox failed:', e));
    this.lease = options.lease;
    const maxTimeoutS = options.maxTimeoutS ?? 600;
    this.execute =
      options.executeTool === false
        ? undefined
        : defineTool({
            name: 'execute',
            description:
              `Run a shell command in the workspace folder (${options.sandbox.kind} sandbox) and get its output and exit code. ` +
              'Commands that need confirmation wait for it. Background processes end with the command.',
            input: executeInput(maxTimeoutS),
            needsApproval: options.askPermission ?? true,
            // Replaced per call in onActing by one bound to the reply's sandbox session.
            execute: () => {
              throw new Error('execute runs only inside a reply with SandboxLifecycleMiddleware.');
            },
          });
  }

  tools(): readonly Tool[] {
    return this.execute ? [this.execute] : [];
  }

  onAgent(_agent: AgentHandle, ctx: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    const lease = this.lease;
    if (!lease) return this.withSandbox(ctx, input, next, () => undefined);
    return defer(() => from(lease.acquire(ctx.sessionId, { signal: ctx.signal }))).pipe(
      switchMap((held) => {
        held.onLost((error) => ctx.stop({ code: 'sandbox_lease_lost', message: error.message }));
        return this.withSandbox(ctx, input, next, (released) => {
          // Given up only once the sandbox is released: its commands are dead before another process drives it.
          void released.then(() => held.release()).catch(this.onReleaseError);
        });
      }),
    );
  }

  private withSandbox(
    ctx: RuntimeContext,
    input: AgentInput,
    next: Next<AgentInput>,
    after: (released: Promise<void>) => void,
  ): Observable<AgentEvent> {
    let session: SandboxSession | undefined;
    return defer(() => from(this.sandbox.acquire({ workspace: this.workspace }))).pipe(
      switchMap((acquired) => {
        session = acquired;
        ctx.set(SANDBOX_SESSION, acquired);
        return next(input);
      }),
      finalize(() => {
        ctx.set(SANDBOX_SESSION, undefined);
        after(session ? session.release().catch(this.onReleaseError) : Promise.resolve());
      }),
    );
  }

  onActing(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    if (!this.execute || input.tool !== this.execute) return next(input);
    const session = ctx.get(SANDBOX_SESSION);
    const bound: Tool = {
      ...input.tool,
      execute: (args: { command: string; timeout_s?: number }, toolCtx: ToolContext) => {
        if (!session) throw new Error('No sandbox is acquired for this reply.');
        return this.run(session, args, toolCtx);
      },
    };
    return next({ ...input, tool: bound });
  }

  private run(
    session: SandboxSession,
    args: { command: string; timeout_s?: number },
    toolCtx: ToolContext,
  ): Observable<string> {
    const timeoutS = args.timeout_s ?? this.defaultTimeoutS;
    let streamed = 0;
    return session.exec(args.command, { timeoutMs: timeoutS * 1000, maxOutputChars: this.maxOutputChars }).pipe(
      tap((e) => {
        // Live output for a UI as TOOL_PROGRESS (the result is the whole output with the exit code), capped like the result.
        if (e.type === 'output' && streamed < this.maxOutputChars) {
          toolCtx.emit(e.text.slice(0, this.maxOutputChars - streamed));
          streamed += e.text.length;
        }
      }),
      filter((e): e is Extract<ExecEvent, { type: 'exit' }> => e.type === 'exit'),
      map((exit) => {
        const output = exit.output === '' ? '(no output)' : exit.output.replace(/\n$/, '');
        const timedOut = `timed out after ${timeoutS} s and was killed with everything it started`;
        const end = exit.exitCode !== null ? `exit code ${exit.exitCode}` : `killed by ${exit.signal ?? 'a signal'}`;
        // An exceeded limit is an error result saying which limit, even when the command went on and exited 0.
        if (exit.exceededLimit) throw new SandboxLimitError(exit.exceededLimit, exit.timedOut ? timedOut : end, output);
        if (exit.timedOut) throw new Error(`The command ${timedOut}. Output so far:\n${output}`);
        return `${output}\n[${end}]`;
      }),
    );
  }
}
