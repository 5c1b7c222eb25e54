import { parse, stringify, YAMLParseError } from 'yaml';
import { RxscopeError } from '@rxscope/core';

/** A Markdown file split into its YAML front matter and its body. */
export interface FrontMatterDocument {
  /** The front matter's fields (`{}` when the file has none). */
  readonly data: Readonly<Record<string, unknown>>;
  /** The text after the front matter, trimmed. */
  readonly body: string;
  /** True when the file starts with a `---` block. */
  readonly hasFrontMatter: boolean;
}

/** A front matter block that is not valid YAML or not a mapping; the message names the file. */
export class FrontMatterError extends RxscopeError {
  override readonly name = 'FrontMatterError';
  readonly code = 'invalid_front_matter';
}

// `---` on the first line, the YAML, `---` on a line of its own; CRLF files too.
const BLOCK = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n?---[ \t]*(?:\r?\n|$)/;

/**
 * Splits a Markdown file (`subagents/<name>.md`, `skills/<name>/SKILL.md`) into its YAML front
 * matter and body. A file without a leading `---` block has `data: {}`. Invalid YAML, or front
 * matter that is not a mapping, throws a {@link FrontMatterError} naming `file` and the line.
 *
 * @example
 * ```ts
 * const { data, body } = parseFrontMatter('---\nname: reviewer\ntools: [read_file]\n---\nReview the diff.', 'subagents/reviewer.md');
 * // data.name === 'reviewer', data.tools → ['read_file'], body === 'Review the diff.'
 * ```
 */
export function parseFrontMatter(text: string, file: string): FrontMatterDocument {
  const match = BLOCK.exec(text);
  if (!match) return { data: {}, body: text.replace(/^\uFEFF/, '').trim(), hasFrontMatter: false };
  let data: unknown;
  try {
    data = parse(match[1]!);
  } catch (e) {
    // The YAML starts on line 2 of the file.
    const line = e instanceof YAMLParseError && e.linePos ? ` at line ${e.linePos[0].line + 1}` : '';
    throw new FrontMatterError(
      `${file}: the front matter is not valid YAML${line}: ${(e as Error).message.split('\n')[0]}`,
      { cause: e },
    );
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw new FrontMatterError(
      `${file}: the front matter must be a mapping of fields (name: ..., description: ...), got ${Array.isArray(data) ? 'a list' : typeof data}.`,
    );
  }
  return { data: data as Record<string, unknown>, body: text.slice(match[0].length).trim(), hasFrontMatter: true };
}

/**
 * The text of a Markdown file with `data` as YAML front matter, then `body`; what
 * {@link parseFrontMatter} reads back.
 *
 * @example
 * ```ts
 * await fs.writeFile('skills/deploy/SKILL.md', formatFrontMatter({ name: 'deploy', description: 'Ship a release' }, steps));
 * ```
 */
export function formatFrontMatter(data: Readonly<Record<string, unknown>>, body: string): string {
  return `---\n${stringify(data).trimEnd()}\n---\n${body.trim()}\n`;
}
