import type { PermissionDecision } from '../../permission/engine.js';
import type { Tool } from '../../tool/tool.js';
import { triage, type Triage } from './tool-call-triage.js';
import type { PreparedCall } from './tool-run.js';

const tool = (name: string, external = false) => ({ name, external }) as unknown as Tool;
const run = (id: string, t: Tool, input: unknown = { id }): PreparedCall => ({
  kind: 'run',
  call: { type: 'tool_call', id, name: t.name, arguments: JSON.stringify(input) },
  tool: t,
  input,
});
const decision = (behavior: PermissionDecision['behavior'], reason: string = behavior ?? ''): PermissionDecision => ({
  behavior,
  reason,
  decidedBy: 'rule',
});

describe('triage', () => {
  const local = tool('read');
  const ext = tool('deploy', true);

  it('an allowed local call runs now, unchanged', () => {
    const p = run('c1', local);
    expect(triage(p, () => decision('allow'))).toEqual({ kind: 'now', prepared: p });
  });

  it('an ask waits for confirmation with the input and the reason', () => {
    expect(triage(run('c1', local, { path: '/x' }), () => decision('ask', 'writes files'))).toEqual({
      kind: 'confirm',
      call: { id: 'c1', name: 'read', input: { path: '/x' }, reason: 'writes files' },
    });
  });

  it('an allowed external tool waits for its executor; an ask on it still waits for confirmation first', () => {
    expect(triage(run('c1', ext, { v: 1 }), () => decision('allow'))).toEqual({
      kind: 'external',
      call: { id: 'c1', name: 'deploy', input: { v: 1 } },
    });
    expect((triage(run('c2', ext), () => decision('ask')) as Triage).kind).toBe('confirm');
  });

  it('a denied call is answered now with status denied and the reason', () => {
    const p = run('c1', ext);
    expect(triage(p, () => decision('deny', 'not in prod'))).toEqual({
      kind: 'now',
      prepared: { kind: 'answer', call: p.call, status: 'denied', text: 'not in prod' },
    });
  });

  it('a call already answered (unknown tool, bad input) is passed on without asking the permission check', () => {
    const answered: PreparedCall = {
      kind: 'answer',
      call: { type: 'tool_call', id: 'c1', name: 'nope', arguments: '{}' },
      status: 'error',
      text: 'Unknown tool',
    };
    const decide = jest.fn(() => decision('deny'));
    expect(triage(answered, decide)).toEqual({ kind: 'now', prepared: answered });
    expect(decide).not.toHaveBeenCalled();
  });

  it('a permission check that throws, or rejects, answers the call with an error naming the tool', async () => {
    const p = run('c1', local);
    const expected = {
      kind: 'now',
      prepared: { kind: 'answer', call: p.call, status: 'error', text: 'Permission check of "read" failed: db down' },
    };
    expect(
      triage(p, () => {
        throw new Error('db down');
      }),
    ).toEqual(expected);
    await expect(triage(p, () => Promise.reject(new Error('db down')))).resolves.toEqual(expected);
  });

  it('is synchronous for a synchronous check and resolves for an asynchronous one', async () => {
    const p = run('c1', local);
    expect(triage(p, () => decision('allow'))).not.toBeInstanceOf(Promise);
    await expect(triage(p, () => Promise.resolve(decision('ask', 'r')))).resolves.toMatchObject({ kind: 'confirm' });
  });

  it('decides each call of a batch on its own, keeping their order', () => {
    const decide = (t: Tool, input: unknown): PermissionDecision =>
      (input as { id: string }).id === 'c2'
        ? decision('ask')
        : (input as { id: string }).id === 'c3'
          ? decision('deny')
          : decision('allow');
    const out = [run('c1', local), run('c2', local), run('c3', local), run('c4', ext)].map(
      (p) => triage(p, decide) as Triage,
    );
    expect(out.map((t) => [t.kind, t.kind === 'now' ? t.prepared.call.id : t.call.id])).toEqual([
      ['now', 'c1'],
      ['confirm', 'c2'],
      ['now', 'c3'],
      ['external', 'c4'],
    ]);
  });
});
