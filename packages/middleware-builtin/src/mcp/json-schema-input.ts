import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';

/** A JSON Schema object as an MCP server sends it (`inputSchema` of a tool). */
export type JsonSchemaObject = Readonly<Record<string, unknown>>;

// One validator per draft, shared: compiling is the expensive part and ajv caches by schema.
// Formats are not checked here (the server checks its own); unknown keywords are tolerated
// because servers emit vendor extensions.
const options = { strict: false, allErrors: true, validateFormats: false } as const;
let draft7: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

function validatorFor(schema: JsonSchemaObject): Ajv | Ajv2020 {
  const dialect = typeof schema['$schema'] === 'string' ? schema['$schema'] : '';
  if (/2019-09|2020-12/.test(dialect)) return (draft2020 ??= new Ajv2020(options));
  return (draft7 ??= new Ajv(options));
}

/** The JSON Schema a tool declares, minus `$schema` (models reject it), as the model should see it. */
export function modelParameters(schema: JsonSchemaObject): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return { type: 'object', ...rest };
}

/** An ajv error as a zod issue: the path of the offending field and what was expected there. */
function toIssue(error: ErrorObject): { path: (string | number)[]; message: string } {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') path.push(String((error.params as { missingProperty: string }).missingProperty));
  if (error.keyword === 'additionalProperties') {
    const extra = String((error.params as { additionalProperty: string }).additionalProperty);
    return { path: [...path, extra], message: 'unknown field (not in the schema)' };
  }
  if (error.keyword === 'required') return { path, message: 'required field is missing' };
  if (error.keyword === 'enum') {
    const allowed = (error.params as { allowedValues: unknown[] }).allowedValues
      .map((v) => JSON.stringify(v))
      .join(', ');
    return { path, message: `expected one of ${allowed}` };
  }
  return { path, message: error.message ?? `fails "${error.keyword}"` };
}

/**
 * A zod schema that validates a value against a JSON Schema with ajv, so that tools whose
 * arguments are described in JSON Schema (MCP tools) are validated like any zod-defined tool:
 * a bad argument is answered with an error result naming the field and what was expected, and
 * the call never reaches the server. A schema ajv cannot compile is reported by `compileError`
 * (the server then validates on its own); the input must still be an object.
 *
 * @example
 * ```ts
 * const { schema } = jsonSchemaInput({ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] });
 * schema.safeParse({ a: 'x' }).success; // false, with an issue at path ['a']: 'must be number'
 * ```
 */
export function jsonSchemaInput(jsonSchema: JsonSchemaObject): {
  readonly schema: z.ZodType<Record<string, unknown>>;
  readonly compileError?: string;
} {
  let validate: ValidateFunction | undefined;
  let compileError: string | undefined;
  try {
    validate = validatorFor(jsonSchema).compile(jsonSchema as Record<string, unknown>);
  } catch (e) {
    compileError = e instanceof Error ? e.message : String(e);
  }
  const schema = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    if (!validate || validate(value)) return;
    for (const error of validate.errors ?? []) ctx.addIssue({ code: 'custom', ...toIssue(error) });
  });
  return compileError === undefined ? { schema } : { schema, compileError };
}
