import type { RecordedHook } from '../record/records.js';

/** Where an event came from: its hook and the layers of that hook it passed, outermost first. */
export interface EventOrigin {
  readonly hook: RecordedHook;
  readonly layers: readonly string[];
}

const HOOKS: readonly RecordedHook[] = ['onAgent', 'onReasoning', 'onModelCall', 'onActing'];
const SLOTS = 1024;
const NONE = SLOTS - 1;
const AGENT_ORIGIN: EventOrigin = Object.freeze({ hook: 'onAgent', layers: [] });

/**
 * Which layer of which hook saw each event of the running replies first, keyed by the event
 * object. An event passes every layer of its hook from the one that first saw it outward (a layer
 * that replaces an event makes a new object, seen first by that layer), so the innermost layer
 * is all there is to note: one number per event, and the origins are built once per chain. A
 * plain Map, not a WeakMap (weak entries cost every event about 2 µs more in the collector);
 * what an outer layer dropped is cleared when no reply of the chain runs.
 */
export class LayerTrail {
  private readonly seen = new Map<object, number>();
  private readonly origins: EventOrigin[] = [];
  private running = 0;

  /** `layers`: per hook, the names of its layers, outermost first. */
  constructor(layers: Readonly<Record<RecordedHook, readonly string[]>>) {
    HOOKS.forEach((hook, h) => {
      const names = layers[hook];
      names.forEach((_, k) => (this.origins[h * SLOTS + k] = Object.freeze({ hook, layers: names.slice(0, k + 1) })));
      this.origins[h * SLOTS + NONE] = Object.freeze({ hook, layers: [] });
    });
  }

  /** The code a tapped layer notes: layer `k` (outermost first) of `hook`. */
  static code(hook: RecordedHook, k: number): number {
    return HOOKS.indexOf(hook) * SLOTS + k;
  }

  /** An event left the layer of `code`; only the first (innermost) layer to see it counts. */
  passed(event: unknown, code: number): void {
    if (typeof event === 'object' && event !== null && !this.seen.has(event)) this.seen.set(event, code);
  }

  /** The devtools layer of `hook` saw the event: when no layer of that hook did, it is the hook's own. */
  settle(event: unknown, hook: RecordedHook): void {
    if (typeof event === 'object' && event !== null && !this.seen.has(event))
      this.seen.set(event, HOOKS.indexOf(hook) * SLOTS + NONE);
  }

  /** The outermost layer records the event: its origin, and the entry is dropped. */
  take(event: unknown): EventOrigin {
    if (typeof event !== 'object' || event === null) return AGENT_ORIGIN;
    const code = this.seen.get(event);
    if (code === undefined) return AGENT_ORIGIN;
    this.seen.delete(event);
    return this.origins[code] ?? AGENT_ORIGIN;
  }

  /** A reply of the chain started. */
  open(): void {
    this.running++;
  }

  /** A reply of the chain ended: with none running, nothing left in the map belongs to anyone. */
  close(): void {
    if (--this.running <= 0) {
      this.running = 0;
      this.seen.clear();
    }
  }
}
