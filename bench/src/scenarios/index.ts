import type { Scenario } from '../harness/scenario.js';
import { modelOverhead } from './model-overhead.js';

/** Every scenario, in the order `pnpm bench` runs them. Add new scenario files here. */
export const scenarios: readonly Scenario[] = [modelOverhead];
