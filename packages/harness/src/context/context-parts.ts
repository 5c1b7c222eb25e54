import type { ChatModel } from '@rxscope/core';
import { type HarnessPartDefinition, isOn, objectOf, offPart, onPart } from '../harness-part.js';
import { CompactionMiddleware, type CompactionOptions } from './compaction/index.js';
import { ToolResultEvictionMiddleware, type ToolResultEvictionOptions } from './tool-result-eviction/index.js';

/** The options the compaction part reads. */
export interface CompactionPartOptions {
  readonly compaction?: false | Omit<CompactionOptions, 'fileSystem'>;
  readonly model?: ChatModel;
}

/** Older messages summarised before a step is assembled. */
export const compactionPart: HarnessPartDefinition<CompactionPartOptions> = {
  build(options, env) {
    const name = 'CompactionMiddleware';
    const compaction = options.compaction;
    if (!isOn(compaction, true)) return offPart(name, 'compaction', 'compaction: false');
    const c = objectOf(compaction);
    const middleware = new CompactionMiddleware({ ...c, fileSystem: env.fileSystem });
    const trigger =
      c.triggerTokens !== undefined
        ? `over ${c.triggerTokens.toLocaleString('en-US')} tokens`
        : c.contextWindow !== undefined
          ? `over 80% of a ${c.contextWindow.toLocaleString('en-US')}-token context window`
          : `over ${middleware.triggerFor(options.model!).toLocaleString('en-US')} tokens (from the model's context window when known)`;
    const messages = c.triggerMessages !== undefined ? ` or ${c.triggerMessages} messages` : '';
    return onPart(name, 'compaction', `older messages summarised ${trigger}${messages}`, { middleware });
  },
};

/** The options the eviction part reads. */
export interface ToolResultEvictionPartOptions {
  readonly toolResultEviction?: false | Omit<ToolResultEvictionOptions, 'fileSystem'>;
}

/** Large tool results go to the workspace, innermost on acting; lent to subagents. */
export const toolResultEvictionPart: HarnessPartDefinition<ToolResultEvictionPartOptions> = {
  lends: true,
  build(options, env) {
    const name = 'ToolResultEvictionMiddleware';
    const eviction = options.toolResultEviction;
    if (!isOn(eviction, true)) return offPart(name, 'toolResultEviction', 'toolResultEviction: false');
    const middleware = new ToolResultEvictionMiddleware({ ...objectOf(eviction), fileSystem: env.fileSystem });
    const reason = `results over ${middleware.maxResultChars.toLocaleString('en-US')} characters go to large_tool_results/`;
    return onPart(name, 'toolResultEviction', reason, { middleware });
  },
};
