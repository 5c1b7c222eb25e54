import { randomUUID } from 'node:crypto';
import { type Message, type Part, Role } from '@a2a-js/sdk';

/** A text part. */
export const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

/** A JSON data part. */
export const dataPart = (value: unknown): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

/** A part of raw bytes (media). */
export const rawPart = (bytes: Buffer, mediaType: string): Part => ({
  content: { $case: 'raw', value: bytes },
  metadata: undefined,
  filename: '',
  mediaType,
});

/** A message of the given role in a task. */
export function a2aMessage(
  role: 'user' | 'agent',
  parts: Part[],
  ids: { readonly contextId?: string; readonly taskId?: string },
  metadata?: Record<string, unknown>,
): Message {
  return {
    messageId: randomUUID(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: role === 'user' ? Role.ROLE_USER : Role.ROLE_AGENT,
    parts,
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The text of the parts (text parts as they are, data parts as JSON), one part a paragraph. */
export function textOfParts(parts: readonly Part[] | undefined): string {
  return (parts ?? [])
    .map((p) => {
      const c = p.content;
      if (c?.$case === 'text') return c.value;
      if (c?.$case === 'data') return JSON.stringify(c.value);
      if (c?.$case === 'url') return c.value;
      return '';
    })
    .filter((t) => t !== '')
    .join('\n\n');
}

/** The value of the first data part, if any. */
export function dataOfParts(parts: readonly Part[] | undefined): unknown {
  for (const p of parts ?? []) if (p.content?.$case === 'data') return p.content.value;
  return undefined;
}
