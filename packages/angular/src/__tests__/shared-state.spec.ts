// The chat's `state`: STATE_SNAPSHOT replaces it, STATE_DELTA patches it, and a patch that does
// not apply keeps the last good state, marked stale until the next snapshot.
import { applyChatEvent } from '../chat-reducer.js';
import { EMPTY_VIEW, type ChatView } from '../chat-types.js';
import type { SharedStateEvent } from '../shared-state.js';

const snapshot = (value: Record<string, unknown>): SharedStateEvent => ({
  type: 'STATE_SNAPSHOT',
  replyId: 'r1',
  snapshot: value,
});
const delta = (ops: unknown[]): SharedStateEvent => ({ type: 'STATE_DELTA', replyId: 'r1', delta: ops as never });
const fold = (events: SharedStateEvent[], from: ChatView = EMPTY_VIEW) => events.reduce(applyChatEvent, from);

describe('shared state folded from STATE_SNAPSHOT and STATE_DELTA', () => {
  it('takes a snapshot, then applies patches to it', () => {
    const view = fold([
      snapshot({ plan: { steps: ['search'] }, done: 0 }),
      delta([
        { op: 'add', path: '/plan/steps/-', value: 'write' },
        { op: 'replace', path: '/done', value: 1 },
      ]),
    ]);
    expect(view.state).toEqual({ plan: { steps: ['search', 'write'] }, done: 1 });
    expect(view.stateStale).toBe(false);
  });

  it('keeps the last good state and marks it stale when a patch does not apply, until the next snapshot', () => {
    const good = fold([snapshot({ count: 1 })]);
    const broken = fold([delta([{ op: 'replace', path: '/missing/deep', value: 2 }])], good);
    expect(broken.state).toEqual({ count: 1 });
    expect(broken.stateStale).toBe(true);
    // Later patches were made against a state this client does not have: not applied either.
    const later = fold([delta([{ op: 'replace', path: '/count', value: 5 }])], broken);
    expect(later.state).toEqual({ count: 1 });
    expect(later.stateStale).toBe(true);
    const fresh = fold([snapshot({ count: 7 })], later);
    expect(fresh).toMatchObject({ state: { count: 7 }, stateStale: false });
  });

  it('marks a patch that comes before any snapshot, or that is not an array, as stale', () => {
    expect(fold([delta([{ op: 'add', path: '/a', value: 1 }])])).toMatchObject({ state: undefined, stateStale: true });
    const view = fold([snapshot({ a: 1 }), { type: 'STATE_DELTA', replyId: 'r1', delta: 'nonsense' as never }]);
    expect(view).toMatchObject({ state: { a: 1 }, stateStale: true });
  });

  it('refuses a snapshot that is not a JSON object', () => {
    const view = fold([snapshot({ a: 1 }), { type: 'STATE_SNAPSHOT', replyId: 'r1', snapshot: [1, 2] as never }]);
    expect(view).toMatchObject({ state: { a: 1 }, stateStale: true });
  });
});
