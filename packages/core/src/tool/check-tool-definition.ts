import { checkOptionKeys } from '../error/check-option-keys.js';
import { OptionsError } from '../error/options-error.js';

/**
 * Every key of a `ToolDefinition`. Not typed against it here (tool.ts imports this file): the
 * spec beside it holds this record to `OptionKeyRecord<ToolDefinition>`, so adding a field to
 * ToolDefinition without listing it here fails to compile.
 */
export const TOOL_DEFINITION_KEYS = {
  name: true,
  description: true,
  input: true,
  readOnly: true,
  concurrencySafe: true,
  external: true,
  needsApproval: true,
  checkPermissions: true,
  execute: true,
  idempotent: true,
  recover: true,
} as const;
const KEYS = Object.keys(TOOL_DEFINITION_KEYS);

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

// Other frameworks' names for a tool's fields (the AI SDK, LangChain, OpenAI Agents), beyond the
// common ones (inputSchema/schema/parameters → input, func → execute).
const FOREIGN = {
  requireApproval: 'needsApproval',
  requiresApproval: 'needsApproval',
  needsConfirmation: 'needsApproval',
  isReadOnly: 'readOnly',
};

/**
 * Checks what is given to `defineTool` before anything is built: one object, only known keys
 * (`inputSchema`, `schema` or `func` name the rxscope spelling), a name models accept, and an
 * `execute` function unless the tool is `external`. Throws an {@link OptionsError}.
 *
 * @example
 * ```ts
 * checkToolDefinition({ name: 'add', description: '', inputSchema: z.object({}), execute });
 * // OptionsError (unknown_option): unknown option "inputSchema" of defineTool; did you mean "input"? …
 * ```
 */
export function checkToolDefinition(definition: unknown): void {
  if (typeof definition !== 'object' || definition === null || Array.isArray(definition)) {
    throw new OptionsError(
      'invalid_option',
      'defineTool',
      'defineTool() takes one object: { name, description, input: z.object({...}), execute }.',
    );
  }
  checkOptionKeys('defineTool', definition, KEYS, { foreign: FOREIGN });
  const d = definition as {
    name?: unknown;
    execute?: unknown;
    external?: unknown;
    recover?: unknown;
    idempotent?: unknown;
  };
  const refuse = (key: string, message: string) => new OptionsError('invalid_option', `defineTool.${key}`, message);
  if (typeof d.name !== 'string' || !TOOL_NAME.test(d.name)) {
    throw refuse(
      'name',
      `Invalid tool name ${JSON.stringify(d.name)}: use 1-64 letters, digits, "_" or "-" (models reject other names).`,
    );
  }
  if (d.execute !== undefined && typeof d.execute !== 'function') {
    throw refuse('execute', `Tool "${d.name}": execute must be a function (input, toolCtx) => result.`);
  }
  if (!d.execute && !d.external) {
    throw refuse('execute', `Tool "${d.name}" needs an execute function, or external: true.`);
  }
  if (d.recover !== undefined && typeof d.recover !== 'function') {
    throw refuse('recover', `Tool "${d.name}": recover must be a function (input, toolCtx) => the outcome.`);
  }
  if (d.idempotent !== undefined && typeof d.idempotent !== 'boolean') {
    throw refuse('idempotent', `Tool "${d.name}": idempotent must be true or false.`);
  }
}
