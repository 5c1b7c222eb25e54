// loadWorkspaceMcp without any server to start: the permission rules a tools.json yields, the
// variables it expands, and every shape it refuses (naming the file and the field).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../__tests__/helpers.js';
import { loadWorkspaceMcp } from './tools-json.js';

describe('tools.json rules and refusals', () => {
  let ws: ReturnType<typeof tempDir>;
  let file: string;
  beforeEach(() => {
    ws = tempDir('rxscope-tools-json-');
    file = join(ws.path, 'tools.json');
  });
  afterEach(() => ws.cleanup());
  const write = (value: unknown, name = 'tools.json') =>
    writeFileSync(join(ws.path, name), typeof value === 'string' ? value : JSON.stringify(value));

  it('turns ask then allow into permission rules, in that order, with no servers to connect', async () => {
    write({ $schema: 'https://example.com/tools.schema.json', allow: ['read_*', 'grep_files'], ask: ['shell'] });
    const mcp = await loadWorkspaceMcp(ws.path, { env: {} });
    try {
      expect(mcp!.rules).toEqual([
        { behavior: 'ask', tool: 'shell', reason: `${file} asks before shell` },
        { behavior: 'allow', tool: 'read_*' },
        { behavior: 'allow', tool: 'grep_files' },
      ]);
      expect(mcp!.middleware.tools()).toEqual([]);
    } finally {
      await mcp!.close();
    }
  });

  it('takes an empty object as no servers and no rules', async () => {
    write({});
    const mcp = await loadWorkspaceMcp(ws.path, { env: {} });
    expect(mcp!.rules).toEqual([]);
    await mcp!.close();
  });

  it('expands ${NAME} in the lists too, from the env given', async () => {
    write({ allow: ['${SERVER}__read_*'] });
    const mcp = await loadWorkspaceMcp(ws.path, { env: { SERVER: 'files' } });
    expect(mcp!.rules).toEqual([{ behavior: 'allow', tool: 'files__read_*' }]);
    await mcp!.close();
  });

  it('leaves $NAME without braces, and ${} that is not a name, as written', async () => {
    write({ allow: ['$HOME', '${1X}', '${}'] });
    const mcp = await loadWorkspaceMcp(ws.path, { env: {} });
    expect(mcp!.rules.map((r) => r.tool)).toEqual(['$HOME', '${1X}', '${}']);
    await mcp!.close();
  });

  it('names the first missing variable, even in a nested field', async () => {
    write({ mcpServers: { s: { command: 'x', env: { TOKEN: '${MISSING_ONE}' } } } });
    await expect(loadWorkspaceMcp(ws.path, { env: {} })).rejects.toThrow(
      `${file}: the environment variable MISSING_ONE is not set (used as \${MISSING_ONE}).`,
    );
  });

  it('reads another file name when asked, and resolves undefined when that one is missing', async () => {
    write({ ask: ['shell'] }, 'mcp.json');
    const mcp = await loadWorkspaceMcp(ws.path, { env: {}, file: 'mcp.json' });
    expect(mcp!.rules).toHaveLength(1);
    await mcp!.close();
    await expect(loadWorkspaceMcp(ws.path, { file: 'other.json' })).resolves.toBeUndefined();
  });

  it('does not take a folder named tools.json for a missing file', async () => {
    mkdirSync(file);
    await expect(loadWorkspaceMcp(ws.path)).rejects.toThrow(/EISDIR/);
  });

  it.each([
    ['a list', '[]', 'expected an object with "mcpServers", "allow", "ask", "deny".'],
    ['null', 'null', 'expected an object with'],
    ['a string', '"tools"', 'expected an object with'],
    ['an unknown field', '{"permissions": []}', 'unknown field "permissions" (expected mcpServers, allow, ask, deny).'],
    ['servers as a list', '{"mcpServers": []}', '"mcpServers" must be an object of servers by name.'],
    ['servers as null', '{"mcpServers": null}', '"mcpServers" must be an object of servers by name.'],
    ['a deny list with a number', '{"deny": ["ok", 3]}', '"deny" must be an array of tool names.'],
    ['an ask string', '{"ask": "shell"}', '"ask" must be an array of tool names.'],
  ])('refuses %s, naming the file', async (_label, text, message) => {
    write(text);
    await expect(loadWorkspaceMcp(ws.path, { env: {} })).rejects.toThrow(`${file}: ${message}`);
  });

  it('refuses a file with a trailing comma as invalid JSON, keeping the parser’s reason as the cause', async () => {
    write('{ "allow": ["a",] }');
    const error = (await loadWorkspaceMcp(ws.path).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: not valid JSON \\(`));
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });
});
