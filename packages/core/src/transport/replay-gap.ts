/**
 * Name of the `CUSTOM` event a session stream starts with when the `Last-Event-ID` a client
 * sent is no longer in the replay log (value: `{ lastEventId }`): events were lost, reload the
 * session's state. It carries no SSE `id:`, so a client keeps resuming from real events.
 *
 * @example
 * ```ts
 * events$.pipe(filter((e) => e.type === 'CUSTOM' && e.name === REPLAY_GAP)).subscribe(() => reloadSession());
 * ```
 */
export const REPLAY_GAP = 'rxscope.replay_gap';
