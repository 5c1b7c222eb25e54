import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { closeTestServer, run, tempDir, testServerModel } from '../../__tests__/helpers.js';
import { createHarnessAgent } from '../../assembly/create-harness-agent.js';
import { mentionsIn } from './index.js';

const userContent = (server: OpenAITestServer, i = 0): string => {
  const msg = server.requests[i]!.body.messages!.find((m) => m.role === 'user')!;
  return typeof msg.content === 'string' ? msg.content : msg.content!.map((p) => p.text ?? '').join('\n');
};

describe('AtPathExpansionMiddleware', () => {
  let dir: ReturnType<typeof tempDir>;
  let server: OpenAITestServer;
  beforeEach(() => (dir = tempDir()));
  afterEach(async () => {
    if (server) await closeTestServer(server);
    dir.cleanup();
  });

  it('finds mentions, leaving e-mail addresses alone and trailing punctuation out', () => {
    expect(mentionsIn('see @src/a.ts, and (@b.md). Mail bob@example.com or ping @alice!')).toEqual([
      'src/a.ts',
      'b.md',
      'alice',
    ]);
  });

  it('attaches mentioned workspace files once, capped; leaves @alice and e-mails alone; refuses paths leading out', async () => {
    server = await startOpenAITestServer({ script: [{ text: 'ok' }] });
    const ws = join(dir.path, 'ws');
    const agent = createHarnessAgent({
      model: testServerModel(server),
      workspace: ws,
      atPathExpansion: { maxFileChars: 50 },
    });
    writeFileSync(join(ws, 'app.ts'), 'export const answer = 42;\n');
    writeFileSync(join(ws, 'long.txt'), 'L'.repeat(500));
    writeFileSync(join(dir.path, 'secret.txt'), 'HOST SECRET');
    symlinkSync(join(dir.path, 'secret.txt'), join(ws, 'sneaky.txt'));
    await run(
      agent,
      'Why does @app.ts fail? Compare @app.ts with @long.txt. Ask @alice or bob@example.com. Also @../secret.txt and @sneaky.txt',
    );
    const sent = userContent(server);
    expect(sent.match(/<file path="app.ts">/g)).toHaveLength(1);
    expect(sent).toContain('<file path="app.ts">\nexport const answer = 42;\n\n</file>');
    expect(sent).toContain(
      '<file path="long.txt">\n' +
        'L'.repeat(50) +
        '\n[cut at 50 characters of 500 bytes; read the rest with read_file]',
    );
    expect(sent).not.toContain('HOST SECRET');
    expect(sent).toContain('[@../secret.txt was not attached: "../secret.txt" is outside the workspace');
    expect(sent).toContain(
      '[@sneaky.txt was not attached: "sneaky.txt" leads outside the workspace through a symbolic link',
    );
    expect(sent).not.toContain('@alice was not attached');
    expect(sent).not.toContain('example.com was not attached');
    // The attachment is persisted with the user message.
    expect(JSON.stringify(agent.context[0])).toContain('export const answer = 42;');
  });
});
