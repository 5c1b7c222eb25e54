import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lastValueFrom, of, toArray } from 'rxjs';
import { z } from 'zod';
import { Agent, createEvent, defineTool, type AgentEvent, type RuntimeContext, type Tool } from '@rxscope/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import {
  closeTestServer,
  customValues,
  resultOf,
  run,
  tempDir,
  testServerModel,
  textOfResult,
  wireToolResults,
} from '../../__tests__/helpers.js';
import { createHarnessAgent } from '../../assembly/create-harness-agent.js';
import { LocalFileSystem } from '../../workspace/local-file-system.js';
import { ToolResultEvictionMiddleware } from './index.js';

/** A tool returning `size` characters: a first line, filler lines, a last line. */
const dump = defineTool({
  name: 'dump',
  description: 'Returns a lot of text',
  input: z.object({ size: z.number() }),
  execute: ({ size }) =>
    `FIRST-LINE\n${'x'.repeat(99)}\n`.repeat(Math.ceil(size / 111)).slice(0, size - 10) + '\nLAST-LINE',
});
const evicted = (dir: string) => readdirSync(join(dir, 'large_tool_results')).sort();

describe('ToolResultEvictionMiddleware', () => {
  let dir: ReturnType<typeof tempDir>;
  let server: OpenAITestServer | undefined;
  beforeEach(() => (dir = tempDir()));
  afterEach(async () => {
    if (server) await closeTestServer(server);
    server = undefined;
    dir.cleanup();
  });

  it('writes a large result to large_tool_results/ and leaves a pointer with head and tail in the step and the saved context', async () => {
    server = await startOpenAITestServer({
      script: [{ toolCalls: [{ id: 'big', name: 'dump', input: { size: 5000 } }] }, { text: 'seen' }],
    });
    const agent = createHarnessAgent({
      model: testServerModel(server),
      workspace: dir.path,
      tools: [dump],
      toolResultEviction: { maxResultChars: 1000 },
    });
    const { events } = await run(agent, 'dump');
    const [info] = customValues<{ toolCallId: string; path: string; chars: number }>(events, 'tool_result_evicted');
    expect(info).toMatchObject({ toolCallId: 'big', chars: 5000 });
    expect(info!.path).toMatch(/^large_tool_results\/big-[A-Za-z0-9_-]+\.txt$/);
    const full = readFileSync(join(dir.path, info!.path), 'utf8');
    expect(full.length).toBe(5000);
    const pointer = textOfResult(resultOf(events, 'big'));
    expect(pointer.length).toBeLessThan(1000);
    expect(pointer).toContain(`were saved to ${info!.path}`);
    expect(pointer).toContain('FIRST-LINE');
    expect(pointer).toContain('LAST-LINE');
    // What the model saw in the next step, and what is persisted.
    expect(wireToolResults(server.requests[1]!).get('big')).toBe(pointer);
    expect(JSON.stringify(agent.saveState().context)).not.toContain('x'.repeat(2000));
  });

  it('never evicts read_file reading an evicted file back (no evict/read loop on a file of a few huge lines)', async () => {
    writeFileSync(join(dir.path, 'huge.txt'), `${'a'.repeat(60_000)}\n${'b'.repeat(60_000)}\n`);
    server = await startOpenAITestServer({
      handler: (req, i) => {
        if (i === 0) return { toolCalls: [{ id: 'big', name: 'dump', input: { size: 50_000 } }] };
        if (i === 1) {
          // The model follows the pointer it was given.
          const path = /were saved to (\S+\.txt)/.exec(wireToolResults(req).get('big')!)![1]!;
          return { toolCalls: [{ id: 'read_back', name: 'read_file', input: { path } }] };
        }
        if (i === 2) return { toolCalls: [{ id: 'read_huge', name: 'read_file', input: { path: 'huge.txt' } }] };
        return { text: 'done' };
      },
    });
    const agent = createHarnessAgent({
      model: testServerModel(server),
      workspace: dir.path,
      tools: [dump],
      toolResultEviction: { maxResultChars: 1000 },
    });
    const { events } = await run(agent, 'dump, then read it back');
    expect(customValues(events, 'tool_result_evicted')).toHaveLength(1);
    expect(evicted(dir.path)).toHaveLength(1);
    const readBack = resultOf(events, 'read_back');
    expect(readBack.status).toBe('success');
    expect(textOfResult(readBack)).toMatch(/^ {2}1\tFIRST-LINE/);
    // huge.txt (two 60,000-character lines) reads back in pieces and is not evicted either.
    const huge = textOfResult(resultOf(events, 'read_huge'));
    expect(huge).toContain('[line cut: 60,000 characters]');
    expect(huge.length).toBeLessThan(50_000);
  });

  it('evicts the shell output like any other result', async () => {
    server = await startOpenAITestServer({
      script: [{ toolCalls: [{ id: 'sh', name: 'execute', input: { command: 'seq 1 3000' } }] }, { text: 'ok' }],
    });
    const agent = createHarnessAgent({
      model: testServerModel(server),
      workspace: dir.path,
      sandbox: 'local',
      execute: { askPermission: false },
      toolResultEviction: { maxResultChars: 2000 },
    });
    const { events } = await run(agent, 'count');
    const [info] = customValues<{ path: string }>(events, 'tool_result_evicted');
    expect(readFileSync(join(dir.path, info!.path), 'utf8')).toMatch(/^1\n2\n3\n[\s\S]*\n3000\n\[exit code 0\]$/);
    expect(textOfResult(resultOf(events, 'sh'))).toContain('[Tool result evicted:');
  });

  it('keeps at most maxFiles evicted files, the newest ones', async () => {
    const calls = Array.from({ length: 5 }, (_, i) => ({ id: `c${i}`, name: 'dump', input: { size: 2000 } }));
    const agent = createHarnessAgent({
      model: new ScriptedChatModel([...calls.map((c) => ({ toolCalls: [c] })), { text: 'ok' }]),
      workspace: dir.path,
      tools: [dump],
      toolResultEviction: { maxResultChars: 1000, maxFiles: 3 },
    });
    const { events } = await run(agent, 'dump five times');
    const paths = customValues<{ path: string }>(events, 'tool_result_evicted').map((v) => v.path.split('/')[1]!);
    expect(paths).toHaveLength(5);
    expect(evicted(dir.path)).toEqual(paths.slice(2).sort());
  });

  it('the pointer suggests only the tools the agent has', async () => {
    const withTools = createHarnessAgent({
      model: new ScriptedChatModel([{ toolCalls: [{ id: 'a', name: 'dump', input: { size: 3000 } }] }, { text: 'ok' }]),
      workspace: dir.path,
      tools: [dump],
      toolResultEviction: { maxResultChars: 1000 },
    });
    expect(textOfResult(resultOf((await run(withTools)).events, 'a'))).toMatch(
      /read it in parts with read_file .* or search it with grep_files/,
    );
    const without = createHarnessAgent({
      model: new ScriptedChatModel([{ toolCalls: [{ id: 'b', name: 'dump', input: { size: 3000 } }] }, { text: 'ok' }]),
      workspace: dir.path,
      tools: [dump],
      fileTools: false,
      toolResultEviction: { maxResultChars: 1000 },
    });
    const pointer = textOfResult(resultOf((await run(without)).events, 'b'));
    expect(pointer).not.toMatch(/read_file|grep_files/);
    expect(pointer).toMatch(/were saved to large_tool_results\/b-\w+\.txt\.\]/);
  });

  describe('tool-call ids and write failures', () => {
    const ctx = {
      event: (type: string, fields: object) =>
        createEvent(type as never, fields as never, { replyId: 'r', source: 'a' }),
    } as unknown as RuntimeContext;
    const agent = { tools: [] as Tool[] } as unknown as Agent;
    const evict = (mw: ToolResultEvictionMiddleware, toolCallId: string): Promise<AgentEvent[]> => {
      const end = createEvent(
        'TOOL_RESULT_END',
        { blockId: 'b', toolCallId, status: 'success', output: [{ type: 'text', text: 'y'.repeat(500) }] },
        { replyId: 'r', source: 'a' },
      );
      const input = {
        toolCall: { type: 'tool_call' as const, id: toolCallId, name: 'dump', arguments: '{}' },
        tool: dump,
        input: { size: 500 },
      };
      return lastValueFrom(mw.onActing(agent, ctx, input, () => of(end)).pipe(toArray()));
    };

    it('empty, repeated and very long ids each get their own file, within the file-name limit', async () => {
      const mw = new ToolResultEvictionMiddleware({ fileSystem: new LocalFileSystem(dir.path), maxResultChars: 100 });
      const ids = ['', '', 'dup', 'dup', 'x'.repeat(1000), '../../etc/passwd'];
      const paths: string[] = [];
      for (const id of ids) {
        const events = await evict(mw, id);
        const [info] = customValues<{ path: string }>(events, 'tool_result_evicted');
        expect(info).toBeDefined();
        paths.push(info!.path);
      }
      expect(new Set(paths).size).toBe(ids.length);
      for (const p of paths) {
        expect(p.startsWith('large_tool_results/')).toBe(true);
        expect(Buffer.byteLength(p.split('/')[1]!)).toBeLessThanOrEqual(255);
      }
      expect(evicted(dir.path)).toHaveLength(ids.length);
    });

    it('a failed write leaves the result untouched and says so', async () => {
      const fs = new LocalFileSystem(dir.path);
      const failing = Object.assign(Object.create(fs) as LocalFileSystem, {
        writeFile: () => Promise.reject(new Error('disk full')),
      });
      const events = await evict(new ToolResultEvictionMiddleware({ fileSystem: failing, maxResultChars: 100 }), 'c1');
      expect(events[0]).toMatchObject({ type: 'TOOL_RESULT_END', output: [{ type: 'text', text: 'y'.repeat(500) }] });
      expect(customValues(events, 'tool_result_eviction_failed')).toEqual([{ toolCallId: 'c1', error: 'disk full' }]);
    });

    it('a pointer is never evicted again', async () => {
      const mw = new ToolResultEvictionMiddleware({ fileSystem: new LocalFileSystem(dir.path), maxResultChars: 100 });
      const [rewritten] = await evict(mw, 'once');
      const again = await lastValueFrom(
        mw
          .onActing(
            agent,
            ctx,
            { toolCall: { type: 'tool_call', id: 'once', name: 'dump', arguments: '{}' }, tool: dump, input: {} },
            () => of(rewritten!),
          )
          .pipe(toArray()),
      );
      expect(again).toEqual([rewritten]);
    });
  });
});
