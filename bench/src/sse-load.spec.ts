// The SSE load scenario at CI size: the node-service example holding 200 event streams of agent
// replies (service, client and model in three processes), and a client that stops reading.
// Asserts what a user relies on, never a timing: every stream gets its whole reply, memory per
// stream stays in bounds, and the slow client is dropped instead of piling up in the server.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = join(__dirname, '..', '..');
const STREAMS = 200;
// A reader on a 2-core machine busy with other test workers can fall a few 64 KiB frames behind;
// 4 MiB queued (beside about 4 MiB of kernel buffers) is a lag only a client that stopped reading
// reaches within the 20 MiB reply.
const MAX_QUEUED = 4 * 2 ** 20;

interface Memory {
  heapUsed: number;
  sockets: number;
}
interface Figures {
  memory: { base: Memory; held: Memory; ended: Memory; left: Memory };
  results: { streams: number; accepted: number; complete: number; failures: unknown[] };
  latency: { n: number };
  slow: {
    mode: 'reader' | 'reader+slow';
    reader: { ended: boolean; finishReason: string; textOk: boolean };
    slowDroppedAfterMs?: number;
    replyMs: number;
    before: Memory;
    after: Memory;
  }[];
}

let figures: Figures;

beforeAll(() => {
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'bench'], {
    cwd: ROOT,
    stdio: 'pipe',
  });
  const measure = pathToFileURL(join(ROOT, 'bench', 'dist', 'scenarios', 'sse-load-measure.js')).href;
  const sizes = {
    streams: STREAMS,
    chunks: 10,
    chunkDelayMs: 20,
    warmup: 10,
    bigChunks: 320,
    maxQueuedBytes: MAX_QUEUED,
  };
  const script = [
    `import { measureSseLoad } from '${measure}';`,
    `const figures = await measureSseLoad(${JSON.stringify(sizes)}, () => {});`,
    'console.log(JSON.stringify(figures));',
  ].join('\n');
  const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 150_000,
  });
  figures = JSON.parse(out) as Figures;
}, 180_000);

describe('the node-service under load (200 concurrent SSE streams)', () => {
  it('streams every reply, whole and well ended, to every client', () => {
    expect(figures.results).toEqual({ streams: STREAMS, accepted: STREAMS, complete: STREAMS, failures: [] });
    // Every text delta of every reply was matched between the service's log and the client.
    expect(figures.latency.n).toBe(STREAMS * 10);
  });

  it('holds the streams in bounded memory, and the streams close when the clients leave', () => {
    const { base, held, ended, left } = figures.memory;
    // About 0.1 MB per stream with its reply in flight on a 2-core machine; 1 MB would be a leak.
    expect((held.heapUsed - base.heapUsed) / STREAMS).toBeLessThan(1_000_000);
    expect((ended.heapUsed - base.heapUsed) / STREAMS).toBeLessThan(1_000_000);
    expect(held.sockets).toBeGreaterThanOrEqual(STREAMS);
    // What stays is the sessions' agents and logs, not the connections (only pooled POST sockets are left).
    expect(left.sockets).toBeLessThanOrEqual(32);
    expect(left.heapUsed).toBeLessThanOrEqual(ended.heapUsed);
  });

  it('drops a client that stops reading, while the reader of the same session gets the whole reply', () => {
    const [reader, slow] = figures.slow;
    expect(reader).toMatchObject({ mode: 'reader', reader: { ended: true, finishReason: 'completed', textOk: true } });
    expect(slow).toMatchObject({
      mode: 'reader+slow',
      reader: { ended: true, finishReason: 'completed', textOk: true },
    });
    // The server closed the slow connection: its queue passed maxQueuedBytes (20 MiB were streamed, about 4 MiB of them into kernel buffers).
    expect(slow!.slowDroppedAfterMs).toEqual(expect.any(Number));
    // Nothing of the slow client is left in the server after the reply.
    expect(slow!.after.heapUsed - slow!.before.heapUsed).toBeLessThan(
      reader!.after.heapUsed - reader!.before.heapUsed + 4 * 2 ** 20,
    );
  });
});
