// The docs' code as the consumer test builds it: every file a `<!-- snippet: ... -->` block of
// docs/*.md mirrors, written into the consumer project exactly as the page shows it (imports of
// the packages by name, see doc-snippets.cjs), under snippets/<its path in the repository> so that
// snippets importing each other (`./service.js`) still find each other. One tsconfig compiles
// them all (with the test drivers of run/) against the packages installed from the tarballs.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { asDocs, check } from './doc-snippets.cjs';

const ROOT = join(__dirname, '..');
const FIXTURE = join(__dirname, 'consumer');

/** Every file that a docs page's snippet block mirrors, once, sorted. */
export function snippetFiles(): string[] {
  return [...new Set(check().map((r) => r.file))].sort();
}

/** Where a snippet file's compiled program lands in the consumer project. */
export function builtSnippet(file: string): string {
  return join('dist-snippets', 'snippets', file.replace(/\.ts$/, '.js'));
}

/**
 * The snippet files that are programs (they export nothing: running them is using them) and how
 * the consumer test covers each. Files that export functions are what the pages' own specs run.
 */
export const PROGRAMS: Readonly<Record<string, string>> = {
  'packages/core/src/__tests__/docs/getting-started/agent.ts': 'run: the guide project (src/agent.ts)',
  'packages/core/src/__tests__/docs/getting-started/send.ts': 'run: its output is the one its comment shows',
  'packages/core/src/__tests__/docs/getting-started/script.ts':
    'run: as src/script.ts against a closed port, where it must fail loudly',
  'packages/core/src/__tests__/docs/chat-service/main.ts': 'run: with src/client.ts against it (run/chat-service)',
  'packages/harness/src/__tests__/docs/harness-agent.ts': 'run: against the test server (run/with-test-server)',
  'packages/core/src/__tests__/docs/getting-started/testing.spec.ts':
    'type-checked only: a jest test file; the workspace suite runs it',
  'packages/core/src/__tests__/docs/models/test-server.spec.ts':
    'type-checked only: a jest test file; the workspace suite runs it',
  'packages/core/src/__tests__/docs/timing-middleware.spec.ts':
    'type-checked only: a jest test file; the workspace suite runs it',
};

/** True for a snippet file that exports nothing (a program, or a test file). */
export function isProgram(file: string): boolean {
  return !/^export /m.test(asDocs(file));
}

/** Writes every snippet file, the drivers of run/ and tsconfig.snippets.json into `project`. */
export function writeSnippets(project: string): string[] {
  const files = snippetFiles();
  const out: Record<string, string> = {
    'tsconfig.snippets.json': JSON.stringify(
      {
        extends: './tsconfig.json',
        // The guide's settings, plus: the DOM (browser snippets), jest's globals (test snippets).
        compilerOptions: { rootDir: '.', outDir: 'dist-snippets', lib: ['ES2022', 'DOM'], types: ['node', 'jest'] },
        include: ['snippets', 'run'],
      },
      null,
      2,
    ),
    'run/chat-service.mts': readFileSync(join(FIXTURE, 'chat-service.mts'), 'utf8'),
    'run/with-test-server.mts': readFileSync(join(FIXTURE, 'with-test-server.mts'), 'utf8'),
  };
  for (const file of files) out[join('snippets', file)] = asDocs(file, ROOT) + '\n';
  for (const [file, text] of Object.entries(out)) {
    mkdirSync(dirname(join(project, file)), { recursive: true });
    writeFileSync(join(project, file), text);
  }
  return files;
}
