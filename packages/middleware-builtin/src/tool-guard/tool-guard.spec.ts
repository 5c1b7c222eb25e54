import { z } from 'zod';
import {
  type ActingInput,
  Agent,
  type AgentEvent,
  defineTool,
  isEvent,
  type Middleware,
  type ToolResultBlock,
  toolResultsOf,
} from '@rxscope/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { run } from '../__tests__/helpers.js';
import { clampArgument, confinePath, ToolGuardMiddleware } from './index.js';

function fixture() {
  const ran: { tool: string; input: unknown }[] = [];
  const record = (tool: string) => (input: unknown) => (ran.push({ tool, input }), 'ok');
  const tools = [
    defineTool({
      name: 'search',
      description: 'search',
      input: z.object({ q: z.string(), limit: z.number().int().max(1000) }),
      execute: record('search'),
    }),
    defineTool({
      name: 'fs_read',
      description: 'read',
      input: z.object({ path: z.string() }),
      execute: record('fs_read'),
    }),
    defineTool({
      name: 'fs_write',
      description: 'write',
      input: z.object({ path: z.string(), text: z.string() }),
      execute: record('fs_write'),
    }),
    defineTool({ name: 'shell', description: 'shell', input: z.object({ cmd: z.string() }), execute: record('shell') }),
  ];
  return { ran, tools };
}

/** One step with these calls, then an answer. */
const oneStep = (...calls: { name: string; input: unknown }[]) =>
  new ScriptedChatModel([{ toolCalls: calls.map((c, i) => ({ id: `c${i}`, ...c })) }, { text: 'done' }]);

const results = (agent: Agent): ToolResultBlock[] => toolResultsOf(agent.context.at(-1)!);
const resultText = (r: ToolResultBlock) => r.output.map((o) => (o.type === 'text' ? o.text : '')).join('');

