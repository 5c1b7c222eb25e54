/**
 * A gate on the test server's streamed responses (server process only): while it is closed, a
 * response stops right after writing a line that contains `marker`, and its later lines (and its
 * end) wait until the gate opens. A scenario closes it, starts N replies, waits until all N are
 * held mid-stream, measures its process (forced GC, heap), and opens it: "every reply in flight at
 * once" holds however long the client took to start them all.
 *
 * The test server has no such hook, so the gate wraps `ServerResponse.prototype.write` and `end`
 * of this process (the server process runs nothing else).
 */
import { ServerResponse } from 'node:http';

/** Control of a {@link installStreamGate} gate. */
export interface StreamGate {
  close(): void;
  /** Opens the gate and lets every held response go on, in the order its writes came. */
  open(): void;
  /** Responses held right now. */
  held(): number;
}

type Write = (...args: unknown[]) => unknown;

/** Installs the gate (open) on every response of this process. */
export function installStreamGate(marker: string): StreamGate {
  let closed = false;
  const held = new Map<ServerResponse, (() => void)[]>();
  /* eslint-disable @typescript-eslint/unbound-method */
  const write = ServerResponse.prototype.write as unknown as Write;
  const end = ServerResponse.prototype.end as unknown as Write;
  /* eslint-enable @typescript-eslint/unbound-method */
  (ServerResponse.prototype as unknown as { write: Write }).write = function (this: ServerResponse, ...args) {
    const queue = held.get(this);
    if (queue) {
      queue.push(() => write.apply(this, args));
      return true;
    }
    const written = write.apply(this, args);
    if (closed && typeof args[0] === 'string' && args[0].includes(marker)) held.set(this, []);
    return written;
  };
  (ServerResponse.prototype as unknown as { end: Write }).end = function (this: ServerResponse, ...args) {
    const queue = held.get(this);
    if (!queue) return end.apply(this, args);
    queue.push(() => end.apply(this, args));
    return this;
  };
  return {
    close: () => {
      closed = true;
    },
    open: () => {
      closed = false;
      const all = [...held.values()];
      held.clear();
      for (const queue of all) for (const go of queue) go();
    },
    held: () => held.size,
  };
}
