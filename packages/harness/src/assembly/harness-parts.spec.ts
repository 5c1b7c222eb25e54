// The documented middleware order is the order the harness assembles: the table in
// docs/harness.md ("The middleware order, and why") against HARNESS_PARTS.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { built, partEnv } from '../__tests__/part-env.js';
import { subagentsPart } from '../subagents/subagents-part.js';
import { HARNESS_PARTS } from './harness-parts.js';

const documentedOrder = (): string[] => {
  const doc = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'harness.md'), 'utf8');
  const section = doc.split('## The middleware order, and why')[1]!.split('\n## ')[0]!;
  return [...section.matchAll(/^\| \d+ \| `(\w+)`/gm)].map((m) => m[1]!);
};

describe('HARNESS_PARTS', () => {
  const env = partEnv();
  afterAll(() => env.cleanup());

  it('assembles the middlewares in the order docs/harness.md documents, every part on', () => {
    const options = {
      model: new ScriptedChatModel([]),
      sandbox: 'local',
      workspaceSnapshot: true,
      planMode: true,
      memory: true,
    } as const;
    const middlewares = HARNESS_PARTS.flatMap((definition) => built(definition as never, options, env)).flatMap((p) =>
      p.middleware ? [p.middleware.key] : [],
    );
    expect(documentedOrder()).toHaveLength(14);
    expect(middlewares).toEqual(documentedOrder());
  });

  it('lends the sandbox lifecycle, the workspace context and eviction; only subagents borrow', () => {
    const options = { model: new ScriptedChatModel([]), sandbox: 'local' } as const;
    const lenders = HARNESS_PARTS.filter((d) => 'lends' in d && d.lends).flatMap((d) =>
      built(d as never, options, env).flatMap((p) => (p.middleware ? [p.middleware.key] : [])),
    );
    expect(lenders).toEqual([
      'SandboxLifecycleMiddleware',
      'WorkspaceContextMiddleware',
      'ToolResultEvictionMiddleware',
    ]);
    expect(HARNESS_PARTS.filter((d) => 'borrows' in d && d.borrows)).toEqual([subagentsPart]);
  });
});
