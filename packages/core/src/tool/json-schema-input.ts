import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { SchemaError } from './schema-error.js';
import { assertStandardSchema, validateWithSchema } from './standard-schema.js';

/**
 * A JSON Schema object, as written by hand or produced by a converter.
 *
 * @example
 * ```ts
 * const schema: JsonSchemaObject = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
 * ```
 */
export type JsonSchemaObject = Readonly<Record<string, unknown>>;

/**
 * A JSON Schema usable wherever rxscope takes a schema (a tool's `input`, a reply's `output`):
 * a Standard Schema that validates with ajv (or with the schema given beside it) and gives its
 * JSON Schema through `~standard.jsonSchema`. Made by {@link jsonSchemaInput}.
 *
 * @example
 * ```ts
 * const input: JsonSchemaInput<{ q: string }> = jsonSchemaInput<{ q: string }>({ type: 'object' });
 * input.jsonSchema; // { type: 'object' }
 * ```
 */
export interface JsonSchemaInput<Output = unknown, Input = Output> extends StandardSchemaV1<Input, Output> {
  readonly '~standard': StandardSchemaV1.Props<Input, Output> & StandardJSONSchemaV1.Props<Input, Output>;
  /** The JSON Schema, as given. */
  readonly jsonSchema: JsonSchemaObject;
}

// One ajv per draft, shared: compiling is the expensive part. `verbose` puts the offending value
// and its schema on each error, so a message can say what was expected and what came.
// Formats are not checked, and unknown keywords (vendor extensions) are tolerated.
const AJV_OPTIONS = { strict: false, allErrors: true, validateFormats: false, verbose: true } as const;
let draft7: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

function ajvFor(schema: JsonSchemaObject): Ajv | Ajv2020 {
  const dialect = typeof schema['$schema'] === 'string' ? schema['$schema'] : '';
  if (/2019-09|2020-12/.test(dialect)) return (draft2020 ??= new Ajv2020(AJV_OPTIONS));
  return (draft7 ??= new Ajv(AJV_OPTIONS));
}

/**
 * A plain JSON Schema as a schema rxscope takes (a tool's `input`, a reply's `output`): the model
 * gets the JSON Schema as written, and values are validated against it with ajv, bad fields named
 * as for any other schema. The value type is `unknown` unless you give one (`jsonSchemaInput<T>`).
 *
 * Given a Standard Schema as well, that schema validates (and its type is inferred) while the JSON
 * Schema goes to the model: the way to use a schema whose library gives no JSON Schema of its own
 * (zod 3 with `zod-to-json-schema`, valibot with `@valibot/to-json-schema`).
 *
 * Throws a `SchemaError` (`schema_invalid`) when the JSON Schema cannot be compiled.
 *
 * @example
 * ```ts
 * const weather = defineTool({
 *   name: 'weather',
 *   description: 'Current weather of a city',
 *   input: jsonSchemaInput<{ city: string }>({
 *     type: 'object',
 *     properties: { city: { type: 'string' } },
 *     required: ['city'],
 *   }),
 *   execute: ({ city }) => `Sunny in ${city}`,
 * });
 *
 * // zod 3: its own converter gives the JSON Schema, zod validates
 * const input = jsonSchemaInput(zodToJsonSchema(z3Schema), z3Schema);
 * ```
 */
export function jsonSchemaInput<T = unknown>(jsonSchema: JsonSchemaObject): JsonSchemaInput<T>;
export function jsonSchemaInput<S extends StandardSchemaV1>(
  jsonSchema: JsonSchemaObject,
  validator: S,
): JsonSchemaInput<StandardSchemaV1.InferOutput<S>, StandardSchemaV1.InferInput<S>>;
export function jsonSchemaInput(jsonSchema: JsonSchemaObject, validator?: StandardSchemaV1): JsonSchemaInput {
  if (typeof jsonSchema !== 'object' || jsonSchema === null || Array.isArray(jsonSchema)) {
    throw new SchemaError(
      'schema_invalid',
      `jsonSchemaInput() takes a JSON Schema object, got ${JSON.stringify(jsonSchema)}.`,
    );
  }
  if (validator !== undefined) assertStandardSchema(validator, 'The second argument of jsonSchemaInput()');
  const validate = validator ? (value: unknown) => validateWithSchema(validator, value) : ajvValidator(jsonSchema);
  const own = { ...jsonSchema };
  const converter = () => ({ ...own });
  return {
    jsonSchema,
    '~standard': {
      version: 1,
      vendor: 'rxscope',
      validate: (value: unknown) => {
        const verdict = validate(value);
        return verdict.ok ? { value: verdict.value } : { issues: verdict.issues };
      },
      jsonSchema: { input: converter, output: converter },
    },
  };
}

function ajvValidator(jsonSchema: JsonSchemaObject) {
  let check: ValidateFunction;
  try {
    check = ajvFor(jsonSchema).compile(jsonSchema as Record<string, unknown>);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new SchemaError('schema_invalid', `jsonSchemaInput(): the JSON Schema cannot be compiled: ${reason}`, {
      cause: err,
    });
  }
  return (value: unknown) =>
    check(value) ? { ok: true as const, value } : { ok: false as const, issues: (check.errors ?? []).map(toIssue) };
}

/** An ajv error as a Standard Schema issue: the offending field's path and, as zod says it, what was expected. */
function toIssue(error: ErrorObject): StandardSchemaV1.Issue {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      return { path, message: `expected ${String(params['type'])}, received ${kindOf(error.data)}` };
    case 'required': {
      const missing = String(params['missingProperty']);
      const properties = (error.parentSchema as { properties?: Record<string, { type?: unknown }> } | undefined)
        ?.properties;
      const type = properties?.[missing]?.type;
      const message = typeof type === 'string' ? `expected ${type}, received undefined` : 'required field is missing';
      return { path: [...path, missing], message };
    }
    case 'additionalProperties':
      return { path: [...path, String(params['additionalProperty'])], message: 'unknown field (not in the schema)' };
    case 'enum':
      return {
        path,
        message: `expected one of ${(params['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    default:
      return { path, message: error.message ?? `fails "${error.keyword}"` };
  }
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
