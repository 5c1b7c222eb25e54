// What the rest of the harness may use of context/: its other files are its own.
export { contextWindowOf } from './compaction/context-window.js';
export { COMPACTION_SUMMARY, CompactionMiddleware, type CompactionOptions } from './compaction/index.js';
export { SUMMARY_SECTIONS, transcriptOf } from './compaction/summarize.js';
export { TokenTally, estimateTokens, type TokenCounter } from './compaction/token-count.js';
export {
  FILE_TOOL_NAMES,
  ToolResultEvictionMiddleware,
  type ToolResultEvictionOptions,
} from './tool-result-eviction/index.js';
