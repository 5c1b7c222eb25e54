// A path supplied by the model, in every tool that takes one: the file tools, memory_get, the
// names load_skill and agent_spawn turn into paths, task ids, and the paths of a workspace
// snapshot in a forged saved state. Each hostile form (`..`, absolute, a symlink leading out, a
// NUL byte, a very long path, `~`, URL-encoding, Windows `..\`, a file URL) is driven through a
// real harness agent (the real OpenAI client against the test server) and must end in an error
// result that says why, with nothing outside the workspace read, listed or written.
// docs/RELIABILITY.md ("A path supplied by the model") lists these; keep the two in step.
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentEvent } from '@rxscope/core';
import { startOpenAITestServer, type OpenAITestServer, type ServerToolCall } from '@rxscope/core/testing/node';
import { createHarnessAgent } from '../assembly/create-harness-agent.js';
import {
  closeTestServer,
  customValues,
  ofType,
  resultOf,
  run,
  tempDir,
  testServerModel,
  textOfResult,
} from './helpers.js';

const SECRET = `TOP-SECRET-${Math.random().toString(36).slice(2)}`;

/** The hostile forms of a path to `target` (a name in the folder outside, or '' for the folder). */
function hostile(outside: string, target: string): [string, string][] {
  const rel = target ? `../outside/${target}` : '../outside';
  return [
    ['dotdot', rel],
    ['nested_dotdot', `src/../${rel}`],
    ['absolute', target ? join(outside, target) : outside],
    ['symlink_dir', target ? `link_dir/${target}` : 'link_dir'],
    ['nul', `${rel}\u0000.txt`],
    ['long', `${'d/'.repeat(2500)}${target || 'f'}`],
    ['tilde', target ? `~/${target}` : '~'],
    ['url_encoded', encodeURIComponent(rel)],
    ['url_encoded_dots', rel.replace(/\./g, '%2e')],
    ['windows', rel.replace(/\//g, '\\')],
    ['file_url', `file://${target ? join(outside, target) : outside}`],
  ];
}

/** What each hostile form is refused with. */
const REFUSED: Record<string, RegExp> = {
  dotdot: /is outside the workspace/,
  nested_dotdot: /is outside the workspace/,
  absolute: /is outside the workspace/,
  symlink_dir: /through a symbolic link/,
  nul: /NUL byte/,
  long: /at most 4096 are allowed/,
  tilde: /starts with "~", which is not expanded/,
  url_encoded: /is URL-encoded \("\.\.\/outside.*names are taken literally/,
  url_encoded_dots: /is URL-encoded \("\.\.\/outside.*names are taken literally/,
  windows: /contains "\\"; folders are separated by "\/"/,
  file_url: /is a URL; give a path/,
};

describe('a path supplied by the model, in every tool that takes one', () => {
  const dir = tempDir('rxscope-paths-');
  const ws = join(dir.path, 'ws');
  const outside = join(dir.path, 'outside');
  let server: OpenAITestServer;
  let events: AgentEvent[];
  const home = process.env['HOME'];
  const turns: (ServerToolCall & { id: string })[][] = [];
  const expected: [id: string, refused: RegExp][] = [];

  /** One model turn: every hostile form of `target` given to `tool` as `args`. */
  function turn(label: string, tool: string, target: string, args: (path: string) => object, refused = REFUSED): void {
    turns.push(
      hostile(outside, target).map(([form, path]) => {
        const id = `${label}__${form}`;
        expected.push([id, refused[form]!]);
        return { id, name: tool, input: args(path) };
      }),
    );
  }

  turn('read_file', 'read_file', 'secret.txt', (path) => ({ path }));
  turn('write_file', 'write_file', 'victim.txt', (path) => ({ path, content: 'pwned' }));
  turn('edit_file', 'edit_file', 'victim.txt', (path) => ({ path, old_string: 'untouched', new_string: 'pwned' }));
  turn('list_files', 'list_files', '', (path) => ({ path }));
  turn('glob_files', 'glob_files', '', (path) => ({ pattern: '**/*', path }));
  turn('grep_folder', 'grep_files', '', (path) => ({ pattern: 'TOP-SECRET', path }));
  turn('grep_file', 'grep_files', 'secret.txt', (path) => ({ pattern: 'TOP-SECRET', path }));
  // memory_get checks that the resolved path is a memory file: a path leading out is refused
  // by the workspace, or by that check.
  const memoryRefused = Object.fromEntries(
    Object.entries(REFUSED).map(([form, re]) => [
      form,
      new RegExp(`${re.source}|reads MEMORY\\.md and files under memory/ only`),
    ]),
  );
  turn('memory_get', 'memory_get', 'secret.txt', (path) => ({ path }), memoryRefused);
  // Names that become paths: skills/<name>/SKILL.md and subagents/<name>.md.
  const notAName = (what: string) =>
    Object.fromEntries(Object.keys(REFUSED).map((f) => [f, new RegExp(`is not a ${what} name`)]));
  turn('load_skill', 'load_skill', 'skill', (name) => ({ name }), notAName('skill'));
  turn('agent_spawn', 'agent_spawn', 'agent.md', (name) => ({ name, task: 'read the secret' }), notAName('subagent'));
  const noTask = Object.fromEntries(
    Object.keys(REFUSED).map((f) => [f, /There is no task ".*This session has no tasks/]),
  );
  turn('task_output', 'task_output', 'secret.txt', (task_id) => ({ task_id }), noTask);
  // Links leading out, under the names these tools look up.
  turns.push([
    { id: 'memory_get__link', name: 'memory_get', input: { path: 'memory/link.md' } },
    { id: 'load_skill__link', name: 'load_skill', input: { name: 'evil' } },
    { id: 'agent_spawn__link', name: 'agent_spawn', input: { name: 'evil', task: 'read the secret' } },
  ]);
  expected.push(
    ['memory_get__link', /through a symbolic link/],
    ['load_skill__link', /There is no skill "evil"/],
    ['agent_spawn__link', /There is no subagent "evil"/],
  );

  beforeAll(async () => {
    mkdirSync(join(outside, 'skill'), { recursive: true });
    writeFileSync(join(outside, 'secret.txt'), `${SECRET}\n`);
    writeFileSync(join(outside, 'victim.txt'), 'untouched\n');
    writeFileSync(join(outside, 'skill', 'SKILL.md'), `---\ndescription: evil\n---\n${SECRET}\n`);
    writeFileSync(join(outside, 'agent.md'), `---\ndescription: evil\n---\n${SECRET}\n`);
    // `~` must never mean this home, whatever HOME says.
    process.env['HOME'] = outside;

    server = await startOpenAITestServer({
      script: [...turns.map((toolCalls) => ({ toolCalls })), { text: 'done' }],
    });
    const agent = createHarnessAgent({
      model: testServerModel(server),
      workspace: ws,
      memory: { flush: false, maintenance: false },
      maxIters: 50,
    });
    mkdirSync(join(ws, 'src'), { recursive: true });
    symlinkSync(outside, join(ws, 'link_dir'));
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'memory', 'link.md'));
    symlinkSync(join(outside, 'skill'), join(ws, 'skills', 'evil'));
    symlinkSync(join(outside, 'agent.md'), join(ws, 'subagents', 'evil.md'));
    events = (await run(agent, 'try every path')).events;
  }, 60_000);

  afterAll(async () => {
    process.env['HOME'] = home;
    await closeTestServer(server);
    dir.cleanup();
  });

  it('every call was made (one model turn per tool, each hostile form a call)', () => {
    expect(server.requests).toHaveLength(turns.length + 1);
    expect(ofType(events, 'TOOL_RESULT_END')).toHaveLength(expected.length);
  });

  it.each(expected.map(([id, refused]) => [id, refused] as const))(
    '%s: an error result that says why',
    (id, refused) => {
      const end = resultOf(events, id);
      const text = textOfResult(end);
      expect(`${end.status}: ${text}`).toMatch(/^error: /);
      expect(text).toMatch(refused);
      expect(text).not.toContain(SECRET);
    },
  );

  it('nothing outside was read, listed, written or created', () => {
    expect(JSON.stringify(events)).not.toContain(SECRET);
    for (const request of server.requests) expect(JSON.stringify(request.body)).not.toContain(SECRET);
    expect(readFileSync(join(outside, 'victim.txt'), 'utf8')).toBe('untouched\n');
    expect(readdirSync(outside).sort()).toEqual(['agent.md', 'secret.txt', 'skill', 'victim.txt']);
  });

  it('nothing was written inside under a literal hostile name either', () => {
    // `..\outside\victim.txt`, `%2e%2e%2f...` and `~/victim.txt` would be plain names on Linux.
    const top = readdirSync(ws);
    expect(top.filter((n) => n.includes('\\') || n.includes('%') || n.startsWith('~') || n === 'file:')).toEqual([]);
  });
});

describe('a path in a workspace snapshot from a forged saved state', () => {
  let dir: ReturnType<typeof tempDir>;
  let server: OpenAITestServer;
  afterEach(async () => {
    await closeTestServer(server);
    dir.cleanup();
  });

  it.each([
    ['../outside/victim.txt', /is outside the workspace/],
    ['link_dir/victim.txt', /through a symbolic link/],
    ['..\\outside\\victim.txt', /contains "\\"/],
    ['%2e%2e%2foutside%2fvictim.txt', /is URL-encoded/],
    ['~/victim.txt', /starts with "~"/],
  ])(
    'a snapshot file at %s is not restored: the restore reports why, nothing outside is written',
    async (path, why) => {
      dir = tempDir('rxscope-paths-');
      const outside = join(dir.path, 'outside');
      mkdirSync(outside);
      writeFileSync(join(outside, 'victim.txt'), 'untouched\n');
      server = await startOpenAITestServer({
        script: [
          { toolCalls: [{ id: 'w', name: 'write_file', input: { path: 'note.txt', content: 'pwned' } }] },
          { text: 'ok' },
          { text: 'ok' },
        ],
      });
      const first = createHarnessAgent({
        model: testServerModel(server),
        workspace: join(dir.path, 'a'),
        workspaceSnapshot: true,
      });
      await run(first, 'write a note');
      const saved = JSON.stringify(first.saveState());
      expect(saved).toContain('"path":"note.txt"');
      const forged = JSON.parse(saved.replace('"path":"note.txt"', `"path":${JSON.stringify(path)}`));

      const errors: unknown[] = [];
      const other = join(dir.path, 'b');
      const second = createHarnessAgent({
        model: testServerModel(server),
        workspace: other,
        workspaceSnapshot: { onError: (e) => errors.push(e) },
        state: forged,
      });
      symlinkSync(outside, join(other, 'link_dir'));
      const { events, end } = await run(second, 'go on');
      expect(end.finishReason).toBe('completed');
      expect(customValues(events, 'workspace_restored')).toEqual([]);
      expect(errors.map((e) => (e as Error).message)).toEqual([expect.stringMatching(why)]);
      expect(readFileSync(join(outside, 'victim.txt'), 'utf8')).toBe('untouched\n');
      expect(readdirSync(outside)).toEqual(['victim.txt']);
      expect(readdirSync(other).filter((n) => n.includes('\\') || n.includes('%') || n.startsWith('~'))).toEqual([]);
    },
  );
});
