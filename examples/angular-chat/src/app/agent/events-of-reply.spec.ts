import { type AgentEvent, createEvent } from '@rxscope/core';
import { type Observable, Subject, of } from 'rxjs';
import { cancelOnUnsubscribe } from './cancel-on-unsubscribe';
import { eventsOfReply } from './events-of-reply';

const start = (replyId: string) => createEvent('REPLY_START', {}, { replyId, source: 'a' });
const end = (replyId: string) => createEvent('REPLY_END', { finishReason: 'completed' }, { replyId, source: 'a' });
const text = (replyId: string, delta: string) =>
  createEvent('TEXT_BLOCK_DELTA', { blockId: 'b', delta }, { replyId, source: 'a' });

function collect(o: Observable<AgentEvent>) {
  const got: string[] = [];
  let completed = false;
  const sub = o.subscribe({
    next: (e) => got.push(`${e.replyId}:${e.type === 'TEXT_BLOCK_DELTA' ? e.delta : e.type}`),
    complete: () => (completed = true),
  });
  return { got, done: () => completed, sub };
}

describe('eventsOfReply', () => {
  it('holds events that arrive before the reply id, then emits the reply’s own up to REPLY_END', () => {
    const session = new Subject<AgentEvent>();
    const replyId = new Subject<string>();
    const r = collect(eventsOfReply(session, replyId));
    session.next(start('r1'));
    session.next(text('r1', 'a'));
    session.next(text('other', 'x'));
    expect(r.got).toEqual([]);
    replyId.next('r1');
    replyId.complete();
    session.next(text('r1', 'b'));
    session.next(end('r1'));
    session.next(text('r1', 'late'));
    expect(r.got).toEqual(['r1:REPLY_START', 'r1:a', 'r1:b', 'r1:REPLY_END']);
    expect(r.done()).toBe(true);
  });

  it('emits an event delivered twice once (a log replayed after a reconnection)', () => {
    const session = new Subject<AgentEvent>();
    const r = collect(eventsOfReply(session, of('r1')));
    const first = start('r1');
    const delta = text('r1', 'a');
    [first, delta, first, delta, end('r1')].forEach((e) => session.next(e));
    expect(r.got).toEqual(['r1:REPLY_START', 'r1:a', 'r1:REPLY_END']);
  });
});

describe('cancelOnUnsubscribe', () => {
  it('cancels when unsubscribed before the end, not after it', () => {
    const cancelled: string[] = [];
    const s1 = new Subject<AgentEvent>();
    const early = collect(
      s1.pipe(
        cancelOnUnsubscribe(
          () => cancelled.push('early'),
          (e) => e.type === 'REPLY_END',
        ),
      ),
    );
    s1.next(start('r1'));
    early.sub.unsubscribe();

    const s2 = new Subject<AgentEvent>();
    const late = collect(
      s2.pipe(
        cancelOnUnsubscribe(
          () => cancelled.push('late'),
          (e) => e.type === 'REPLY_END',
        ),
      ),
    );
    s2.next(end('r2'));
    late.sub.unsubscribe();

    expect(cancelled).toEqual(['early']);
  });
});
