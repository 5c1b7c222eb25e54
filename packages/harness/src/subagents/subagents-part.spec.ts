import type { Middleware } from '@rxscope/core';
import { builtOne, partEnv, toolNamesOf } from '../__tests__/part-env.js';
import { SubagentsMiddleware } from './subagents-middleware/index.js';
import { subagentsPart } from './subagents-part.js';

describe('the subagents part', () => {
  const lent: Middleware = { key: 'Lent' };
  const env = partEnv([lent]);
  afterAll(() => env.cleanup());

  it('is on by default: agent_spawn and the task tools, background spawns through the inbox', () => {
    const on = builtOne(subagentsPart, {}, env);
    expect(on.middleware).toBeInstanceOf(SubagentsMiddleware);
    expect(toolNamesOf(on)).toContain('agent_spawn');
    expect(on.part.reason).toBe(
      'agent_spawn runs subagents/<name>.md or a general-purpose subagent in a context of its own, nested at most 2 deep; background spawns report through the inbox',
    );
  });

  it('says what the options change: no general-purpose subagent, depth, no background without the inbox', () => {
    const part = builtOne(subagentsPart, { subagents: { generalPurpose: false, maxDepth: 1 }, inbox: false }, env).part;
    expect(part.reason).toBe(
      'agent_spawn runs subagents/<name>.md in a context of its own, nested at most 1 deep; no background spawns (inbox: false)',
    );
  });

  it('borrows what the other parts lend, and is off with false', () => {
    expect(subagentsPart.borrows).toBe(true);
    expect(builtOne(subagentsPart, { subagents: false }, env)).toEqual({
      part: { name: 'SubagentsMiddleware', option: 'subagents', enabled: false, reason: 'subagents: false' },
    });
  });

  it('refuses a depth below 1 when the harness is built', () => {
    expect(() => builtOne(subagentsPart, { subagents: { maxDepth: 0 } }, env)).toThrow(/maxDepth must be an integer/);
  });
});
