import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { toolResultsOf } from '../message/msg.js';
import { decidePermission } from '../permission/engine.js';
import type { PermissionState } from '../permission/rules.js';
import { defineTool } from '../tool/tool.js';
import { ScriptedChatModel } from '../testing/index.js';
import { endOf, ofType, runReply } from './helpers.js';

const read = defineTool({
  name: 'read_file',
  description: '',
  input: z.object({ path: z.string() }),
  readOnly: true,
  execute: () => 'x',
});
const write = defineTool({
  name: 'write_file',
  description: '',
  input: z.object({ path: z.string(), text: z.string() }),
  execute: () => 'ok',
});
const deploy = defineTool({
  name: 'deploy',
  description: '',
  input: z.object({ env: z.string() }),
  needsApproval: true,
  execute: () => 'deployed',
});
const pay = defineTool({
  name: 'pay',
  description: '',
  input: z.object({ amount: z.number() }),
  needsApproval: ({ amount }) => Promise.resolve(amount > 100),
  execute: () => 'paid',
});
const rm = defineTool({
  name: 'rm',
  description: '',
  input: z.object({ path: z.string() }),
  checkPermissions: ({ path }) =>
    path === '/'
      ? { behavior: 'deny', reason: 'Refusing to delete the root directory.' }
      : path.startsWith('/tmp/')
        ? { behavior: 'allow' }
        : { behavior: 'ask' },
  execute: () => 'removed',
});

const state = (mode: PermissionState['mode'], rules: PermissionState['rules'] = []): PermissionState => ({
  mode,
  rules,
});
const decide = async (tool: Parameters<typeof decidePermission>[0], input: unknown, s: PermissionState) =>
  (await decidePermission(tool, input, s)).behavior;

describe('permission engine', () => {
  it('applies the modes to calls no rule decides', async () => {
    expect(await decide(write, { path: 'a', text: '' }, state('default'))).toBe('allow');
    expect(await decide(write, { path: 'a', text: '' }, state('strict'))).toBe('ask');
    expect(await decide(write, { path: 'a', text: '' }, state('plan'))).toBe('deny');
    expect(await decide(deploy, { env: 'prod' }, state('bypass'))).toBe('allow');
    // Read-only tools pass in every mode, plan and strict included.
    for (const mode of ['default', 'strict', 'plan', 'bypass'] as const)
      expect(await decide(read, { path: 'a' }, state(mode))).toBe('allow');
  });

  it('decides in order: deny rules, ask rules, read-only, plan, the tool, allow rules, the mode', async () => {
    const denyEtc = { behavior: 'deny', tool: '*', argument: 'path', pattern: '/etc/**' } as const;
    // A deny rule beats everything, even the read-only fast path and bypass mode.
    expect(await decide(read, { path: '/etc/passwd' }, state('bypass', [denyEtc]))).toBe('deny');
    // An ask rule beats the read-only fast path.
    expect(
      await decide(
        read,
        { path: 'secrets.txt' },
        state('default', [{ behavior: 'ask', tool: 'read_file', argument: 'path', pattern: 'secret*' }]),
      ),
    ).toBe('ask');
    // The tool asks; an allow rule overrides a tool's "ask" (that is what "always allow" adds)...
    expect(await decide(deploy, { env: 'prod' }, state('default'))).toBe('ask');
    expect(await decide(deploy, { env: 'prod' }, state('default', [{ behavior: 'allow', tool: 'deploy' }]))).toBe(
      'allow',
    );
    // ...but not the tool's own deny.
    expect(await decide(rm, { path: '/' }, state('default', [{ behavior: 'allow', tool: 'rm' }]))).toBe('deny');
    expect(await decide(rm, { path: '/tmp/x' }, state('strict'))).toBe('allow');
    expect(await decide(rm, { path: '/home/x' }, state('default'))).toBe('ask');
    // Asynchronous per-input approval.
    expect(await decide(pay, { amount: 5 }, state('default'))).toBe('allow');
    expect(await decide(pay, { amount: 500 }, state('default'))).toBe('ask');
    // Allow rules beat strict mode's default; plan mode denies even allowed writes.
    expect(
      await decide(
        write,
        { path: 'src/a.ts', text: '' },
        state('strict', [{ behavior: 'allow', tool: 'write_*', argument: 'path', pattern: 'src/**' }]),
      ),
    ).toBe('allow');
    expect(
      await decide(
        write,
        { path: 'docs/a.md', text: '' },
        state('strict', [{ behavior: 'allow', tool: 'write_*', argument: 'path', pattern: 'src/**' }]),
      ),
    ).toBe('ask');
    expect(
      await decide(write, { path: 'src/a.ts', text: '' }, state('plan', [{ behavior: 'allow', tool: 'write_file' }])),
    ).toBe('deny');
  });

  it('explains its decisions', async () => {
    const d = await decidePermission(
      write,
      { path: '/etc/hosts', text: '' },
      state('default', [{ behavior: 'deny', tool: 'write_file', argument: 'path', pattern: '/etc/**' }]),
    );
    expect(d).toEqual({
      behavior: 'deny',
      decidedBy: 'rule',
      reason: 'Denied by deny rule "write_file" with path matching "/etc/**".',
    });
    expect((await decidePermission(write, { path: 'a', text: '' }, state('plan'))).reason).toMatch(/Plan mode/);
  });
});