describe('ToolGuardMiddleware', () => {
  it('denies tools on the deny list (names and globs) with a denied result naming the reason, and hides them from the model', async () => {
    const { ran, tools } = fixture();
    const model = oneStep(
      { name: 'shell', input: { cmd: 'rm -rf /' } },
      { name: 'fs_write', input: { path: 'a', text: 'x' } },
      { name: 'fs_read', input: { path: 'a' } },
    );
    const guard = new ToolGuardMiddleware({
      deny: [{ tool: 'shell', reason: 'no shell access in this deployment' }, 'fs_w*'],
    });
    const agent = new Agent({ model, tools, middlewares: [guard] });
    const { end } = await run(agent, 'go');

    expect(end.finishReason).toBe('completed');
    expect(ran.map((r) => r.tool)).toEqual(['fs_read']);
    expect(results(agent).map((r) => r.status)).toEqual(['denied', 'denied', 'success']);
    expect(resultText(results(agent)[0]!)).toBe(
      'Call denied by the tool guard: "shell" is on the deny list: no shell access in this deployment.',
    );
    expect(resultText(results(agent)[1]!)).toBe(
      'Call denied by the tool guard: "fs_write" is on the deny list (rule "fs_w*").',
    );
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual(['search', 'fs_read']);
  });

  it('with an allow list, only the tools it matches run; hideDenied: false keeps the others offered', async () => {
    const { ran, tools } = fixture();
    const model = oneStep({ name: 'search', input: { q: 'x', limit: 1 } }, { name: 'fs_read', input: { path: 'a' } });
    const agent = new Agent({
      model,
      tools,
      middlewares: [new ToolGuardMiddleware({ allow: ['fs_*'], hideDenied: false })],
    });
    await run(agent, 'go');

    expect(ran.map((r) => r.tool)).toEqual(['fs_read']);
    expect(resultText(results(agent)[0]!)).toBe(
      'Call denied by the tool guard: "search" is not on the allow list (fs_*).',
    );
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual(['search', 'fs_read', 'fs_write', 'shell']);
  });

  it('denies calls by an argument glob, checked on the arguments that would really run', async () => {
    const { ran, tools } = fixture();
    const model = oneStep(
      { name: 'fs_write', input: { path: 'app/.env', text: 'x' } },
      { name: 'fs_write', input: { path: 'app/main.ts', text: 'x' } },
      { name: 'fs_read', input: { path: 'app/.env' } },
    );
    const guard = new ToolGuardMiddleware({
      deny: [{ tool: 'fs_write', argument: 'path', pattern: '**/.env', reason: 'secrets stay untouched' }],
      rewrite: { fs_write: confinePath('path', '/workspace') },
    });
    const agent = new Agent({ model, tools, middlewares: [guard] });
    await run(agent, 'go');

    expect(ran).toEqual([
      { tool: 'fs_write', input: { path: '/workspace/app/main.ts', text: 'x' } },
      { tool: 'fs_read', input: { path: 'app/.env' } },
    ]);
    expect(resultText(results(agent)[0]!)).toBe('Call denied by the tool guard: secrets stay untouched.');
    expect(model.requests[0]!.tools.map((t) => t.name)).toContain('fs_write'); // narrowed rules don't hide the tool
  });

  it('rewrites arguments: inner layers and the tool see the new input, a CUSTOM event records it', async () => {
    const { ran, tools } = fixture();
    const seenInside: ActingInput[] = [];
    const spy: Middleware = {
      onActing: (_a, _c, input, next) => (seenInside.push(input), next(input)),
    };
    const model = oneStep(
      { name: 'search', input: { q: 'cats', limit: 1000 } },
      { name: 'search', input: { q: 'dogs', limit: 5 } },
    );
    const agent = new Agent({
      model,
      tools,
      middlewares: [new ToolGuardMiddleware({ rewrite: { search: clampArgument('limit', { max: 50 }) } }), spy],
    });
    const { events } = await run(agent, 'go');

    expect(ran.map((r) => r.input)).toEqual([
      { q: 'cats', limit: 50 },
      { q: 'dogs', limit: 5 },
    ]);
    expect(seenInside[0]!.input).toEqual({ q: 'cats', limit: 50 });
    expect(JSON.parse(seenInside[0]!.toolCall.arguments)).toEqual({ q: 'cats', limit: 50 });
    expect(seenInside[1]!.toolCall.arguments).toBe(JSON.stringify({ q: 'dogs', limit: 5 })); // untouched call passes as is
    const rewrites = events.filter(isEvent('CUSTOM')).filter((e) => e.name === 'tool_guard.rewrite');
    expect(rewrites.map((e) => e.value)).toEqual([
      { toolCallId: 'c0', tool: 'search', before: { q: 'cats', limit: 1000 }, after: { q: 'cats', limit: 50 } },
    ]);
    // the stored call keeps what the model asked for
    expect(agent.context.at(-1)!.content.find((b) => b.type === 'tool_call')).toMatchObject({
      arguments: JSON.stringify({ q: 'cats', limit: 1000 }),
    });
  });

  it('answers with an error result when a rewrite throws or produces invalid arguments, without running the tool', async () => {
    const { ran, tools } = fixture();
    const model = oneStep({ name: 'search', input: { q: 'x', limit: 1 } }, { name: 'fs_read', input: { path: 'a' } });
    const guard = new ToolGuardMiddleware({
      rewrite: {
        search: (input: { q: string; limit: number }) => ({ ...input, limit: 'many' }),
        fs_read: () => {
          throw new Error('no mapping for this path');
        },
      },
    });
    const agent = new Agent({ model, tools, middlewares: [guard] });
    await run(agent, 'go');

    expect(ran).toEqual([]);
    expect(results(agent).map((r) => r.status)).toEqual(['error', 'error']);
    expect(resultText(results(agent)[0]!)).toContain(
      'The tool guard rewrote the arguments into invalid ones. Invalid arguments for tool "search"',
    );
    expect(resultText(results(agent)[1]!)).toBe(
      'The tool guard could not rewrite the arguments of "fs_read": no mapping for this path',
    );
  });

  it('confines paths like a chroot', () => {
    const confine = confinePath('path', '/workspace/');
    const at = (path: string) => (confine({ path }, undefined as never) as { path: string }).path;
    expect(at('notes.txt')).toBe('/workspace/notes.txt');
    expect(at('/workspace/a/b.txt')).toBe('/workspace/a/b.txt');
    expect(at('../../etc/passwd')).toBe('/workspace/etc/passwd');
    expect(at('/workspace/../etc/passwd')).toBe('/workspace/etc/passwd');
    expect(at('/etc/passwd')).toBe('/workspace/etc/passwd');
    expect(at('/workspace2/x')).toBe('/workspace/workspace2/x');
    expect(at('a\\..\\..\\b')).toBe('/workspace/b');
    expect(at('')).toBe('/workspace');
    const same = { path: '/workspace/a' };
    expect(confine(same, undefined as never)).toBe(same); // unchanged input: no rewrite
  });

  it('clamps numbers only', () => {
    const clamp = clampArgument('limit', { min: 1, max: 10 });
    expect(clamp({ limit: 0 }, undefined as never)).toEqual({ limit: 1 });
    expect(clamp({ limit: 99 }, undefined as never)).toEqual({ limit: 10 });
    const other = { limit: 'all' };
    expect(clamp(other, undefined as never)).toBe(other);
  });

  it('keeps the stream grammar for denied calls (a START and an END per result)', async () => {
    const { tools } = fixture();
    const agent = new Agent({
      model: oneStep({ name: 'shell', input: { cmd: 'ls' } }),
      tools,
      middlewares: [new ToolGuardMiddleware({ deny: ['shell'] })],
    });
    const { events } = await run(agent, 'go');
    const types = events.filter((e: AgentEvent) => e.type.startsWith('TOOL_RESULT')).map((e) => e.type);
    expect(types).toEqual(['TOOL_RESULT_START', 'TOOL_RESULT_END']);
  });
});
