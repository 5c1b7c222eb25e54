// The escape suite: attempts to read, list or write outside the workspace, or to reach the host,
// through the file tools, @path and the shell in both sandboxes. Every attempt must fail safely:
// an error (or denied) result or a refusal note, nothing outside read, listed or changed.
// docs/harness.md lists these attempts; keep the two in step.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import type { AgentEvent } from '@rxscope/core';
import { startOpenAITestServer, type OpenAITestServer, type ServerToolCall } from '@rxscope/core/testing/node';
import { createHarnessAgent } from '../assembly/create-harness-agent.js';
import { closeTestServer, resultOf, run, tempDir, testServerModel, textOfResult } from './helpers.js';

const SECRET = `TOP-SECRET-${Math.random().toString(36).slice(2)}`;

interface Setup {
  dir: ReturnType<typeof tempDir>;
  ws: string;
  outside: string;
}

function setup(): Setup {
  const dir = tempDir('rxscope-escape-');
  const ws = join(dir.path, 'ws');
  const outside = join(dir.path, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), `${SECRET}\n`);
  writeFileSync(join(outside, 'victim.txt'), 'untouched\n');
  return { dir, ws, outside };
}

/** Runs one reply whose model makes `calls` (one step each, in order), and returns its events. */
async function attempt(
  server: OpenAITestServer,
  agent: ReturnType<typeof createHarnessAgent>,
  input: string,
): Promise<AgentEvent[]> {
  return (await run(agent, input)).events;
}

const failedSafely = (events: AgentEvent[], id: string) => {
  const end = resultOf(events, id);
  expect(['error', 'denied']).toContain(end.status);
  expect(textOfResult(end)).not.toContain(SECRET);
  return textOfResult(end);
};

describe('escape suite: file tools', () => {
  let s: Setup;
  let server: OpenAITestServer;
  let events: AgentEvent[];
  const calls: (ServerToolCall & { id: string })[] = [];
  const call = (id: string, name: string, args: object) => calls.push({ id, name, input: args });

  beforeAll(async () => {
    s = setup();
    const { ws, outside } = s;
    call('read_dotdot', 'read_file', { path: '../outside/secret.txt' });
    call('read_absolute', 'read_file', { path: join(outside, 'secret.txt') });
    call('read_etc_passwd', 'read_file', { path: '/etc/passwd' });
    call('read_link_file', 'read_file', { path: 'link_file' });
    call('read_link_dir', 'read_file', { path: 'link_dir/secret.txt' });
    call('read_nested_dotdot', 'read_file', { path: 'src/../../outside/secret.txt' });
    call('read_fifo', 'read_file', { path: 'fifo' });
    call('read_dev_zero_link', 'read_file', { path: 'zero' });
    call('read_nul', 'read_file', { path: 'a\u0000b' });
    call('read_long_path', 'read_file', { path: `${'d/'.repeat(2500)}f` });
    call('write_dotdot', 'write_file', { path: '../outside/victim.txt', content: 'pwned' });
    call('write_link_file', 'write_file', { path: 'link_victim', content: 'pwned' });
    call('write_dangling', 'write_file', { path: 'dangling', content: 'pwned' });
    call('write_link_dir', 'write_file', { path: 'link_dir/new.txt', content: 'pwned' });
    call('write_long_name', 'write_file', { path: `${'n'.repeat(300)}.txt`, content: 'x' });
    call('edit_link_file', 'edit_file', { path: 'link_victim', old_string: 'untouched', new_string: 'pwned' });
    call('list_dotdot', 'list_files', { path: '..' });
    call('list_link_dir', 'list_files', { path: 'link_dir' });
    call('glob_dotdot', 'glob_files', { pattern: '../**/*' });
    call('glob_absolute', 'glob_files', { pattern: `${outside}/*` });
    call('grep_dotdot', 'grep_files', { pattern: 'TOP-SECRET', path: '..' });
    call('grep_through_links', 'grep_files', { pattern: 'TOP-SECRET' });
    server = await startOpenAITestServer({ script: [...calls.map((c) => ({ toolCalls: [c] })), { text: 'done' }] });
    const agent = createHarnessAgent({ model: testServerModel(server), workspace: ws, maxIters: 50 });
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'link_file'));
    symlinkSync(join(outside, 'victim.txt'), join(ws, 'link_victim'));
    symlinkSync(outside, join(ws, 'link_dir'));
    symlinkSync(join(outside, 'created.txt'), join(ws, 'dangling'));
    symlinkSync('/dev/zero', join(ws, 'zero'));
    execFileSync('mkfifo', [join(ws, 'fifo')]);
    events = await attempt(server, agent, 'try to escape');
  }, 60_000);
  afterAll(async () => {
    await closeTestServer(server);
    s.dir.cleanup();
  });

  it.each([
    ['read_dotdot', /outside the workspace/],
    ['read_absolute', /outside the workspace/],
    ['read_etc_passwd', /outside the workspace/],
    ['read_link_file', /through a symbolic link/],
    ['read_link_dir', /through a symbolic link/],
    ['read_nested_dotdot', /outside the workspace/],
    ['read_fifo', /named pipe/],
    ['read_dev_zero_link', /through a symbolic link/],
    ['read_nul', /NUL byte/],
    ['read_long_path', /at most 4096 are allowed/],
    ['write_dotdot', /outside the workspace/],
    ['write_link_file', /through a symbolic link/],
    ['write_dangling', /through a symbolic link/],
    ['write_link_dir', /through a symbolic link/],
    ['write_long_name', /at most 255/],
    ['edit_link_file', /through a symbolic link/],
    ['list_dotdot', /outside the workspace/],
    ['list_link_dir', /through a symbolic link/],
    ['glob_dotdot', /must not contain ".."/],
    ['glob_absolute', /must be relative to the workspace/],
    ['grep_dotdot', /outside the workspace/],
  ])('%s fails with a clear error', (id, message) => {
    expect(failedSafely(events, id)).toMatch(message);
  });

  it('grep_through_links: links leading out are not searched', () => {
    const end = resultOf(events, 'grep_through_links');
    expect(textOfResult(end)).toBe('No matches for /TOP-SECRET/.');
  });

  it('nothing outside was written, created or changed', () => {
    expect(readFileSync(join(s.outside, 'victim.txt'), 'utf8')).toBe('untouched\n');
    expect(existsSync(join(s.outside, 'created.txt'))).toBe(false);
    expect(existsSync(join(s.outside, 'new.txt'))).toBe(false);
    expect(JSON.stringify(events)).not.toContain(SECRET);
  });
});

