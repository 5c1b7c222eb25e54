import type { RecordedHook } from '../record/records.js';

/** Where an event came from: its hook and the layers of that hook it passed, outermost first. */
export interface EventOrigin {
  hook: RecordedHook | undefined;
  readonly layers: string[];
}

/**
 * The layers each event of the running replies has passed, keyed by the event object. A tapped
 * layer adds its name as an event leaves it (innermost first); the devtools layer of a hook fixes
 * the event's hook (the first to see it); the outermost `onAgent` layer takes the entry out. A
 * plain Map, not a WeakMap: weak entries made every event cost about 2 µs more in the
 * collector; what an outer layer dropped is cleared when no reply of the chain runs.
 */
export class LayerTrail {
  private readonly trails = new Map<object, EventOrigin>();
  private running = 0;

  /** An event left layer `name`. */
  passed(event: unknown, name: string): void {
    if (typeof event !== 'object' || event === null) return;
    const trail = this.trails.get(event);
    if (!trail) this.trails.set(event, { hook: undefined, layers: [name] });
    else if (trail.hook === undefined) trail.layers.push(name);
  }

  /** The devtools layer of `hook` saw the event: the first to do so fixes its hook. */
  settle(event: unknown, hook: RecordedHook): void {
    if (typeof event !== 'object' || event === null) return;
    const trail = this.trails.get(event);
    if (!trail) this.trails.set(event, { hook, layers: [] });
    else if (trail.hook === undefined) {
      trail.hook = hook;
      trail.layers.reverse();
    }
  }

  /** The outermost layer records the event: its origin, and the entry is dropped. */
  take(event: unknown): { readonly hook: RecordedHook; readonly layers: readonly string[] } {
    if (typeof event !== 'object' || event === null) return { hook: 'onAgent', layers: [] };
    const trail = this.trails.get(event);
    if (!trail) return { hook: 'onAgent', layers: [] };
    this.trails.delete(event);
    return trail.hook === undefined
      ? { hook: 'onAgent', layers: trail.layers.reverse() }
      : { hook: trail.hook, layers: trail.layers };
  }

  /** A reply of the chain started. */
  open(): void {
    this.running++;
  }

  /** A reply of the chain ended: with none running, nothing left in the map belongs to anyone. */
  close(): void {
    if (--this.running <= 0) {
      this.running = 0;
      this.trails.clear();
    }
  }
}
