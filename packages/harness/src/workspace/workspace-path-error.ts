import { RxscopeError } from '@rxscope/core';
/** Why a path was refused by the workspace. */
export type WorkspacePathErrorCode =
  | 'outside_workspace'
  | 'symlink_outside'
  | 'nul_byte'
  | 'name_too_long'
  | 'path_too_long'
  | 'special_file'
  | 'not_found'
  | 'not_a_file'
  | 'not_a_directory'
  | 'invalid_path';

/**
 * A path a tool, `@path` or the shell gave was refused: it leads outside the workspace, names a
 * device or another special file, holds a NUL byte, or is longer than the file system allows.
 * Tools turn it into an `error` result whose text is this message, so the model can correct
 * itself.
 *
 * @example
 * ```ts
 * try {
 *   await fs.readFile('../secrets.txt');
 * } catch (e) {
 *   if (e instanceof WorkspacePathError && e.code === 'outside_workspace') console.log(e.message);
 * }
 * ```
 */
export class WorkspacePathError extends RxscopeError {
  override readonly name = 'WorkspacePathError';

  constructor(
    readonly code: WorkspacePathErrorCode,
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}
