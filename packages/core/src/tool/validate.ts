import type { StandardSchemaV1 } from '@standard-schema/spec';
import { SchemaError } from './schema-error.js';
import { issuePath, validateWithSchema, type SchemaVerdict } from './standard-schema.js';
import type { Tool } from './tool.js';

/**
 * Outcome of {@link parseToolArguments}. On failure, `message` is written for the model; `issues`
 * (`field: problem`, one per bad field) are the bare facts, for a message to someone else.
 */
export type ParsedArguments =
  | { readonly ok: true; readonly input: unknown }
  | { readonly ok: false; readonly message: string; readonly issues: readonly string[] };

/**
 * Parses a tool call's raw JSON arguments and validates them against the tool's schema. On
 * failure, `message` is written for the model: it names each offending field and the expected
 * type, so the model can correct the call.
 *
 * @example
 * ```ts
 * const r = parseToolArguments(add, '{"a":"2","b":3}');
 * // { ok: false, message: 'Invalid arguments for tool "add":\n- a: expected number, received string ...' }
 * ```
 */
export function parseToolArguments(tool: Tool, raw: string): ParsedArguments {
  let value: unknown;
  const text = raw.trim();
  try {
    value = text === '' ? {} : JSON.parse(text);
  } catch (e) {
    return {
      ok: false,
      message:
        `Invalid arguments for tool "${tool.name}": not valid JSON (${(e as Error).message}). ` +
        `Send a JSON object matching the tool's parameter schema.`,
      issues: [`not valid JSON (${(e as Error).message})`],
    };
  }
  return validateToolInput(tool, value);
}

/**
 * Validates an already parsed input (e.g. an input edited by a person) against the tool's schema.
 *
 * @example
 * ```ts
 * const r = validateToolInput(add, { a: 1, b: 2 }); // { ok: true, input: { a: 1, b: 2 } }
 * ```
 */
export function validateToolInput(tool: Tool, value: unknown): ParsedArguments {
  let result: SchemaVerdict;
  try {
    result = validateWithSchema(tool.inputSchema, value);
  } catch (err) {
    if (!(err instanceof SchemaError)) throw err;
    return { ok: false, message: `Tool "${tool.name}" cannot be used: ${err.message}`, issues: [err.message] };
  }
  if (result.ok) return { ok: true, input: result.value };
  const issues = result.issues.map(describeIssue);
  return {
    ok: false,
    message: `Invalid arguments for tool "${tool.name}":\n${issues.map((i) => `- ${i}`).join('\n')}\nFix these fields and call the tool again.`,
    issues,
  };
}

function describeIssue(issue: StandardSchemaV1.Issue): string {
  const field = issuePath(issue) || '(arguments)';
  return `${field}: ${issue.message.replace(/^Invalid input: /, '')}`;
}
