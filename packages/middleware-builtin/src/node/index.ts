// @rxscope/middleware-builtin/node — the parts that need Node (files). Explicit named exports only.
export { jsonLinesFileSink } from './json-lines-file-sink.js';
export { cassetteFile, loadCassette } from './cassette-file.js';
export { FileMemoryBackend } from './file-memory-backend.js';
export type { FileMemoryBackendOptions } from './file-memory-backend.js';
