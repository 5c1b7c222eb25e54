import type { ReplySummary } from '@rxscope/devtools';

/** A reply in the list, with its subagent replies under it. */
export interface ReplyNode {
  readonly summary: ReplySummary;
  readonly depth: number;
  readonly children: readonly ReplyNode[];
}

/** Sessions in the list: the replies of each session (newest first), and replies without a session. */
export interface SessionGroup {
  /** `undefined` for replies made outside a session. */
  readonly sessionId: string | undefined;
  readonly replies: readonly ReplyNode[];
}

/**
 * Groups replies by session and nests each subagent reply under its parent (a reply whose parent
 * is not in the list shows at the top level, so nothing recorded is hidden). Newest first.
 *
 * @example
 * ```ts
 * replyTree(summaries)[0]?.replies[0]?.children; // the subagents of the newest reply
 * ```
 */
export function replyTree(summaries: readonly ReplySummary[]): SessionGroup[] {
  const byId = new Map(summaries.map((s) => [s.replyId, s]));
  const kids = new Map<string, ReplySummary[]>();
  const roots: ReplySummary[] = [];
  for (const s of summaries) {
    if (s.parentReplyId !== undefined && byId.has(s.parentReplyId) && s.parentReplyId !== s.replyId) {
      kids.set(s.parentReplyId, [...(kids.get(s.parentReplyId) ?? []), s]);
    } else roots.push(s);
  }
  const newest = (a: ReplySummary, b: ReplySummary) => b.startedAt - a.startedAt;
  const node = (s: ReplySummary, depth: number, seen: Set<string>): ReplyNode => {
    seen.add(s.replyId);
    const children = (kids.get(s.replyId) ?? [])
      .filter((c) => !seen.has(c.replyId))
      .sort((a, b) => a.startedAt - b.startedAt)
      .map((c) => node(c, depth + 1, seen));
    return { summary: s, depth, children };
  };
  const groups = new Map<string | undefined, ReplyNode[]>();
  for (const root of roots.sort(newest)) {
    const list = groups.get(root.sessionId) ?? [];
    list.push(node(root, 0, new Set()));
    groups.set(root.sessionId, list);
  }
  return [...groups].map(([sessionId, replies]) => ({ sessionId, replies }));
}
