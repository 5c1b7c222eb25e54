import type { HarnessPartDefinition } from '../harness-part.js';
import { editFileTool, type EditFileOptions } from './edit-file.js';
import { globFilesTool } from './glob-files.js';
import { grepFilesTool, type GrepFilesOptions } from './grep-files.js';
import { listFilesTool } from './list-files.js';
import { readFileTool, type ReadFileOptions } from './read-file.js';
import { writeFileTool } from './write-file.js';

/** The options the file tools part reads. */
export interface FileToolsPartOptions {
  readonly fileTools?: boolean | 'read-only';
  readonly readFile?: ReadFileOptions;
  readonly editFile?: EditFileOptions;
  readonly grepFiles?: GrepFilesOptions;
}

/** The file tools, confined to the workspace: all six, the read-only four, or none. */
export const fileToolsPart: HarnessPartDefinition<FileToolsPartOptions> = {
  build(options, env) {
    const fs = env.fileSystem;
    const fileTools = options.fileTools ?? true;
    const reading = [
      readFileTool(fs, options.readFile),
      listFilesTool(fs),
      globFilesTool(fs),
      grepFilesTool(fs, options.grepFiles),
    ];
    const tools =
      fileTools === false
        ? []
        : fileTools === 'read-only'
          ? reading
          : [...reading, writeFileTool(fs), editFileTool(fs, options.editFile)];
    const reason =
      fileTools === false
        ? 'fileTools: false'
        : fileTools === 'read-only'
          ? 'read-only file tools'
          : 'all file tools, confined to the workspace';
    return { part: { name: 'file tools', option: 'fileTools', enabled: tools.length > 0, reason }, tools };
  },
};
