import type { ReplySummary } from '@rxscope/devtools';
import { type FeedMessage, INITIAL_FEED_STATE, reduceFeed } from './feed-state';

const summary = (replyId: string, eventCount = 1): ReplySummary => ({
  replyId,
  agentName: 'assistant',
  startedAt: 1,
  status: 'running',
  eventCount,
  toolCalls: 0,
  flagged: 0,
});
const fold = (...messages: FeedMessage[]) => messages.reduce(reduceFeed, INITIAL_FEED_STATE);

describe('feed state', () => {
  it('is live after hello and lists the replies of the list and of the feed', () => {
    const s = fold(
      { kind: 'hello', serverId: 'a', startedAt: 0 },
      { kind: 'summary', summary: summary('r2', 5) },
      { kind: 'list', replies: [summary('r1'), summary('r2', 3)] },
    );
    expect(s.connection).toBe('live');
    expect(s.restarted).toBe(false);
    // The feed's summary is newer than the list's answer (5 events against 3): it stays.
    expect([...s.replies.values()].map((r) => [r.replyId, r.eventCount])).toEqual([
      ['r1', 1],
      ['r2', 5],
    ]);
  });

  it('says it reconnects when the connection drops, and keeps the list on screen', () => {
    const s = fold(
      { kind: 'hello', serverId: 'a', startedAt: 0 },
      { kind: 'summary', summary: summary('r1') },
      { kind: 'down' },
    );
    expect(s.connection).toBe('reconnecting');
    expect(s.replies.size).toBe(1);
    const back = reduceFeed(s, { kind: 'hello', serverId: 'a', startedAt: 0 });
    expect([back.connection, back.restarted, back.replies.size]).toEqual(['live', false, 1]);
  });

  it('notices a restart (another serverId) and drops the replies of the old server', () => {
    const s = fold(
      { kind: 'hello', serverId: 'a', startedAt: 0 },
      { kind: 'summary', summary: summary('r1') },
      { kind: 'down' },
      { kind: 'hello', serverId: 'b', startedAt: 9 },
    );
    expect([s.connection, s.restarted, s.serverId, s.replies.size]).toEqual(['live', true, 'b', 0]);
    // It stays said until the notice is dismissed, even after more messages.
    expect(reduceFeed(s, { kind: 'list', replies: [summary('r9')] }).restarted).toBe(true);
  });
});
