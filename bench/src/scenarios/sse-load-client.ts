/**
 * The client side of the SSE load scenario, in its own process: opens one event stream per
 * session (`GET /api/sessions/:id/events`, a connection each, as browsers do), POSTs a message to
 * each session, and notes when each text delta arrives (the moment its bytes are read from the
 * socket); checks that every stream carries a complete, correct reply. Also plays the slow client:
 * a raw socket that sends the GET and then never reads.
 */
import { Agent, request, type ClientRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { serveActor, wallNow } from '../harness/actor.js';

/** One stream's result. */
export interface StreamResult {
  readonly session: string;
  readonly ended: boolean;
  readonly finishReason: string | undefined;
  readonly textOk: boolean;
  readonly events: number;
  readonly error?: string;
}

interface Stream {
  readonly session: string;
  req?: ClientRequest;
  res?: IncomingMessage;
  text: string;
  events: number;
  finishReason: string | undefined;
  error?: string;
  /** Resolves once the service answered the GET (the stream is subscribed) or the request failed. */
  connected: Promise<void>;
}

const streams = new Map<string, Stream>();
/** Arrival of each text delta: event id → `wallNow()`. */
const arrivals = new Map<string, number>();
let expected = '';
let onEnded: (() => void) | undefined;
/** Set while `close` closes the streams itself. */
let closing = false;
const posts = new Agent({ keepAlive: true, maxSockets: 32 });

const endedCount = () => [...streams.values()].filter((s) => s.finishReason !== undefined || s.error).length;

function openStream(base: string, session: string): Stream {
  let connected!: () => void;
  const s: Stream = {
    session,
    text: '',
    events: 0,
    finishReason: undefined,
    connected: new Promise<void>((resolve) => (connected = resolve)),
  };
  streams.set(session, s);
  let buffer = '';
  s.req = request(`${base}/api/sessions/${session}/events`, { agent: false }, (res) => {
    s.res = res;
    connected();
    if (res.statusCode !== 200) s.error = `status ${res.statusCode}`;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      const at = wallNow();
      buffer += chunk;
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let id: string | undefined;
        let type: string | undefined;
        let data: string | undefined;
        for (const line of frame.split('\n')) {
          if (line.startsWith('id: ')) id = line.slice(4);
          else if (line.startsWith('event: ')) type = line.slice(7);
          else if (line.startsWith('data: ')) data = line.slice(6);
        }
        if (!type || !data) continue;
        s.events++;
        if (type === 'TEXT_BLOCK_DELTA') {
          s.text += (JSON.parse(data) as { delta: string }).delta;
          if (id) arrivals.set(id, at);
        } else if (type === 'REPLY_END') {
          s.finishReason = (JSON.parse(data) as { finishReason: string }).finishReason;
          if (endedCount() === streams.size) onEnded?.();
        }
      }
    });
    res.on('error', (e) => (s.error ??= e.message));
    // The server closing the stream before its REPLY_END (it dropped this reader) is a failure
    // to report now, not a wait for the timeout.
    res.on('close', () => {
      if (s.finishReason !== undefined || closing) return;
      s.error ??= 'the server closed the stream before REPLY_END';
      if (endedCount() === streams.size) onEnded?.();
    });
  });
  s.req.on('error', (e) => {
    connected();
    s.error ??= e.message;
    if (endedCount() === streams.size) onEnded?.();
  });
  s.req.end();
  return s;
}

function post(base: string, session: string, text: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ text });
    const req = request(
      `${base}/api/sessions/${session}/messages`,
      {
        method: 'POST',
        agent: posts,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

let slow: { socket: Socket; closedAt?: number } | undefined;

serveActor({
  /** Opens a stream per session, then POSTs `text` to each (32 at a time); resolves when all POSTs are answered. */
  open: async (args: { url: string; sessions: readonly string[]; text: string; expected: string }) => {
    expected = args.expected;
    // Every stream has started (its response headers, sent with the first heartbeat) before its
    // message goes out: a stream opened late (1,000 SYNs at once overflow the listen backlog; the
    // kernel retries them a second or more later) sees only what its session emits from then on.
    const opened = args.sessions.map((session) => openStream(args.url, session));
    await Promise.all(opened.map((s) => s.connected));
    const statuses: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < args.sessions.length) statuses.push(await post(args.url, args.sessions[next++]!, args.text));
      }),
    );
    return { accepted: statuses.filter((s) => s === 202).length };
  },
  /** Resolves when every stream saw its `REPLY_END` (or failed), with each stream's result. */
  ended: async (args: { timeoutMs: number }) => {
    if (endedCount() < streams.size)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, args.timeoutMs);
        onEnded = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    onEnded = undefined;
    return [...streams.values()].map((s): StreamResult => ({
      session: s.session,
      ended: s.finishReason !== undefined,
      finishReason: s.finishReason,
      textOk: s.text === expected,
      events: s.events,
      ...(s.error ? { error: s.error } : {}),
    }));
  },
  /** The arrivals so far (`[event id, wallNow()]`), then forgets them. */
  arrivals: () => {
    const out = [...arrivals];
    arrivals.clear();
    return out;
  },
  /** Closes every stream; resolves when they are closed. */
  close: async () => {
    closing = true;
    await Promise.all(
      [...streams.values()].map(
        (s) =>
          new Promise<void>((resolve) => {
            const socket = s.req?.socket;
            if (!socket || socket.destroyed) return resolve();
            socket.once('close', () => resolve());
            s.req!.destroy();
          }),
      ),
    );
    streams.clear();
    closing = false;
  },
  /** The slow client: sends the GET for `session`'s stream, then never reads. Resolves with its local port. */
  slow: (args: { url: string; session: string }) =>
    new Promise<number>((resolve, reject) => {
      const { hostname, port } = new URL(args.url);
      const socket = connect(Number(port), hostname, () => {
        socket.write(`GET /api/sessions/${args.session}/events HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
        socket.pause();
        resolve(socket.localPort!);
      });
      const state: { socket: Socket; closedAt?: number } = { socket };
      slow = state;
      socket.on('error', reject);
      socket.on('close', () => {
        state.closedAt = wallNow();
      });
    }),
  /** When the server closed the slow client's connection (`wallNow()`), if it did. */
  slowState: () => ({ closed: slow?.closedAt !== undefined, closedAt: slow?.closedAt ?? null }),
  closeSlow: () => {
    slow?.socket.destroy();
    slow = undefined;
  },
});
