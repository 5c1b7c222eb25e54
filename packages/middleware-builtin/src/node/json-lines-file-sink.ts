/// <reference types="node" />
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { AuditRecord, AuditSink } from '../audit-log/records.js';

/**
 * An audit sink that appends each record as one line of JSON to `path` (JSON lines), creating
 * the folder when missing. The file is only ever appended to; each line is written whole.
 *
 * @example
 * ```ts
 * const audit = new AuditLogMiddleware({ sink: jsonLinesFileSink('./logs/audit.jsonl') });
 * // later: (await readFile('./logs/audit.jsonl', 'utf8')).trim().split('\n').map((l) => JSON.parse(l))
 * ```
 */
export function jsonLinesFileSink(path: string): AuditSink {
  if (typeof path !== 'string' || !path) throw new TypeError('jsonLinesFileSink: path must be a non-empty string.');
  let ready: Promise<unknown> | undefined;
  return {
    write: async (record: AuditRecord) => {
      await (ready ??= mkdir(dirname(path), { recursive: true }));
      await appendFile(path, `${JSON.stringify(record)}\n`, { encoding: 'utf8', flag: 'a' });
    },
  };
}
