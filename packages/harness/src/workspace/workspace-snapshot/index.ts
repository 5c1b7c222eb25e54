/**
 * `WorkspaceSnapshotMiddleware` (`onAgent`, `onActing`): the workspace's files travel with the
 * session, so a session resumed on another machine (another worker, a restarted container with
 * an empty disk) finds the files its conversation talks about.
 *
 * - After every tool call that may change files (any tool not `readOnly`: `write_file`,
 *   `edit_file`, `execute`, ...), the workspace is snapshotted into the agent state
 *   (`middlewareState.WorkspaceSnapshotMiddleware.snapshot`), which the session store saves with
 *   the rest of the session. `CUSTOM workspace_snapshot_saved {id, files, bytes, omitted}` follows.
 * - When a reply starts in a workspace that does not hold the session's latest snapshot (its
 *   `.rxscope-snapshot` marker names another one, or none), the snapshot's files are written
 *   there first (only those that differ; other files are left alone), and
 *   `CUSTOM workspace_restored {id, written, omitted}` follows `REPLY_START`.
 * - Fork and rewind: the snapshot taken in each reply is kept (file contents shared between
 *   snapshots, at most `maxHistory` of them and `maxHistoryBytes` of contents, oldest dropped
 *   first), as is the workspace before the first change. When the conversation is cut at a
 *   message (`agent.fork()`, `agent.rewind()`, `sessions.fork()`, an AG-UI regenerate), the
 *   session's snapshot becomes the one of the last message kept, and the next reply restores
 *   it exactly: changed files are written back, files created after it are removed
 *   (`workspace_restored {written}` names both). Evicted results and saved histories are never
 *   touched, so the pointers in the kept conversation still lead to their files.
 * - Limits: files over `maxFileBytes` (256 KiB) and, past `maxTotalBytes` (2 MiB), the largest
 *   files are left out and named in `omitted`; `large_tool_results/`, `conversation_history/`,
 *   `.git/` and git-ignored files are never included.
 *
 * @example
 * ```ts
 * const fs = new LocalFileSystem('./ws');
 * const agent = new Agent({ model, store, sessionId: 's1', tools: [writeFileTool(fs)],
 *   middlewares: [new WorkspaceSnapshotMiddleware({ fileSystem: fs })] });
 * ```
 *
 * @module
 */
import { concatMap, defer, from, type Observable, of, switchMap } from 'rxjs';
import type {
  ActingInput,
  AgentHandle,
  AgentEvent,
  AgentInput,
  ConversationCut,
  Middleware,
  Next,
  RuntimeContext,
} from '@rxscope/core';
import type { WorkspaceFileSystem } from '../workspace-file-system.js';
import {
  restoreWorkspace,
  snapshotIdOf,
  snapshotWorkspace,
  type WorkspaceSnapshot,
  type WorkspaceSnapshotOptions,
} from '../snapshot-workspace.js';
import {
  cutSnapshotHistory,
  recordSnapshot,
  type SnapshotHistoryLimits,
  type SnapshotState,
} from './snapshot-history.js';
import { optionKeys } from '@rxscope/core';
import { refuseUnknownOptions } from '../../options/index.js';

/** Options of {@link WorkspaceSnapshotMiddleware}. */
export interface WorkspaceSnapshotMiddlewareOptions extends WorkspaceSnapshotOptions, SnapshotHistoryLimits {
  readonly fileSystem: WorkspaceFileSystem;
  /** Where a failed snapshot or restore is reported (the reply goes on). Default `console.error`. */
  readonly onError?: (error: unknown) => void;
}

// Every option, typed against WorkspaceSnapshotMiddlewareOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<WorkspaceSnapshotMiddlewareOptions>({
  fileSystem: true,
  maxHistory: true,
  maxHistoryBytes: true,
  onError: true,
  maxFileBytes: true,
  maxTotalBytes: true,
  exclude: true,
});