describe('permissions in the loop', () => {
  it('a denied call gets a denied result with the reason, and the loop continues', async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { id: 'w', name: 'write_file', input: { path: '/etc/hosts', text: 'x' } },
          { id: 'r', name: 'read_file', input: { path: 'a' } },
        ],
      },
      { text: 'I may not write there.' },
    ]);
    const agent = new Agent({
      model,
      tools: [read, write],
      permissions: {
        rules: [
          {
            behavior: 'deny',
            tool: 'write_file',
            argument: 'path',
            pattern: '/etc/**',
            reason: 'System files are off limits.',
          },
        ],
      },
    });
    const events = await runReply(agent, agent.reply('edit hosts'));
    expect(endOf(events).finishReason).toBe('completed');
    expect(toolResultsOf(agent.context[1]!).map((r) => [r.toolCallId, r.status, r.output])).toEqual([
      ['w', 'denied', [{ type: 'text', text: 'System files are off limits.' }]],
      ['r', 'success', [{ type: 'text', text: 'x' }]],
    ]);
  });

  it('plan mode denies writes, and mode and rules changed at runtime persist in the state', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'write_file', input: { path: 'a', text: 'x' } }] },
      { text: 'planned' },
      { toolCalls: [{ name: 'write_file', input: { path: 'a', text: 'x' } }] },
      { text: 'written' },
    ]);
    const agent = new Agent({ model, tools: [write], permissions: { mode: 'plan' } });
    await runReply(agent, agent.reply('plan it'));
    expect(toolResultsOf(agent.context[1]!)[0]!.status).toBe('denied');
    agent.permissions.setMode('default');
    agent.permissions.addRule({ behavior: 'ask', tool: 'deploy' });
    const events = await runReply(agent, agent.reply('now do it'));
    expect(ofType(events, 'TOOL_RESULT_END')[0]!.status).toBe('success');
    const saved = agent.saveState();
    expect(saved.permissions).toEqual({ mode: 'default', rules: [{ behavior: 'ask', tool: 'deploy' }] });
    const restored = new Agent({ model, tools: [write], state: JSON.parse(JSON.stringify(saved)) });
    expect(restored.permissions.mode).toBe('default');
    expect(restored.permissions.rules).toEqual([{ behavior: 'ask', tool: 'deploy' }]);
    expect(() => agent.permissions.setMode('yolo' as never)).toThrow(/Unknown permission mode "yolo"/);
  });
});
