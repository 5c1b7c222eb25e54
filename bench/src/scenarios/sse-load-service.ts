/**
 * The server side of the SSE load scenario, in its own process: the node-service example
 * (`startService`, as `examples/node-service/src/main.ts` starts it, on port 0) with the real
 * `OpenAIChatModel` against the test server. The only addition is a wrapper around its session
 * event bus (the same in-memory bus, 1,000 events per session, the example's default) that
 * notes when each text delta is appended to the log: the moment the server emits it.
 */
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { AgentEvent } from '@rxscope/core';
import { InMemorySessionEventBus, type SessionEventBus, type SessionEventsOptions } from '@rxscope/core/node';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { type RunningService, startService } from '@rxscope/example-node-service/dist/service.js';
import { serveActor, wallNow } from '../harness/actor.js';

/** What `snapshot` reports. */
export interface ServerMemory {
  /** `heapUsed` after forced GCs, bytes. */
  readonly heapUsed: number;
  readonly rss: number;
  /** `external` (array buffers included), bytes. */
  readonly external: number;
  /** Open TCP connections on the service. */
  readonly sockets: number;
}

/** What `sampling` reports: peaks of `process.memoryUsage()` sampled every 10 ms (no GC). */
export interface MemoryPeaks {
  readonly heapUsed: number;
  readonly external: number;
  readonly rss: number;
  /** Connections the server had that closed meanwhile, by remote port: when (`wallNow()`) and the bytes written to each. */
  readonly closed: Readonly<Record<string, { readonly at: number; readonly bytesWritten: number }>>;
}

class StampingBus implements SessionEventBus {
  readonly stamps = new Map<string, number>();
  stamping = false;
  constructor(private readonly inner: SessionEventBus) {}
  append(sessionId: string, event: AgentEvent): Promise<void> {
    if (this.stamping && event.type === 'TEXT_BLOCK_DELTA') this.stamps.set(event.id, wallNow());
    return this.inner.append(sessionId, event);
  }
  events(sessionId: string, options?: SessionEventsOptions) {
    return this.inner.events(sessionId, options);
  }
  delete(sessionId: string) {
    return this.inner.delete(sessionId);
  }
  close() {
    return this.inner.close();
  }
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

async function settledHeap(): Promise<number> {
  let last = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 6; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
    const now = process.memoryUsage().heapUsed;
    if (now >= last * 0.999) return now;
    last = now;
  }
  return last;
}

let service: RunningService | undefined;
const bus = new StampingBus(new InMemorySessionEventBus({ maxEvents: 1000 }));
const sockets = new Set<Socket>();
type Closed = Record<string, { at: number; bytesWritten: number }>;
let sampler: { timer: NodeJS.Timeout; peaks: MemoryPeaks & { closed: Closed } } | undefined;

serveActor({
  start: async (args: { modelUrl: string; maxQueuedBytes?: number }) => {
    service = await startService({
      model: new OpenAIChatModel({ model: 'load', apiKey: 'bench', baseURL: args.modelUrl, maxRetries: 0 }),
      modelLabel: 'load',
      port: 0,
      staticDir: fileURLToPath(new URL('../../../examples/node-service/public', import.meta.url)),
      corsOrigins: [],
      bus,
      // A stream's response starts at its first event or heartbeat; the client waits for that before
      // posting (so no stream misses its reply), and 15 s (the default) would be its wait.
      heartbeatMs: 1000,
      ...(args.maxQueuedBytes !== undefined ? { maxQueuedBytes: args.maxQueuedBytes } : {}),
    });
    service.server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      const port = String(socket.remotePort);
      socket.once('close', () => {
        sockets.delete(socket);
        if (sampler) sampler.peaks.closed[port] = { at: wallNow(), bytesWritten: socket.bytesWritten };
      });
    });
    return { url: service.url };
  },
  stamping: (on: boolean) => {
    bus.stamping = on;
  },
  /** The stamps so far (`[event id, wallNow()]`), then forgets them (so they weigh nothing in the next snapshot). */
  stamps: () => {
    const out = [...bus.stamps];
    bus.stamps.clear();
    return out;
  },
  snapshot: async (): Promise<ServerMemory> => {
    const heapUsed = await settledHeap();
    const m = process.memoryUsage();
    return { heapUsed, rss: m.rss, external: m.external, sockets: sockets.size };
  },
  startSampling: () => {
    const peaks = { heapUsed: 0, external: 0, rss: 0, closed: {} as Closed };
    const timer = setInterval(() => {
      const m = process.memoryUsage();
      peaks.heapUsed = Math.max(peaks.heapUsed, m.heapUsed);
      peaks.external = Math.max(peaks.external, m.external);
      peaks.rss = Math.max(peaks.rss, m.rss);
    }, 10);
    sampler = { timer, peaks };
  },
  stopSampling: (): MemoryPeaks => {
    clearInterval(sampler!.timer);
    const { peaks } = sampler!;
    sampler = undefined;
    return peaks;
  },
  running: () => service!.sessions.runningSessions().length,
  close: async () => {
    await service?.close();
  },
});
