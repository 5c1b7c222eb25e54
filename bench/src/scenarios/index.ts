import type { AnyScenario } from '../harness/scenario.js';
import { agentLoop } from './agent-loop.js';
import { agentLoopMemory } from './agent-loop-memory.js';
import { cancelLeaks } from './cancel-leaks.js';
import { checkpoint } from './checkpoint.js';
import { concurrency } from './concurrency.js';
import { concurrencyScale } from './concurrency-scale.js';
import { devtoolsBuffer } from './devtools-buffer.js';
import { devtoolsOverhead } from './devtools-overhead.js';
import { firstToken } from './first-token.js';
import { harnessOverhead } from './harness-overhead.js';
import { leaks } from './leaks.js';
import { modelOverhead } from './model-overhead.js';
import { perEvent } from './per-event.js';
import { replyGc } from './reply-gc.js';
import { sseLoad } from './sse-load.js';

/**
 * Every scenario, in the order `pnpm bench` runs them. Add new scenario files here. The agent
 * loop in memory runs first, in a process that has run nothing else yet: after S1's contenders
 * (LangChain, the AI SDK, OpenAI Agents and their heaps) its figures came out about twice as high.
 */
export const scenarios: readonly AnyScenario[] = [
  agentLoopMemory,
  modelOverhead,
  agentLoop,
  perEvent,
  concurrency,
  concurrencyScale,
  leaks,
  replyGc,
  cancelLeaks,
  firstToken,
  harnessOverhead,
  checkpoint,
  sseLoad,
  devtoolsOverhead,
  devtoolsBuffer,
];