/** See the module documentation. */
export class WorkspaceSnapshotMiddleware implements Middleware {
  readonly key = 'WorkspaceSnapshotMiddleware';
  private readonly onError: (error: unknown) => void;

  constructor(private readonly options: WorkspaceSnapshotMiddlewareOptions) {
    refuseUnknownOptions('WorkspaceSnapshotMiddleware', options, OPTION_KEYS);
    this.onError = options.onError ?? ((e) => console.error('[WorkspaceSnapshotMiddleware]', e));
  }

  /**
   * The session's latest snapshot (from the agent state of this context).
   *
   * @example
   * ```ts
   * middleware.snapshotOf(ctx)?.files.map((f) => f.path);
   * ```
   */
  snapshotOf(ctx: RuntimeContext): WorkspaceSnapshot | undefined {
    return this.stateOf(ctx).get()?.snapshot;
  }

  /** The session's snapshot for the cut conversation: the one of the last message kept. */
  onConversationCut(state: unknown, cut: ConversationCut): unknown {
    return cutSnapshotHistory(state as SnapshotState | undefined, cut);
  }

  onAgent(_agent: AgentHandle, ctx: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    return defer(() => from(this.restoreIfNeeded(ctx))).pipe(
      switchMap((restored) => {
        if (!restored) return next(input);
        let told = false;
        return next(input).pipe(
          concatMap((e) => {
            if (told || e.type !== 'REPLY_START') return of(e);
            told = true;
            return of(e, ctx.event('CUSTOM', { name: 'workspace_restored', value: restored }));
          }),
        );
      }),
    );
  }

  onActing(
    _agent: AgentHandle,
    ctx: RuntimeContext,
    input: ActingInput,
    next: Next<ActingInput>,
  ): Observable<AgentEvent> {
    if (input.tool.readOnly) return next(input);
    const state = this.stateOf(ctx);
    // The workspace before the session's first change, for a cut before it (keyed to no message).
    const baseline = state.get()?.snapshot
      ? Promise.resolve()
      : snapshotWorkspace(this.options.fileSystem, this.options).then(
          (snapshot) => state.set(recordSnapshot(state.get(), snapshot, null, this.options)),
          (error: unknown) => this.onError(error),
        );
    return from(baseline).pipe(
      switchMap(() => next(input)),
      concatMap((e) => {
        if (e.type !== 'TOOL_RESULT_END' || e.toolCallId !== input.toolCall.id) return of(e);
        return from(
          snapshotWorkspace(this.options.fileSystem, this.options).then(
            (snapshot) => {
              state.set(recordSnapshot(state.get(), snapshot, ctx.replyId, this.options));
              const bytes = snapshot.files.reduce((n, f) => n + Math.floor((f.content.length * 3) / 4), 0);
              const value = { id: snapshot.id, files: snapshot.files.length, bytes, omitted: snapshot.omitted };
              return [e, ctx.event('CUSTOM', { name: 'workspace_snapshot_saved', value })];
            },
            (error: unknown) => {
              this.onError(error);
              return [e];
            },
          ),
        ).pipe(concatMap((events) => from(events)));
      }),
    );
  }

  private stateOf(ctx: RuntimeContext) {
    return ctx.state<SnapshotState>(this.key);
  }

  private async restoreIfNeeded(ctx: RuntimeContext) {
    const state = this.stateOf(ctx);
    const { snapshot, exact, ...rest } = state.get() ?? {};
    if (!snapshot) return undefined;
    try {
      if ((await snapshotIdOf(this.options.fileSystem)) === snapshot.id) {
        if (exact) state.set({ ...rest, snapshot });
        return undefined;
      }
      const options = { exact: exact === true, ...(this.options.exclude ? { exclude: this.options.exclude } : {}) };
      const written = await restoreWorkspace(this.options.fileSystem, snapshot, options);
      if (exact) state.set({ ...rest, snapshot });
      return { id: snapshot.id, written, omitted: snapshot.omitted };
    } catch (error) {
      this.onError(error);
      return undefined;
    }
  }
}
