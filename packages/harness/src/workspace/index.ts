// What the rest of the harness may use of workspace/: its other files are its own.
export { AtPathExpansionMiddleware, mentionsIn, type AtPathExpansionOptions } from './at-path-expansion/index.js';
export { FileTooLargeError, type FileTooLargeErrorOptions } from './file-too-large-error.js';
export { FrontMatterError, formatFrontMatter, parseFrontMatter, type FrontMatterDocument } from './front-matter.js';
export { WORKSPACE_LAYOUT, ensureWorkspace } from './layout.js';
export { LocalFileSystem } from './local-file-system.js';
export {
  SNAPSHOT_EXCLUDED,
  SNAPSHOT_MARKER,
  restoreWorkspace,
  snapshotIdOf,
  snapshotWorkspace,
  type RestoreWorkspaceOptions,
  type SnapshotFile,
  type WorkspaceSnapshot,
  type WorkspaceSnapshotOptions,
} from './snapshot-workspace.js';
export type { SnapshotHistoryLimits } from './workspace-snapshot/snapshot-history.js';
export { count, decodeText, looksBinary, splitLines } from './text.js';
export { WorkspaceContextMiddleware, type WorkspaceContextOptions } from './workspace-context/index.js';
export {
  DEFAULT_MAX_READ_BYTES,
  type WorkspaceEntry,
  type WorkspaceFileSystem,
  type WorkspaceGlobOptions,
  type WorkspaceReadOptions,
  type WorkspaceStat,
} from './workspace-file-system.js';
export { WorkspacePathError, type WorkspacePathErrorCode } from './workspace-path-error.js';
export { WorkspaceSnapshotMiddleware, type WorkspaceSnapshotMiddlewareOptions } from './workspace-snapshot/index.js';
