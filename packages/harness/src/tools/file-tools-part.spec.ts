import { builtOne, partEnv, toolNamesOf } from '../__tests__/part-env.js';
import { fileToolsPart } from './file-tools-part.js';
import { toolInput } from '../__tests__/helpers.js';

describe('the file tools part', () => {
  const env = partEnv();
  afterAll(() => env.cleanup());
  const reading = ['read_file', 'list_files', 'glob_files', 'grep_files'];

  it('offers all six by default, the four that read with read-only, none with false', () => {
    const all = builtOne(fileToolsPart, {}, env);
    expect(toolNamesOf(all)).toEqual([...reading, 'write_file', 'edit_file']);
    expect(all.part).toEqual({
      name: 'file tools',
      option: 'fileTools',
      enabled: true,
      reason: 'all file tools, confined to the workspace',
    });
    expect(toolNamesOf(builtOne(fileToolsPart, { fileTools: 'read-only' }, env))).toEqual(reading);
    const none = builtOne(fileToolsPart, { fileTools: false }, env);
    expect(toolNamesOf(none)).toEqual([]);
    expect(none.part).toMatchObject({ enabled: false, reason: 'fileTools: false' });
  });

  it('passes the tool options on: read_file returns defaultLimit lines', async () => {
    await env.fileSystem.writeFile('long.txt', Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n'));
    const [readFile] = builtOne(fileToolsPart, { readFile: { defaultLimit: 3 } }, env).tools!;
    const out = (await readFile!.execute!(toolInput(readFile!, { path: 'long.txt' }), {
      signal: new AbortController().signal,
      callId: 'c',
      idempotencyKey: 'c',
      agentName: 'a',
      replyId: 'r',
      emit: () => undefined,
      forward: () => undefined,
    })) as string;
    expect(out).toContain('line 3');
    expect(out).not.toContain('line 4\n');
  });
});
