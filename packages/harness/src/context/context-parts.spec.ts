import { ScriptedChatModel } from '@rxscope/core/testing';
import { builtOne, partEnv } from '../__tests__/part-env.js';
import { CompactionMiddleware } from './compaction/index.js';
import { compactionPart, toolResultEvictionPart } from './context-parts.js';
import { ToolResultEvictionMiddleware } from './tool-result-eviction/index.js';

describe('the context parts', () => {
  const env = partEnv();
  afterAll(() => env.cleanup());
  const model = new ScriptedChatModel([]);

  it("compaction is on by default and says its trigger: tokens, a context window's 80%, messages", () => {
    const on = builtOne(compactionPart, { model }, env);
    expect(on.middleware).toBeInstanceOf(CompactionMiddleware);
    expect(on.part.reason).toBe(
      "older messages summarised over 100,000 tokens (from the model's context window when known)",
    );
    expect(builtOne(compactionPart, { model, compaction: { triggerTokens: 5000 } }, env).part.reason).toBe(
      'older messages summarised over 5,000 tokens',
    );
    expect(
      builtOne(compactionPart, { model, compaction: { contextWindow: 32_000, triggerMessages: 40 } }, env).part.reason,
    ).toBe('older messages summarised over 80% of a 32,000-token context window or 40 messages');
    expect(builtOne(compactionPart, { model, compaction: false }, env).part).toMatchObject({ enabled: false });
  });

  it('eviction is on by default, lent to subagents, and says its bound', () => {
    expect(toolResultEvictionPart.lends).toBe(true);
    const on = builtOne(toolResultEvictionPart, {}, env);
    expect(on.middleware).toBeInstanceOf(ToolResultEvictionMiddleware);
    expect(on.part.reason).toBe('results over 80,000 characters go to large_tool_results/');
    expect(builtOne(toolResultEvictionPart, { toolResultEviction: { maxResultChars: 1000 } }, env).part.reason).toBe(
      'results over 1,000 characters go to large_tool_results/',
    );
    expect(builtOne(toolResultEvictionPart, { toolResultEviction: false }, env).middleware).toBeUndefined();
  });
});
