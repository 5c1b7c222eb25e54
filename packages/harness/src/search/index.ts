// What the rest of the harness may use of search/: its other files are its own.
export { compileGlob, type CompiledGlob } from './glob-regex.js';
export { searchLines } from './line-search.js';
export { PatternError, type PatternErrorCode } from './pattern-error.js';
export { compileSearchRegex, type SearchRegex } from './search-regex.js';
export { TimeSlice } from './time-slice.js';
