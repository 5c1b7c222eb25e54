import type { RecordedEvent, ReplySummary } from '@rxscope/devtools';
import { Observable } from 'rxjs';
import type { FeedMessage } from './feed-state';

/** Opens the `EventSource` of the feed (the browser's by default). */
export type EventSourceFactory = (url: string) => EventSource;

/** How long the page waits before opening the feed again after the browser gave up on it. */
const RETRY_MS = 1000;
/** `EventSource.CLOSED`: the browser will not reconnect by itself. */
const CLOSED = 2;

function parse<T>(data: unknown): T | undefined {
  try {
    return JSON.parse(String(data)) as T;
  } catch {
    return undefined; // a malformed message is skipped; the next summary brings the state back
  }
}

/**
 * The devtools feed (`GET api/feed`, server-sent events) as messages: `hello`, `summary`,
 * `event`, and `down` whenever the connection drops. The browser reconnects on its own after a
 * network error; when it gives up (the server answered with an error), the feed is opened again
 * after a second, so a restarted server is found again either way.
 *
 * @example
 * ```ts
 * feedMessages('api/feed').subscribe((m) => console.log(m.kind));
 * ```
 */
export function feedMessages(
  url: string,
  open: EventSourceFactory = (u) => new EventSource(u),
): Observable<FeedMessage> {
  return new Observable<FeedMessage>((subscriber) => {
    let source: EventSource | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const connect = () => {
      const es = (source = open(url));
      es.addEventListener('hello', (m) => {
        const hello = parse<{ serverId: string; startedAt: number }>(m.data);
        if (hello) subscriber.next({ kind: 'hello', serverId: hello.serverId, startedAt: hello.startedAt });
      });
      es.addEventListener('summary', (m) => {
        const value = parse<ReplySummary>(m.data);
        if (value) subscriber.next({ kind: 'summary', summary: value });
      });
      es.addEventListener('event', (m) => {
        const value = parse<RecordedEvent>(m.data);
        if (value) subscriber.next({ kind: 'event', event: value });
      });
      es.onerror = () => {
        subscriber.next({ kind: 'down' });
        if (es.readyState === CLOSED) {
          es.close();
          timer = setTimeout(connect, RETRY_MS);
        }
      };
    };
    connect();
    return () => {
      clearTimeout(timer);
      source?.close();
    };
  });
}
