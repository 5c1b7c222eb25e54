import type { ConversationCut } from '@rxscope/core';
import type { SnapshotFile, WorkspaceSnapshot } from '../snapshot-workspace.js';

/** One past snapshot, by the conversation message it belongs to; its files' contents are in `blobs`. */
export interface SnapshotAt {
  /** The reply message it was taken in (`null`: before the first message that changed files). */
  readonly messageId: string | null;
  readonly id: string;
  readonly takenAt: string;
  readonly files: readonly { readonly path: string; readonly sha256: string }[];
  readonly omitted: WorkspaceSnapshot['omitted'];
}

/** What `WorkspaceSnapshotMiddleware` keeps in the agent state. */
export interface SnapshotState {
  /** The latest snapshot: what a resumed session restores. */
  readonly snapshot?: WorkspaceSnapshot;
  /** Earlier snapshots, oldest first, one per message (for fork and rewind). */
  readonly history?: readonly SnapshotAt[];
  /** File contents (base64) by sha256, shared by the entries of `history`. */
  readonly blobs?: Readonly<Record<string, string>>;
  /** Set by a cut: the next restore also removes the files the snapshot does not hold. */
  readonly exact?: boolean;
}

/**
 * How many past snapshots `WorkspaceSnapshotMiddleware` keeps for fork and rewind.
 *
 * @example
 * ```ts
 * createHarnessAgent({ model, workspace, workspaceSnapshot: { maxHistory: 50, maxHistoryBytes: 32 << 20 } });
 * ```
 */
export interface SnapshotHistoryLimits {
  /** Snapshots kept for fork and rewind (oldest dropped first). Default 20; 0 keeps none. */
  readonly maxHistory?: number;
  /** Bytes of file contents the history keeps at most (oldest entries dropped first). Default 8 MiB. */
  readonly maxHistoryBytes?: number;
}

/** The state with `snapshot` as the latest, recorded for `messageId` (replacing an earlier one of that message). */
export function recordSnapshot(
  state: SnapshotState | undefined,
  snapshot: WorkspaceSnapshot,
  messageId: string | null,
  limits: SnapshotHistoryLimits,
): SnapshotState {
  const entry: SnapshotAt = {
    messageId,
    id: snapshot.id,
    takenAt: snapshot.takenAt,
    files: snapshot.files.map((f) => ({ path: f.path, sha256: f.sha256 })),
    omitted: snapshot.omitted,
  };
  const blobs: Record<string, string> = { ...state?.blobs };
  for (const f of snapshot.files) blobs[f.sha256] = f.content;
  let history = [...(state?.history ?? []).filter((h) => h.messageId !== messageId), entry];
  const maxHistory = limits.maxHistory ?? 20;
  const maxBytes = limits.maxHistoryBytes ?? 8 * 1024 * 1024;
  history = history.slice(Math.max(0, history.length - maxHistory));
  // Oldest first out until the contents still referenced fit.
  while (history.length > 1 && bytesOf(history, blobs) > maxBytes) history = history.slice(1);
  if (maxHistory === 0 || bytesOf(history, blobs) > maxBytes) history = [];
  return { snapshot, history, blobs: referenced(history, blobs) };
}

/**
 * The state for a cut conversation: the latest snapshot taken at or before the last message
 * kept becomes the one to restore, exactly (files it does not hold are removed at the next
 * reply). With none (the history does not reach back that far), the workspace is left as it is.
 */
export function cutSnapshotHistory(state: SnapshotState | undefined, cut: ConversationCut): SnapshotState | undefined {
  if (!state?.history?.length || !cut.dropped.length) return state;
  const kept = new Set(cut.kept.map((m) => m.id));
  const history = state.history;
  let last = -1;
  history.forEach((h, i) => {
    if (h.messageId === null || kept.has(h.messageId)) last = i;
  });
  if (last < 0) return {};
  const entry = history[last]!;
  const blobs = state.blobs ?? {};
  const files: SnapshotFile[] = entry.files.map((f) => ({ ...f, content: blobs[f.sha256] ?? '' }));
  const snapshot: WorkspaceSnapshot = {
    version: 1,
    id: entry.id,
    takenAt: entry.takenAt,
    files,
    omitted: entry.omitted,
  };
  const kept_ = history.slice(0, last + 1);
  // Already the workspace's snapshot: nothing to restore.
  if (state.snapshot?.id === entry.id) return { snapshot, history: kept_, blobs: referenced(kept_, blobs) };
  return { snapshot, history: kept_, blobs: referenced(kept_, blobs), exact: true };
}

function bytesOf(history: readonly SnapshotAt[], blobs: Readonly<Record<string, string>>): number {
  let n = 0;
  for (const sha of new Set(history.flatMap((h) => h.files.map((f) => f.sha256)))) n += blobs[sha]?.length ?? 0;
  return n;
}

function referenced(history: readonly SnapshotAt[], blobs: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of history) for (const f of h.files) if (blobs[f.sha256] !== undefined) out[f.sha256] = blobs[f.sha256]!;
  return out;
}
