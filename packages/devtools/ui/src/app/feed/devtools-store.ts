import { DestroyRef, Injectable, InjectionToken, computed, inject, signal } from '@angular/core';
import type { ReplyRecord, ReplySummary } from '@rxscope/devtools';
import { type EventSourceFactory, feedMessages } from './feed-messages';
import { type FeedMessage, INITIAL_FEED_STATE, reduceFeed } from './feed-state';
import { replyTree } from '../details/reply-tree';

/** How the page opens the feed: the browser's `EventSource`, unless a provider says otherwise (credentials, another transport). */
export const EVENT_SOURCE = new InjectionToken<EventSourceFactory>('EVENT_SOURCE', {
  factory: () => (url) => new EventSource(url),
});

async function json<T>(res: Response): Promise<T> {
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as { code?: string; message?: string };
    throw new Error(body.message ?? `${res.status} ${body.code ?? res.statusText}`);
  }
  return (await res.json()) as T;
}

/**
 * The page's state: the feed's connection and the replies it lists (paths are relative to the
 * page's `<base href>`, the handler's mount path), the reply open in the view (its record, kept
 * up to date by the feed's events), and the actions (open, replay a cassette).
 */
@Injectable({ providedIn: 'root' })
export class DevtoolsStore {
  private readonly feed = signal(INITIAL_FEED_STATE);
  private readonly openId = signal<string | undefined>(undefined);
  private readonly openRecord = signal<ReplyRecord | undefined>(undefined);
  private readonly failure = signal<string | undefined>(undefined);

  readonly connection = computed(() => this.feed().connection);
  readonly restarted = computed(() => this.feed().restarted);
  readonly summaries = computed(() => [...this.feed().replies.values()]);
  readonly sessions = computed(() => replyTree(this.summaries()));
  readonly selectedId = this.openId.asReadonly();
  readonly record = this.openRecord.asReadonly();
  readonly error = this.failure.asReadonly();
  /** The summaries of the open reply's subagent replies that the list holds. */
  readonly children = computed(() => {
    const record = this.openRecord();
    const replies = this.feed().replies;
    if (!record) return [];
    const ids = new Set(record.children);
    return [...replies.values()].filter((r) => ids.has(r.replyId) || r.parentReplyId === record.summary.replyId);
  });

  constructor() {
    // The feed never errors (a dropped connection is a `down` message and is opened again).
    const subscription = feedMessages('api/feed', inject(EVENT_SOURCE)).subscribe({
      next: (m) => this.apply(m),
      error: (err: unknown) => this.failure.set(`The feed failed: ${String(err)}`),
    });
    inject(DestroyRef).onDestroy(() => subscription.unsubscribe());
  }

  /** Opens a reply in the view. */
  async select(replyId: string): Promise<void> {
    this.openId.set(replyId);
    this.failure.set(undefined);
    try {
      const record = await json<ReplyRecord>(await fetch(`api/replies/${encodeURIComponent(replyId)}`));
      if (this.openId() === replyId) this.openRecord.set(record);
    } catch (err) {
      this.failure.set(`Could not load reply ${replyId}: ${(err as Error).message}`);
    }
  }

  /** Sends a cassette to the server to replay, and opens the replayed reply. */
  async replay(cassette: string): Promise<void> {
    this.failure.set(undefined);
    try {
      JSON.parse(cassette);
    } catch {
      this.failure.set('That file is not a cassette: it is not JSON.');
      return;
    }
    try {
      const res = await fetch('api/replay', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: cassette,
      });
      const { replyId } = await json<{ replyId: string }>(res);
      await this.select(replyId);
    } catch (err) {
      this.failure.set(`Replay failed: ${(err as Error).message}`);
    }
  }

  /** Hides the notice that the server restarted. */
  dismissRestart(): void {
    this.feed.update((s) => ({ ...s, restarted: false }));
  }

  private apply(message: FeedMessage): void {
    const before = this.feed();
    this.feed.update((s) => reduceFeed(s, message));
    if (message.kind === 'hello') {
      if (before.serverId !== undefined && before.serverId !== message.serverId) {
        // The server restarted: what the view shows is gone from it.
        this.openId.set(undefined);
        this.openRecord.set(undefined);
      } else if (before.connection === 'reconnecting' && this.openId() !== undefined) {
        // Back on the same server: load the open reply again for the events sent while away.
        void this.select(this.openId()!);
      }
      void this.loadList();
    } else if (message.kind === 'event') {
      const e = message.event;
      this.openRecord.update((r) =>
        r && r.summary.replyId === e.replyId && !r.events.some((x) => x.seq === e.seq)
          ? { ...r, events: [...r.events, e] }
          : r,
      );
    } else if (message.kind === 'summary') {
      const s: ReplySummary = message.summary;
      this.openRecord.update((r) => {
        if (!r) return r;
        if (r.summary.replyId === s.replyId) return { ...r, summary: s };
        if (s.parentReplyId === r.summary.replyId && !r.children.includes(s.replyId))
          return { ...r, children: [...r.children, s.replyId] };
        return r;
      });
    }
  }

  private async loadList(): Promise<void> {
    try {
      const { replies } = await json<{ replies: ReplySummary[] }>(await fetch('api/replies'));
      this.feed.update((s) => reduceFeed(s, { kind: 'list', replies }));
    } catch (err) {
      this.failure.set(`Could not load the replies: ${(err as Error).message}`);
    }
  }
}
