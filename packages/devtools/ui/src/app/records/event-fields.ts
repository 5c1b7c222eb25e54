import type { RecordedEvent } from '@rxscope/devtools';

/**
 * Typed reads of a recorded event's fields. The recorder keeps events as plain JSON (redacted,
 * truncated, possibly flagged as malformed), so every read checks the type it expects and a
 * missing or odd field reads as `undefined` instead of breaking the page.
 */
export function eventType(e: RecordedEvent): string {
  const type = e.event['type'];
  return typeof type === 'string' ? type : '?';
}

/** A string field of the event, or `undefined`. */
export function stringField(e: RecordedEvent, key: string): string | undefined {
  const value = e.event[key];
  return typeof value === 'string' ? value : undefined;
}

/** A number field of the event, or `undefined`. */
export function numberField(e: RecordedEvent, key: string): number | undefined {
  const value = e.event[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** An array field of the event (its items unchecked), or an empty array. */
export function arrayField(e: RecordedEvent, key: string): readonly unknown[] {
  const value = e.event[key];
  return Array.isArray(value) ? (value as unknown[]) : [];
}

/** An object field of the event, or `undefined`. */
export function objectField(e: RecordedEvent, key: string): Record<string, unknown> | undefined {
  const value = e.event[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Reads a field of a plain object the way the getters above read an event's. */
export function field(obj: unknown, key: string): unknown {
  return typeof obj === 'object' && obj !== null ? (obj as Record<string, unknown>)[key] : undefined;
}

/** Whether the event is a streamed piece (`*_DELTA`): counted, but not drawn one by one. */
export function isDelta(e: RecordedEvent): boolean {
  return eventType(e).endsWith('_DELTA');
}
