/**
 * `AtPathExpansionMiddleware` (`onAgent`): a user message that mentions `@path` gets that
 * workspace file attached, so the model sees it without a `read_file` round trip.
 *
 * - Only files inside the workspace are attached (confined like the file tools: `..`,
 *   absolute paths outside, symlinks leading out and special files are refused, and a note
 *   in the message says so).
 * - A mention that is not an existing file (`@alice`, `@here`) and e-mail addresses
 *   (`bob@example.com`) are left alone.
 * - Each file is attached once per reply however often it is mentioned; each is capped at
 *   `maxFileChars` and all of them at `maxTotalChars`; binary files are not attached.
 * - The attachment is a text block added to the same user message (so it is persisted with it):
 *   `<file path="src/app.ts">…</file>`.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, middlewares: [new AtPathExpansionMiddleware({ fileSystem: new LocalFileSystem('./ws') })] });
 * await agent.call('Why does @src/app.ts fail on @test/app.spec.ts?');
 * ```
 *
 * @module
 */
import { defer, from, type Observable, switchMap } from 'rxjs';
import type {
  AgentHandle,
  AgentEvent,
  AgentInput,
  ContentBlock,
  Middleware,
  Msg,
  Next,
  RuntimeContext,
} from '@rxscope/core';
import { decodeText, looksBinary } from '../text.js';
import type { WorkspaceFileSystem } from '../workspace-file-system.js';
import { WorkspacePathError } from '../workspace-path-error.js';
import { optionKeys } from '@rxscope/core';
import { HarnessOptionError, refuseUnknownOptions } from '../../options/index.js';

/** Options of {@link AtPathExpansionMiddleware}. */
export interface AtPathExpansionOptions {
  readonly fileSystem: WorkspaceFileSystem;
  /** Characters of one file attached at most. Default 20,000. */
  readonly maxFileChars?: number;
  /** Characters of all attachments of a reply at most. Default 60,000. */
  readonly maxTotalChars?: number;
}

// An @ at the start or after a space or an opening bracket/quote (so not an e-mail address),
// then path characters; trailing punctuation is not part of the path.
const MENTION = /(^|[\s([{"'`])@([A-Za-z0-9_.~/-][A-Za-z0-9_.~/+\-=,@%]*)/g;

// Every option, typed against AtPathExpansionOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<AtPathExpansionOptions>({
  fileSystem: true,
  maxFileChars: true,
  maxTotalChars: true,
});

/** See the module documentation. */
export class AtPathExpansionMiddleware implements Middleware {
  readonly key = 'AtPathExpansionMiddleware';
  private readonly fs: WorkspaceFileSystem;
  private readonly maxFileChars: number;
  private readonly maxTotalChars: number;

  constructor(options: AtPathExpansionOptions) {
    refuseUnknownOptions('AtPathExpansionMiddleware', options, OPTION_KEYS);
    if (!options?.fileSystem)
      throw new HarnessOptionError(
        'invalid_option',
        'AtPathExpansionMiddleware.fileSystem',
        'AtPathExpansionMiddleware needs the workspace fileSystem.',
      );
    this.fs = options.fileSystem;
    this.maxFileChars = options.maxFileChars ?? 20_000;
    this.maxTotalChars = options.maxTotalChars ?? 60_000;
  }

  onAgent(
    _agent: AgentHandle,
    _ctx: RuntimeContext,
    input: AgentInput,
    next: Next<AgentInput>,
  ): Observable<AgentEvent> {
    if (
      !input.messages.some((m) => m.role === 'user' && m.content.some((b) => b.type === 'text' && b.text.includes('@')))
    )
      return next(input);
    return defer(() => from(this.expand(input.messages))).pipe(switchMap((messages) => next({ ...input, messages })));
  }

  /** The messages with the files they mention attached. */
  async expand(messages: readonly Msg[]): Promise<Msg[]> {
    const seen = new Set<string>();
    const budget = { left: this.maxTotalChars };
    const out: Msg[] = [];
    for (const msg of messages) {
      if (msg.role !== 'user') {
        out.push(msg);
        continue;
      }
      const mentions = msg.content.flatMap((b) => (b.type === 'text' ? mentionsIn(b.text) : []));
      const attachments: string[] = [];
      for (const mention of mentions) {
        const attached = await this.attach(mention, seen, budget);
        if (attached) attachments.push(attached);
      }
      if (!attachments.length) out.push(msg);
      else
        out.push({
          ...msg,
          content: [...msg.content, { type: 'text', text: attachments.join('\n\n') } satisfies ContentBlock],
        });
    }
    return out;
  }

  private async attach(mention: string, seen: Set<string>, budget: { left: number }): Promise<string | undefined> {
    let path: string;
    try {
      path = await this.fs.resolve(mention);
    } catch (e) {
      if (e instanceof WorkspacePathError) return `[@${mention} was not attached: ${e.message}]`;
      return undefined;
    }
    if (seen.has(path)) return undefined;
    let info;
    try {
      info = await this.fs.stat(path);
    } catch (e) {
      if (e instanceof WorkspacePathError) return `[@${mention} was not attached: ${e.message}]`;
      return undefined;
    }
    if (info?.type !== 'file') return undefined;
    seen.add(path);
    if (budget.left <= 0)
      return `[@${mention} was not attached: the attachments of this message are at their limit; read it with read_file]`;
    // Only the first bytes: a character is at most 4 bytes, and the rest is cut anyway.
    const bytes = await this.fs.readFile(path, { maxBytes: this.maxFileChars * 4 + 4, truncate: true });
    if (looksBinary(bytes)) return `[@${mention} is a binary file and was not attached]`;
    const cap = Math.min(this.maxFileChars, budget.left);
    let text = decodeText(bytes);
    const whole = text.length <= cap && bytes.length === info.size;
    if (!whole)
      text = `${text.slice(0, cap)}\n[cut at ${cap.toLocaleString('en-US')} characters of ${info.size.toLocaleString('en-US')} bytes; read the rest with read_file]`;
    budget.left -= Math.min(text.length, cap);
    return `<file path="${path}">\n${text}\n</file>`;
  }
}

/** The `@mentions` of a text, trailing punctuation removed. */
export function mentionsIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(MENTION)) {
    const raw = m[2]!.replace(/[.,;:!?)\]}'"`]+$/, '');
    if (raw) out.push(raw);
  }
  return out;
}
