import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { closeTestServer, run, systemPromptOf, tempDir, testServerModel } from '../../__tests__/helpers.js';
import { createHarnessAgent } from '../../assembly/create-harness-agent.js';

describe('WorkspaceContextMiddleware', () => {
  let dir: ReturnType<typeof tempDir>;
  let server: OpenAITestServer;
  beforeEach(() => (dir = tempDir()));
  afterEach(async () => {
    if (server) await closeTestServer(server);
    dir.cleanup();
  });

  it('puts the date, the workspace, AGENTS.md, a capped MEMORY.md and the knowledge index in the system prompt', async () => {
    server = await startOpenAITestServer({ script: [{ text: 'a' }, { text: 'b' }] });
    const ws = join(dir.path, 'ws');
    const agent = createHarnessAgent({
      model: testServerModel(server),
      workspace: ws,
      sysPrompt: 'You are Coder.',
      workspaceContext: { memoryTokens: 10, now: () => new Date('2026-03-04T05:06:07Z') },
    });
    writeFileSync(join(ws, 'AGENTS.md'), 'Always answer in French.\n');
    writeFileSync(join(ws, 'MEMORY.md'), `The user likes tabs. ${'filler '.repeat(50)}SECRET-TAIL`);
    mkdirSync(join(ws, 'knowledge', 'policies'));
    writeFileSync(join(ws, 'knowledge', 'policies', 'refunds.md'), '# Refunds');
    await run(agent, 'hi');
    const prompt = systemPromptOf(server.requests[0]!);
    expect(prompt.startsWith('You are Coder.\n\n## Workspace\nToday is 2026-03-04.')).toBe(true);
    expect(prompt).toContain(`You work in the folder ${ws}`);
    expect(prompt).toContain('## Instructions (AGENTS.md)\nAlways answer in French.');
    expect(prompt).toContain('## Memory (MEMORY.md)\nThe user likes tabs.');
    expect(prompt).not.toContain('SECRET-TAIL');
    expect(prompt).toContain('[MEMORY.md is cut here');
    expect(prompt).toContain('## Knowledge (read with read_file)\n- knowledge/policies/refunds.md');

    // Edited between replies: the next prompt has the new text.
    writeFileSync(join(ws, 'AGENTS.md'), 'Always answer in German, please.\n');
    await run(agent, 'again');
    expect(systemPromptOf(server.requests[1]!)).toContain('Always answer in German, please.');
  });

  it('skips an AGENTS.md that is a symlink leading out of the workspace', async () => {
    server = await startOpenAITestServer({ script: [{ text: 'a' }] });
    const ws = join(dir.path, 'ws');
    writeFileSync(join(dir.path, 'secret.md'), 'HOST SECRET');
    const agent = createHarnessAgent({ model: testServerModel(server), workspace: ws });
    const { rmSync } = await import('node:fs');
    rmSync(join(ws, 'AGENTS.md'));
    symlinkSync(join(dir.path, 'secret.md'), join(ws, 'AGENTS.md'));
    await run(agent, 'hi');
    expect(systemPromptOf(server.requests[0]!)).not.toContain('HOST SECRET');
  });
});
