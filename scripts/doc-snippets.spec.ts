// Docs code run by the tests: every `<!-- snippet: file -->` block in docs/ is exactly that file
// (imports of a package's own sources shown as the package name), so the page cannot drift from
// the code the specs run.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { asDocs, check, write } from './doc-snippets.cjs';

const root = resolve(__dirname, '..');

describe('doc snippets', () => {
  it('every snippet block in docs/ is its file, and the guides have their examples as snippets', () => {
    const results = check();
    expect(results.filter((r) => !r.ok)).toEqual([]);
    const count = (page: string) => results.filter((r) => r.page === page).length;
    expect(count('middleware.md')).toBeGreaterThanOrEqual(4);
    expect(count('getting-started.md')).toBeGreaterThanOrEqual(10);
    expect(count('events.md')).toBeGreaterThanOrEqual(5);
  });

  it('keeps the name after the language of a block it rewrites (the consumer test builds `ts src/agent.ts`)', () => {
    const copy = mkdtempSync(join(tmpdir(), 'rxscope-snippets-'));
    try {
      const snippets = join('packages', 'core', 'src', '__tests__', 'docs', 'getting-started');
      const snippet = join(snippets, 'agent.ts');
      cpSync(join(root, 'packages', 'core', 'package.json'), join(copy, 'packages', 'core', 'package.json'));
      cpSync(join(root, snippets), join(copy, snippets), { recursive: true });
      const page = join(copy, 'docs', 'getting-started.md');
      cpSync(join(root, 'docs', 'getting-started.md'), page);
      writeFileSync(page, readFileSync(page, 'utf8').replace("name: 'assistant',", "name: 'helper',"));
      expect(write(copy)).toEqual(['getting-started.md']);
      expect(readFileSync(page, 'utf8')).toContain(
        `<!-- snippet: ${snippet} -->\n\`\`\`ts src/agent.ts\nimport { z } from 'zod';`,
      );
      expect(check(copy).filter((r) => r.file === snippet)).toMatchObject([{ ok: true }]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('fills an empty block after a new marker, and leaves the rest of the page alone', () => {
    const copy = mkdtempSync(join(tmpdir(), 'rxscope-snippets-'));
    try {
      const snippet = join('packages', 'core', 'src', '__tests__', 'docs', 'retry-once.ts');
      cpSync(join(root, 'packages', 'core', 'package.json'), join(copy, 'packages', 'core', 'package.json'));
      cpSync(join(root, snippet), join(copy, snippet));
      const page = join(copy, 'docs', 'new.md');
      const after = 'Text after.\n\n```ts\nconst other = 1;\n```\n';
      mkdirSync(join(copy, 'docs'));
      writeFileSync(page, `# New\n\n<!-- snippet: ${snippet} -->\n\`\`\`ts\n\`\`\`\n\n${after}`);
      expect(check(copy)).toMatchObject([{ file: snippet, ok: false }]);
      expect(write(copy)).toEqual(['new.md']);
      const text = readFileSync(page, 'utf8');
      expect(text).toContain(`\`\`\`ts\n${asDocs(snippet, copy)}\n\`\`\`\n\n${after}`);
      expect(check(copy)).toMatchObject([{ file: snippet, ok: true }]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('shows a relative import of a package entry as the package name, and keeps other imports', () => {
    const shown = asDocs('packages/core/src/__tests__/docs/silence-guard.ts');
    expect(shown).toContain("} from '@rxscope/core';");
    expect(shown).toContain("from 'rxjs';");
    expect(shown).not.toContain('../../index.js');
  });

  it('reports a block that drifted from its file, and --write puts the file back', () => {
    const copy = mkdtempSync(join(tmpdir(), 'rxscope-snippets-'));
    try {
      cpSync(join(root, 'packages', 'core', 'package.json'), join(copy, 'packages', 'core', 'package.json'));
      cpSync(
        join(root, 'packages', 'core', 'src', '__tests__', 'docs'),
        join(copy, 'packages', 'core', 'src', '__tests__', 'docs'),
        { recursive: true },
      );
      cpSync(join(root, 'docs', 'middleware.md'), join(copy, 'docs', 'middleware.md'));
      const page = join(copy, 'docs', 'middleware.md');
      writeFileSync(
        page,
        readFileSync(page, 'utf8').replace("readonly key = 'silence-guard';", "readonly key = 'silence';"),
      );
      expect(check(copy).filter((r) => !r.ok)).toEqual([
        {
          page: 'middleware.md',
          file: 'packages/core/src/__tests__/docs/silence-guard.ts',
          ok: false,
          why: 'the block differs from the file',
        },
      ]);
      expect(write(copy)).toEqual(['middleware.md']);
      expect(check(copy).every((r) => r.ok)).toBe(true);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
