import { type HarnessPartDefinition, isOn, objectOf, offPart, onPart } from '../harness-part.js';
import { AtPathExpansionMiddleware, type AtPathExpansionOptions } from './at-path-expansion/index.js';
import { WorkspaceContextMiddleware, type WorkspaceContextOptions } from './workspace-context/index.js';
import { WorkspaceSnapshotMiddleware, type WorkspaceSnapshotMiddlewareOptions } from './workspace-snapshot/index.js';

/** The options the workspace snapshot part reads. */
export interface WorkspaceSnapshotPartOptions {
  readonly workspaceSnapshot?: boolean | Omit<WorkspaceSnapshotMiddlewareOptions, 'fileSystem'>;
}

/** Right after the sandbox: a resumed session's files are back before `@path` or any step reads them. */
export const workspaceSnapshotPart: HarnessPartDefinition<WorkspaceSnapshotPartOptions> = {
  build(options, env) {
    const name = 'WorkspaceSnapshotMiddleware';
    const snapshot = options.workspaceSnapshot;
    if (!snapshot)
      return offPart(name, 'workspaceSnapshot', 'workspaceSnapshot is not set (the workspace stays on this machine)');
    return onPart(
      name,
      'workspaceSnapshot',
      "the workspace's files saved with the session after each tool call that may change them, restored where the session resumes",
      { middleware: new WorkspaceSnapshotMiddleware({ ...objectOf(snapshot), fileSystem: env.fileSystem }) },
    );
  },
};

/** The options the `@path` part reads. */
export interface AtPathExpansionPartOptions {
  readonly atPathExpansion?: boolean | Omit<AtPathExpansionOptions, 'fileSystem'>;
}

/** `@path` in a user message attaches the file: before any step or prompt layer sees the input. */
export const atPathExpansionPart: HarnessPartDefinition<AtPathExpansionPartOptions> = {
  build(options, env) {
    const name = 'AtPathExpansionMiddleware';
    const atPath = options.atPathExpansion;
    if (!isOn(atPath, true)) return offPart(name, 'atPathExpansion', 'atPathExpansion: false');
    return onPart(name, 'atPathExpansion', '@path in a user message attaches that workspace file', {
      middleware: new AtPathExpansionMiddleware({ ...objectOf(atPath), fileSystem: env.fileSystem }),
    });
  },
};

/** The options the workspace context part reads. */
export interface WorkspaceContextPartOptions {
  readonly workspaceContext?: boolean | Omit<WorkspaceContextOptions, 'workspace'>;
}

/** The stable part of the system prompt; lent to subagents (`AGENTS.md` and the rest in theirs too). */
export const workspaceContextPart: HarnessPartDefinition<WorkspaceContextPartOptions> = {
  lends: true,
  build(options, env) {
    const name = 'WorkspaceContextMiddleware';
    const context = options.workspaceContext;
    if (!isOn(context, true)) return offPart(name, 'workspaceContext', 'workspaceContext: false');
    return onPart(
      name,
      'workspaceContext',
      'date, workspace, AGENTS.md, MEMORY.md and knowledge index in the system prompt',
      { middleware: new WorkspaceContextMiddleware({ ...objectOf(context), workspace: env.workspace }) },
    );
  },
};
