import type { RecordedEvent, ReplySummary } from '@rxscope/devtools';

/** What the page knows about its connection to the devtools server and the replies it lists. */
export interface FeedState {
  /** The server the page last spoke to (`hello`); a new one means the server restarted. */
  readonly serverId: string | undefined;
  readonly connection: 'connecting' | 'live' | 'reconnecting';
  /** The server restarted while the page was open: replies recorded before are gone. */
  readonly restarted: boolean;
  /** Every reply listed, by id. */
  readonly replies: ReadonlyMap<string, ReplySummary>;
}

/** What changes the state: a feed message, a loaded list, or the connection dropping. */
export type FeedMessage =
  | { readonly kind: 'hello'; readonly serverId: string; readonly startedAt: number }
  | { readonly kind: 'summary'; readonly summary: ReplySummary }
  | { readonly kind: 'event'; readonly event: RecordedEvent }
  | { readonly kind: 'list'; readonly replies: readonly ReplySummary[] }
  | { readonly kind: 'down' };

/** The state before the feed said anything. */
export const INITIAL_FEED_STATE: FeedState = {
  serverId: undefined,
  connection: 'connecting',
  restarted: false,
  replies: new Map(),
};

/**
 * Folds one message into the state. A `hello` from another server than before marks a restart
 * and drops the list (it is loaded again after every `hello`); a dropped connection keeps the
 * list on screen and says it reconnects.
 *
 * @example
 * ```ts
 * const s = reduceFeed(INITIAL_FEED_STATE, { kind: 'hello', serverId: 'a', startedAt: 0 });
 * s.connection; // 'live'
 * ```
 */
export function reduceFeed(state: FeedState, message: FeedMessage): FeedState {
  switch (message.kind) {
    case 'hello': {
      const restarted = state.serverId !== undefined && state.serverId !== message.serverId;
      return {
        serverId: message.serverId,
        connection: 'live',
        restarted: state.restarted || restarted,
        replies: restarted ? new Map() : state.replies,
      };
    }
    case 'down':
      return state.connection === 'reconnecting' ? state : { ...state, connection: 'reconnecting' };
    case 'summary': {
      const replies = new Map(state.replies);
      replies.set(message.summary.replyId, message.summary);
      return { ...state, replies };
    }
    case 'list': {
      // The list answers after the feed's hello: summaries the feed sent meanwhile are as new.
      const replies = new Map(message.replies.map((r) => [r.replyId, r]));
      for (const [id, r] of state.replies) {
        const listed = replies.get(id);
        if (!listed || listed.eventCount < r.eventCount) replies.set(id, r);
      }
      return { ...state, replies };
    }
    case 'event':
      return state;
  }
}
