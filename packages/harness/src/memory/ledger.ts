import { FileTooLargeError, WORKSPACE_LAYOUT, type WorkspaceFileSystem } from '../workspace/index.js';

/**
 * Largest memory file read (`MEMORY.md`, a ledger, an archive): 4 MiB, thousands of pages of
 * notes. A larger one is a `FileTooLargeError`, never read into memory.
 */
export const MAX_MEMORY_FILE_BYTES = 4 * 1024 * 1024;

/** Where consolidated ledgers are kept (moved, never deleted). */
export const MEMORY_ARCHIVE = `${WORKSPACE_LAYOUT.memoryDir}/archive`;

const LEDGER = /^memory\/(\d{4}-\d{2}-\d{2})\.md$/;

/** `YYYY-MM-DD` of `date` in UTC. */
export const dayOf = (date: Date): string => date.toISOString().slice(0, 10);

/** The ledger file of a day: `memory/YYYY-MM-DD.md`. */
export const ledgerPathOf = (day: string): string => `${WORKSPACE_LAYOUT.memoryDir}/${day}.md`;

/** The day of a ledger path, or undefined for any other file. */
export const ledgerDayOf = (path: string): string | undefined => LEDGER.exec(path)?.[1];

/**
 * Text of a workspace memory file, or undefined when it does not exist; a file over
 * {@link MAX_MEMORY_FILE_BYTES} throws a `FileTooLargeError` saying how to shrink it.
 */
export async function readText(fs: WorkspaceFileSystem, path: string): Promise<string | undefined> {
  const info = await fs.stat(path);
  if (!info || info.type !== 'file') return undefined;
  const bytes = await fs.readFile(path, { maxBytes: MAX_MEMORY_FILE_BYTES }).catch((e: unknown) => {
    if (!(e instanceof FileTooLargeError)) throw e;
    throw new FileTooLargeError({
      path,
      maxBytes: MAX_MEMORY_FILE_BYTES,
      ...(e.size !== undefined ? { size: e.size } : {}),
      reader: 'a memory file',
      advice: 'Move older notes out of it (into another file under memory/) or shorten it.',
    });
  });
  return new TextDecoder().decode(bytes);
}

/** The daily ledgers in `memory/`, oldest first. */
export async function listLedgers(fs: WorkspaceFileSystem): Promise<string[]> {
  const entries = await fs.list(WORKSPACE_LAYOUT.memoryDir).catch(() => []);
  return entries
    .filter((e) => e.type === 'file' && ledgerDayOf(e.path) !== undefined)
    .map((e) => e.path)
    .sort();
}

/** The `- ` bullet lines of a Markdown text, without the marker. */
export const bulletsOf = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => /^\s*[-*]\s+(.*\S)\s*$/.exec(l)?.[1])
    .filter((l): l is string => l !== undefined);

const normalise = (fact: string) => fact.toLowerCase().replace(/\s+/g, ' ').trim();

const writing = new Map<string, Promise<unknown>>();

/**
 * Runs `edit` after every earlier edit of the same workspace file in this process has finished:
 * the flush and `memory_save` both append to today's ledger (read, add, write), and two
 * interleaved appends would lose one.
 */
export function editSerially<T>(fs: WorkspaceFileSystem, path: string, edit: () => Promise<T>): Promise<T> {
  const key = `${fs.root}\0${path}`;
  const result = (writing.get(key) ?? Promise.resolve()).then(edit, edit);
  const tail = result.catch(() => undefined);
  writing.set(key, tail);
  void tail.then(() => writing.get(key) === tail && writing.delete(key));
  return result;
}

/**
 * Appends `facts` to the day's ledger under `heading`, leaving out facts the ledger already
 * holds (compared case- and space-insensitively). Resolves with the facts written.
 */
export function appendToLedger(
  fs: WorkspaceFileSystem,
  day: string,
  heading: string,
  facts: readonly string[],
): Promise<string[]> {
  const path = ledgerPathOf(day);
  return editSerially(fs, path, () => append(fs, path, day, heading, facts));
}

async function append(
  fs: WorkspaceFileSystem,
  path: string,
  day: string,
  heading: string,
  facts: readonly string[],
): Promise<string[]> {
  const existing = (await readText(fs, path)) ?? '';
  const known = new Set(bulletsOf(existing).map(normalise));
  const fresh: string[] = [];
  for (const fact of facts) {
    const key = normalise(fact);
    if (!key || known.has(key)) continue;
    known.add(key);
    fresh.push(fact.trim());
  }
  if (!fresh.length) return [];
  const head = existing ? existing.replace(/\n*$/, '\n\n') : `# Memory ledger ${day}\n\n`;
  await fs.writeFile(path, `${head}## ${heading}\n${fresh.map((f) => `- ${f}`).join('\n')}\n`);
  return fresh;
}
