import type { MessageBus } from '../bus/index.js';

/**
 * A message pushed to a session's inbox on the {@link MessageBus}: `InboxMiddleware` hands it to
 * the agent (`agent.send()`), so it joins the running reply's next model request as a user hint,
 * or the next reply when none runs. Background work (a tool call that outlived its timeout, a
 * background subagent) delivers its result this way.
 *
 * @example
 * ```ts
 * const message: InboxMessage = { text: 'Also update the changelog.', from: 'reviewer' };
 * await pushToInbox(bus, 'session-1', message);
 * ```
 */
export interface InboxMessage {
  /** What the agent reads. */
  readonly text: string;
  /** Who sent it (a person, a process, a background task); shown to the agent before the text. */
  readonly from?: string;
}

/**
 * The queue of a session's inbox on the bus: `inbox:<sessionId>`.
 *
 * @example
 * ```ts
 * await bus.push(inboxQueueOf(agent.sessionId), { text: 'Stop after the first file.' });
 * ```
 */
export function inboxQueueOf(sessionId: string): string {
  if (typeof sessionId !== 'string' || sessionId === '')
    throw new TypeError('The inbox needs a session id (a non-empty string).');
  return `inbox:${sessionId}`;
}

/**
 * Pushes a message to a session's inbox, from this process or any other one on the same bus. The
 * message waits on the bus until the session's `InboxMiddleware` takes it: at once when a reply
 * runs, else when the next reply starts — which an `InboxWakeUps` starts at once (a wake-up
 * notice goes to {@link wakeQueueOf}, announced on {@link INBOX_WAKE_CHANNEL}).
 *
 * @example
 * ```ts
 * // in the HTTP front process, for a session a worker is running
 * await pushToInbox(bus, sessionId, { text: req.body.text, from: 'user' });
 * ```
 */
export function pushToInbox(bus: MessageBus, sessionId: string, message: string | InboxMessage): Promise<void> {
  return Promise.resolve()
    .then(() => bus.push(inboxQueueOf(sessionId), checkInboxMessage(message)))
    .then(() => bus.push(wakeQueueOf(sessionId), { at: Date.now() }))
    .then(() => bus.publish(INBOX_WAKE_CHANNEL, { sessionId }));
}

/**
 * The broadcast channel `pushToInbox` announces each message on (`{sessionId}`), for
 * `InboxWakeUps` in every process; the process that takes the session's wake-up notice (its
 * queue, {@link wakeQueueOf}, drained once across processes) wakes it.
 *
 * @example
 * ```ts
 * bus.subscribe<{ sessionId: string }>(INBOX_WAKE_CHANNEL).subscribe(({ sessionId }) => console.log('inbox of', sessionId));
 * ```
 */
export const INBOX_WAKE_CHANNEL = 'inbox-wake';

/**
 * The queue of a session's wake-up notices: one per message pushed, taken by the `InboxWakeUps`
 * that wakes the session, or dropped by the session's next reply (which takes the messages).
 *
 * @example
 * ```ts
 * const notices = await bus.drain(wakeQueueOf('s1'));
 * ```
 */
export function wakeQueueOf(sessionId: string): string {
  return `${inboxQueueOf(sessionId)}:wake`;
}

/** The message as stored: a string becomes `{text}`; anything without text is refused. */
export function checkInboxMessage(message: unknown): InboxMessage {
  const m = typeof message === 'string' ? { text: message } : message;
  if (
    typeof m !== 'object' ||
    m === null ||
    typeof (m as InboxMessage).text !== 'string' ||
    !(m as InboxMessage).text.trim()
  ) {
    throw new TypeError(`An inbox message is a non-empty string or {text, from?}; got ${JSON.stringify(message)}.`);
  }
  const { text, from } = m as InboxMessage;
  if (from !== undefined && typeof from !== 'string')
    throw new TypeError('An inbox message\'s "from" must be a string.');
  return from ? { text, from } : { text };
}

/** What the agent reads for an inbox message: the text, after who sent it when that is known. */
export function inboxText(message: InboxMessage): string {
  return message.from ? `[message from ${message.from}]\n${message.text}` : message.text;
}
