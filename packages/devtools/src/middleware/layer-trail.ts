import type { RecordedHook } from '../record/records.js';

/** Where an event came from: its hook and the layers of that hook it passed, outermost first. */
export interface EventOrigin {
  readonly hook: RecordedHook;
  readonly layers: readonly string[];
}

/**
 * The layers each event has passed so far, keyed by the event object (weakly: an event nobody
 * holds any more is forgotten with it). A tapped layer adds its name as an event leaves it
 * (innermost first); the devtools layer of a hook turns the trail into the event's origin.
 */
export class LayerTrail {
  private readonly trails = new WeakMap<object, string[]>();
  private readonly origins = new WeakMap<object, EventOrigin>();

  /** An event left layer `name`. */
  passed(event: unknown, name: string): void {
    if (typeof event !== 'object' || event === null) return;
    const trail = this.trails.get(event);
    if (trail) trail.push(name);
    else this.trails.set(event, [name]);
  }

  /** The devtools layer of `hook` saw the event: the first to do so fixes its origin. */
  settle(event: unknown, hook: RecordedHook): EventOrigin {
    if (typeof event !== 'object' || event === null) return { hook, layers: [] };
    const known = this.origins.get(event);
    if (known) return known;
    const trail = this.trails.get(event);
    this.trails.delete(event);
    const origin: EventOrigin = { hook, layers: trail ? trail.reverse() : [] };
    this.origins.set(event, origin);
    return origin;
  }
}