describe('escape suite: @path', () => {
  let s: Setup;
  let server: OpenAITestServer;
  beforeEach(() => (s = setup()));
  afterEach(async () => {
    await closeTestServer(server);
    s.dir.cleanup();
  });

  it('@../, absolute paths, /etc/passwd and links leading out are not attached, with a note', async () => {
    server = await startOpenAITestServer({ script: [{ text: 'ok' }] });
    const agent = createHarnessAgent({ model: testServerModel(server), workspace: s.ws });
    symlinkSync(join(s.outside, 'secret.txt'), join(s.ws, 'link_file'));
    await run(
      agent,
      `Read @../outside/secret.txt and @${join(s.outside, 'secret.txt')} and @/etc/passwd and @link_file.`,
    );
    const sent = JSON.stringify(server.requests[0]!.body.messages);
    expect(sent).not.toContain(SECRET);
    expect(sent).not.toContain('root:x:0:0');
    expect(sent.match(/was not attached/g)).toHaveLength(4);
  });
});

describe.each(['local', 'bubblewrap'] as const)('escape suite: the shell (%s sandbox)', (sandbox) => {
  let s: Setup;
  let server: OpenAITestServer;
  beforeEach(() => (s = setup()));
  afterEach(async () => {
    await closeTestServer(server);
    s.dir.cleanup();
  });

  const agentWith = (script: { id: string; name: string; args: object }[]) =>
    startOpenAITestServer({
      script: [...script.map((c) => ({ toolCalls: [{ id: c.id, name: c.name, input: c.args }] })), { text: 'done' }],
    }).then((srv) => {
      server = srv;
      return createHarnessAgent({
        model: testServerModel(srv),
        workspace: s.ws,
        sandbox,
        execute: { askPermission: false },
      });
    });

  it('a symlink the shell creates during the reply is refused by the file tools', async () => {
    const agent = await agentWith([
      {
        id: 'ln',
        name: 'execute',
        args: { command: `ln -s ${join(s.outside, 'secret.txt')} made.txt && ln -s ${s.outside} made_dir` },
      },
      { id: 'read', name: 'read_file', args: { path: 'made.txt' } },
      { id: 'write', name: 'write_file', args: { path: 'made_dir/victim.txt', content: 'pwned' } },
    ]);
    const { events } = await run(agent, 'go');
    expect(failedSafely(events, 'read')).toMatch(/through a symbolic link/);
    expect(failedSafely(events, 'write')).toMatch(/through a symbolic link/);
    expect(readFileSync(join(s.outside, 'victim.txt'), 'utf8')).toBe('untouched\n');
  });

  it("the agent's environment (API keys) is not visible to commands", async () => {
    process.env['RXSCOPE_ESCAPE_KEY'] = SECRET;
    try {
      const agent = await agentWith([
        { id: 'env', name: 'execute', args: { command: 'env; cat /proc/$PPID/environ 2>/dev/null | tr "\\0" "\\n"' } },
      ]);
      const { events } = await run(agent, 'go');
      expect(textOfResult(resultOf(events, 'env'))).not.toContain(SECRET);
    } finally {
      delete process.env['RXSCOPE_ESCAPE_KEY'];
    }
  });

  it('a background process does not outlive its command', async () => {
    const agent = await agentWith([
      { id: 'bg', name: 'execute', args: { command: '(sleep 2; touch outlived) > /dev/null 2>&1 & echo started' } },
    ]);
    await run(agent, 'go');
    await new Promise((r) => setTimeout(r, 2500));
    expect(existsSync(join(s.ws, 'outlived'))).toBe(false);
  });

  it('a write through a hard link made by the shell does not change the linked file', async () => {
    // Under bubblewrap the link itself cannot be made (host files are not visible).
    const agent = await agentWith([
      { id: 'ln', name: 'execute', args: { command: `ln ${join(s.outside, 'victim.txt')} hard.txt; echo linked` } },
      { id: 'write', name: 'write_file', args: { path: 'hard.txt', content: 'pwned' } },
    ]);
    await run(agent, 'go');
    expect(readFileSync(join(s.outside, 'victim.txt'), 'utf8')).toBe('untouched\n');
  });

  if (sandbox === 'bubblewrap') {
    let host: Server;
    let port = 0;
    let connections = 0;
    beforeAll(async () => {
      host = createServer((socket) => {
        connections++;
        socket.end('hi');
      });
      await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
      port = (host.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => host.close(() => resolve())));

    it('host files outside the workspace are neither readable nor writable, the system is read-only', async () => {
      const agent = await agentWith([
        {
          id: 'sh',
          name: 'execute',
          args: {
            command: `cat ${join(s.outside, 'secret.txt')}; echo pwned > ${join(s.outside, 'victim.txt')}; touch /etc/pwned; touch /usr/pwned; echo end`,
          },
        },
      ]);
      const { events } = await run(agent, 'go');
      const out = textOfResult(resultOf(events, 'sh'));
      expect(out).not.toContain(SECRET);
      expect(out).toMatch(/No such file or directory|Read-only file system/);
      expect(readFileSync(join(s.outside, 'victim.txt'), 'utf8')).toBe('untouched\n');
      expect(existsSync('/etc/pwned')).toBe(false);
    });

    it('the network is unreachable, also the host loopback', async () => {
      const script = `require('net').connect(${port}, '127.0.0.1').on('connect', () => console.log('CONNECTED')).on('error', (e) => console.log('NO-NET', e.code))`;
      const agent = await agentWith([{ id: 'net', name: 'execute', args: { command: `node -e "${script}"` } }]);
      const { events } = await run(agent, 'go');
      expect(textOfResult(resultOf(events, 'net'))).toContain('NO-NET');
      expect(connections).toBe(0);
    });

    it("the agent's own process cannot be seen or killed", async () => {
      const agent = await agentWith([
        { id: 'kill', name: 'execute', args: { command: `kill -9 ${process.pid} || echo KILL-FAILED` } },
      ]);
      const { events } = await run(agent, 'go');
      expect(textOfResult(resultOf(events, 'kill'))).toContain('KILL-FAILED');
    });
  }
});
