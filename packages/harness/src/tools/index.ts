// What the rest of the harness may use of tools/: its other files are its own.
export { editFileTool, type EditFileOptions } from './edit-file.js';
export { globFilesTool } from './glob-files.js';
export { grepFilesTool, type GrepFilesOptions } from './grep-files.js';
export { listFilesTool } from './list-files.js';
export { readFileTool, type ReadFileOptions } from './read-file.js';
export { writeFileTool } from './write-file.js';
