// The consumer test: what a newcomer gets before rxscope is published, following
// docs/getting-started.md. Every public package is packed (scripts/pack-tarballs.cjs), the
// tarballs are installed with plain npm into a project outside the workspace, and the project is
// built with the page's tsconfig.json (tsc type-checks every file) and run: the page's own
// src/agent.ts (its output must be the one the page shows), an ES module program and a CommonJS
// program (scripts/consumer/); the README's snippet and the page's script are built there too and
// run against a closed port (they must fail loudly: a message on stderr, exit code 1). Every docs
// page's snippets (each file a `<!-- snippet: ... -->` block mirrors, scripts/consumer-snippets.ts)
// are type-checked there by one more tsc, and those that are programs are run. Needs the npm
// registry for third-party packages (the npm cache serves repeats). tsc is the workspace's (the
// TypeScript line the page installs).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { builtSnippet, isProgram, PROGRAMS, writeSnippets } from './consumer-snippets';
import { packTarballs, tarballProblems, type PackedTarball } from './pack-tarballs.cjs';

const ROOT = join(__dirname, '..');
const FIXTURE = join(__dirname, 'consumer');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const GUIDE = 'docs/getting-started.md';

/** The code block of a doc whose info string is `<lang> <name>` (e.g. "ts src/agent.ts"). */
function docBlock(doc: string, name: string): string {
  const text = readFileSync(join(ROOT, doc), 'utf8');
  const escaped = name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const block = new RegExp('^```\\w+ ' + escaped + '\\n([\\s\\S]*?)^```$', 'm').exec(text);
  if (!block) throw new Error(`${doc} has no code block named "${name}"`);
  return block[1]!;
}

let sandbox = '';
let project = '';
let tarballs: PackedTarball[] = [];
let build: { code: number | null; output: string } = { code: null, output: '' };
let snippets: string[] = [];
let snippetBuild: { code: number | null; output: string } = { code: null, output: '' };

