import type { AnyScenario } from '../harness/scenario.js';
import { agentLoop } from './agent-loop.js';
import { agentLoopMemory } from './agent-loop-memory.js';
import { concurrency } from './concurrency.js';
import { firstToken } from './first-token.js';
import { leaks } from './leaks.js';
import { modelOverhead } from './model-overhead.js';
import { perEvent } from './per-event.js';

/** Every scenario, in the order `pnpm bench` runs them. Add new scenario files here. */
export const scenarios: readonly AnyScenario[] = [modelOverhead, agentLoop, agentLoopMemory, perEvent, concurrency, leaks, firstToken];
