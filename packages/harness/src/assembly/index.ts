// What the rest of the harness may use of assembly/: its other files are its own.
export {
  createHarnessAgent,
  describeHarness,
  type HarnessDescription,
  type HarnessPart,
} from './create-harness-agent.js';
export { type HarnessOptions } from './harness-options.js';
export { presets } from './presets.js';