/** Runs a built program of the consumer project with Node (`dist/<file>`, or a path from the project). */
function run(
  file: string,
  args: string[] = [],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): { code: number | null; stdout: string; stderr: string } {
  const path = file.includes('/') ? join(project, file) : join(project, 'dist', file);
  const res = spawnSync(process.execPath, [path, ...args], {
    cwd: options.cwd ?? project,
    encoding: 'utf8',
    timeout: 90_000,
    env: options.env ?? process.env,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

/** tsc over one of the consumer project's tsconfig files. */
function tsc(config: string): { code: number | null; output: string } {
  const res = spawnSync(process.execPath, [TSC, '-p', join(project, config)], { cwd: project, encoding: 'utf8' });
  return { code: res.status, output: res.stdout + res.stderr };
}

/** A loopback port nothing listens on (it was bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(() => {
  sandbox = mkdtempSync(join(tmpdir(), 'rxscope-consumer-'));
  project = join(sandbox, 'my-agent');
  tarballs = packTarballs(join(sandbox, 'rxscope-tarballs'));
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'my-agent', version: '1.0.0', private: true, type: 'module' }, null, 2),
    'tsconfig.json': docBlock(GUIDE, 'tsconfig.json'),
    'src/agent.ts': docBlock(GUIDE, 'src/agent.ts'),
    'src/readme.ts': docBlock('README.md', 'src/readme.ts'), // run against a closed port only: it needs a real model
    'src/script.ts': docBlock(GUIDE, 'src/script.ts'), // the same
    'src/esm.mts': readFileSync(join(FIXTURE, 'esm.mts'), 'utf8'),
    'src/cjs.cts': readFileSync(join(FIXTURE, 'cjs.cts'), 'utf8'),
  };
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(project, file)), { recursive: true });
    writeFileSync(join(project, file), text);
  }
  snippets = writeSnippets(project);
  const rxjs = (
    JSON.parse(readFileSync(join(ROOT, 'node_modules', 'rxjs', 'package.json'), 'utf8')) as { version: string }
  ).version;
  const dependencies = [
    // @rxscope/angular goes into an Angular app (examples/angular-chat/e2e/consumer-install.e2e.spec.ts).
    ...tarballs.filter((t) => t.name !== '@rxscope/angular').map((t) => t.tarball),
    `rxjs@${rxjs}`,
    'zod@^4',
    '@langchain/openai@^1',
    '@langchain/core@^1',
    '@types/node@^20',
    '@types/jest@^30', // the docs' test snippets use jest's globals
    // The tool-schema snippets show the other schema libraries rxscope accepts.
    'valibot@^1.5.0',
    '@valibot/to-json-schema@^1.8.0',
    'arktype@^2.2.9',
  ];
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...dependencies], {
    cwd: project,
    stdio: 'pipe',
    timeout: 150_000,
  });
  build = tsc('tsconfig.json');
  snippetBuild = tsc('tsconfig.snippets.json');
}, 300_000);

afterAll(() => {
  if (sandbox) rmSync(sandbox, { recursive: true, force: true });
});

describe('installing the packed packages with npm, outside the workspace', () => {
  it('packs every public package with real version ranges and its built entry points', () => {
    expect(tarballs.map((t) => t.name).sort()).toEqual([
      '@rxscope/angular',
      '@rxscope/core',
      '@rxscope/devtools',
      '@rxscope/evals',
      '@rxscope/harness',
      '@rxscope/middleware-builtin',
    ]);
    const installed = JSON.parse(
      readFileSync(join(project, 'node_modules', '@rxscope', 'middleware-builtin', 'package.json'), 'utf8'),
    ) as {
      peerDependencies: Record<string, string>;
      dependencies: Record<string, string>;
    };
    expect(installed.peerDependencies['@rxscope/core']).toBe('^0.1.0');
    expect(installed.dependencies.zod).toMatch(/^\^4\./);
  });

  it('names what makes a tarball uninstallable', () => {
    const manifest = {
      dependencies: { zod: 'catalog:' },
      peerDependencies: { '@rxscope/core': 'workspace:^' },
      exports: { '.': { default: './dist/index.js' } },
    };
    expect(tarballProblems(manifest, ['package.json', 'src/__tests__/helpers.ts'])).toEqual([
      'dependencies.zod is "catalog:"',
      'peerDependencies.@rxscope/core is "workspace:^"',
      'exports names ./dist/index.js, which is not in the tarball (build first)',
      'ships a test file: src/__tests__/helpers.ts',
    ]);
  });

  it("type-checks and builds the guide's project and the README's snippet against the installed declarations (tsc)", () => {
    expect(build.output).toBe('');
    expect(build.code).toBe(0);
  });

  it("runs the guide's first agent and prints what the guide shows", () => {
    const { code, stdout, stderr } = run('agent.js');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe(docBlock(GUIDE, 'output'));
  });

  it.each(['readme.js', 'script.js'])(
    "%s (the README snippet, the guide's script) fails loudly when the model server is down: a message on stderr, exit code 1",
    async (file) => {
      const env = {
        ...process.env,
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: `http://127.0.0.1:${await closedPort()}/v1`,
      };
      const { code, stdout, stderr } = run(file, [], { env });
      expect(stdout).toBe('');
      expect(stderr).toContain('AgentError: ModelError: connection to the model server failed');
      expect(code).toBe(1);
    },
  );

  it('runs an ES module program: an agent with a tool over the OpenAI-compatible test server, and a harness agent', () => {
    const { code, stdout, stderr } = run('esm.mjs');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const out = JSON.parse(stdout) as { answer: string; types: string[]; harness: string; harnessParts: number };
    expect(out.answer).toBe('The tool said {"city":"Paris","tempC":15}');
    expect(out.types).toEqual(expect.arrayContaining(['TOOL_CALL_START', 'TOOL_RESULT_END', 'REPLY_END']));
    expect(out.harness).toBe('Ready.');
    expect(out.harnessParts).toBeGreaterThan(0);
  });

  it('runs the installed rxscope-eval bin on a suite file of the project: the table, exit 0', () => {
    const suite = join(project, 'evals', 'sum.eval.mjs');
    mkdirSync(dirname(suite), { recursive: true });
    writeFileSync(
      suite,
      [
        "import { Agent } from '@rxscope/core';",
        "import { ScriptedChatModel } from '@rxscope/core/testing';",
        "import { defineEvalSuite, numericAnswer } from '@rxscope/evals';",
        'export default defineEvalSuite({',
        "  dataset: [{ id: 'sum', input: '2 + 3?', expected: { answer: '5' }, metadata: {} }],",
        "  agent: () => new Agent({ model: new ScriptedChatModel([{ text: 'It is 5.' }]) }),",
        '  scorers: [numericAnswer()],',
        "  thresholds: { 'answer:numeric': { passRate: 1 } },",
        '});',
      ].join('\n'),
    );
    const { code, stdout, stderr } = run('node_modules/.bin/rxscope-eval', ['evals/sum.eval.mjs']);
    expect(stderr).toContain('1/1 sum');
    expect(stdout).toMatch(/answer:numeric\s+1\.00\s+100%/);
    expect(code).toBe(0);
  });

  it('runs a CommonJS program that require()s the packages', () => {
    expect(readFileSync(join(project, 'dist', 'cjs.cjs'), 'utf8')).toContain('require("@rxscope/core")');
    const { code, stdout, stderr } = run('cjs.cjs');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ answer: '2 + 3 = 5', format: 'commonjs' });
  });
});

describe("every docs page's snippets, against the installed packages", () => {
  it('type-checks and builds every snippet file of docs/*.md in one tsc', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(45);
    expect(snippets).toEqual(expect.arrayContaining([expect.stringContaining('chat-service/service.ts')]));
    expect(snippetBuild.output).toBe('');
    expect(snippetBuild.code).toBe(0);
  });

  it('knows how each snippet that is a program is covered', () => {
    const programs = snippets.filter(isProgram);
    expect(programs.filter((file) => !PROGRAMS[file])).toEqual([]);
    expect(Object.keys(PROGRAMS).filter((file) => !programs.includes(file))).toEqual([]);
  });

  it("runs getting-started's send() program and prints what its comment shows", () => {
    const { code, stdout, stderr } = run(builtSnippet('packages/core/src/__tests__/docs/getting-started/send.ts'));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toEqual([
      'MODEL_CALL_START',
      'TOOL_RESULT_END',
      'HINT_BLOCK user: Also give the French word.',
      'MODEL_CALL_START',
      'REPLY_END',
    ]);
  });

  it('runs the chat service recipe: its main.ts as a server, its client.ts approving the refund', () => {
    const { code, stdout, stderr } = run('dist-snippets/run/chat-service.mjs');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      text: 'Done: Refunded 80 EUR on A-17.',
      asked: [{ name: 'refund', input: { orderId: 'A-17', amount: 80 } }],
    });
  });

  it("runs harness.md's first program against the test server: its parts, then the reply's text", () => {
    const cwd = mkdtempSync(join(sandbox, 'harness-'));
    const program = join(project, builtSnippet('packages/harness/src/__tests__/docs/harness-agent.ts'));
    const { code, stdout, stderr } = run('dist-snippets/run/with-test-server.mjs', [program, 'The test passes now.'], {
      cwd,
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^on +SandboxLifecycleMiddleware — /m);
    expect(stdout.trimEnd().endsWith('The test passes now.')).toBe(true);
  });
});
