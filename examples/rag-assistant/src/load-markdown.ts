/**
 * Reads every Markdown file under a folder as knowledge documents: the path relative to the
 * folder is both the document id and its `source`, so citations name the file.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { KnowledgeDocument } from '@rxscope/middleware-builtin/knowledge';

export async function loadMarkdown(folder: string): Promise<KnowledgeDocument[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
  if (!files.length) throw new Error(`No Markdown files under ${folder}.`);
  return Promise.all(
    files.map(async (file) => {
      const source = relative(folder, file).split(sep).join('/');
      return { id: source, content: await readFile(file, 'utf8'), metadata: { source } };
    }),
  );
}
