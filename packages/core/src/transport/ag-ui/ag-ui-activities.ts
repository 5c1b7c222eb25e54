import { EventType, type BaseEvent } from '@ag-ui/core';
import { diffJson, type JsonObject } from '../../util/json-patch.js';

/**
 * The CUSTOM events of rxscope's middlewares that AG-UI shows as activities, by name: the
 * activity type and the id of its message (one per thread, so a later run updates it in place).
 */
export const ACTIVITY_OF_CUSTOM: Readonly<Record<string, { readonly activityType: string; readonly slot: string }>> = {
  todos_updated: { activityType: 'todos', slot: 'todos' },
  plan_mode_changed: { activityType: 'plan_mode', slot: 'plan_mode' },
};

/**
 * The activity messages of one run: the first report of an activity is an `ACTIVITY_SNAPSHOT`
 * (its whole content), each later one an `ACTIVITY_DELTA` (JSON Patch from the previous content),
 * nothing when the content did not change.
 */
export class AgUiActivities {
  private readonly contents = new Map<string, JsonObject>();

  report(
    messageId: string,
    activityType: string,
    content: JsonObject,
    base: { readonly timestamp: number; readonly subagentRunId?: string },
  ): BaseEvent[] {
    const previous = this.contents.get(messageId);
    this.contents.set(messageId, content);
    if (!previous) return [{ type: EventType.ACTIVITY_SNAPSHOT, messageId, activityType, content, ...base }];
    const patch = diffJson(previous, content);
    return patch.length ? [{ type: EventType.ACTIVITY_DELTA, messageId, activityType, patch, ...base }] : [];
  }
}

/** A CUSTOM value as activity content: an object as it is, anything else under `value`. */
export function activityContent(value: unknown): JsonObject {
  const json = JSON.parse(JSON.stringify(value ?? null)) as unknown;
  return json !== null && typeof json === 'object' && !Array.isArray(json)
    ? (json as JsonObject)
    : { value: json as never };
}
