import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { z } from 'zod';
import { SchemaError } from './schema-error.js';

/**
 * The value a schema gives after validation: `StandardSchemaV1.InferOutput` (zod's `z.output`,
 * valibot's `v.InferOutput`, arktype's `.infer`), `unknown` for a schema that declares no type.
 *
 * @example
 * ```ts
 * type City = SchemaOutput<typeof citySchema>; // { city: string }
 * ```
 */
export type SchemaOutput<S extends StandardSchemaV1> = StandardSchemaV1.InferOutput<S>;

/** Outcome of {@link validateWithSchema}. */
export type SchemaVerdict =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly issues: readonly StandardSchemaV1.Issue[] };

/** True for any Standard Schema (zod 3.25+ and 4, valibot, arktype, {@link jsonSchemaInput}, ...). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: { validate?: unknown; version?: unknown } })['~standard'];
  return typeof props === 'object' && props !== null && props.version === 1 && typeof props.validate === 'function';
}

/**
 * Refuses what is not a Standard Schema, saying what was given and what to pass instead:
 * `where` names the place ("Tool \"x\": input", "The `output` option of a reply").
 */
export function assertStandardSchema(value: unknown, where: string): asserts value is StandardSchemaV1 {
  if (isStandardSchema(value)) return;
  const plainJson =
    typeof value === 'object' && value !== null && ('properties' in value || 'type' in value || '$schema' in value);
  const old =
    typeof value === 'object' && value !== null && '_def' in value && !('_zod' in value)
      ? ' It looks like a zod schema older than 3.25 (no Standard Schema): upgrade zod to 3.25 or later.'
      : '';
  throw new SchemaError(
    'schema_unsupported',
    `${where} must be a schema: a zod, valibot or arktype schema (any Standard Schema) or jsonSchemaInput({...}) ` +
      `for a plain JSON Schema; got ${describe(value)}.` +
      (plainJson ? ' This looks like a plain JSON Schema: wrap it, jsonSchemaInput({ type: "object", ... }).' : old),
  );
}

/**
 * The JSON Schema of a schema, for the model: zod 4 through zod's own `toJSONSchema` (as it always
 * was), any other schema through the Standard JSON Schema interface (`~standard.jsonSchema`:
 * zod 4.2+, arktype 2.1.28+, valibot through `toStandardJsonSchema`, `jsonSchemaInput`).
 * A schema that gives no JSON Schema is refused with a {@link SchemaError} naming the fix.
 */
export function jsonSchemaOf(schema: StandardSchemaV1, where: string, io: 'input' | 'output'): Record<string, unknown> {
  let json: Record<string, unknown>;
  try {
    json = isZod4(schema)
      ? z.toJSONSchema(schema, { io, unrepresentable: 'any' })
      : standardJsonSchema(schema, io, where);
  } catch (err) {
    if (err instanceof SchemaError) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    throw new SchemaError(
      'schema_no_json_schema',
      `${where} cannot be turned into JSON Schema for the model: ${reason}`,
      {
        cause: err,
      },
    );
  }
  const { $schema: _dialect, ...rest } = json;
  return rest;
}

function standardJsonSchema(schema: StandardSchemaV1, io: 'input' | 'output', where: string): Record<string, unknown> {
  const converter = (schema['~standard'] as Partial<StandardJSONSchemaV1.Props>).jsonSchema;
  if (typeof converter?.[io] !== 'function') throw noJsonSchema(schema, where);
  // Models take the draft 2020-12 dialect (OpenAI's structured outputs); draft-07 for libraries without it.
  try {
    return converter[io]({ target: 'draft-2020-12' });
  } catch (first) {
    try {
      return converter[io]({ target: 'draft-07' });
    } catch {
      throw first;
    }
  }
}

function noJsonSchema(schema: StandardSchemaV1, where: string): SchemaError {
  const vendor = schema['~standard'].vendor;
  const fix =
    vendor === 'zod'
      ? 'zod 3 schemas carry no JSON Schema: define it with zod 4 (`import { z } from "zod/v4"` works from zod 3.25), ' +
        'or give the JSON Schema yourself: jsonSchemaInput(zodToJsonSchema(schema), schema) with zod-to-json-schema.'
      : vendor === 'valibot'
        ? 'wrap it with toStandardJsonSchema(schema) from @valibot/to-json-schema, ' +
          'or give the JSON Schema yourself: jsonSchemaInput(toJsonSchema(schema), schema).'
        : 'give the JSON Schema yourself: jsonSchemaInput(jsonSchema, schema) validates with the schema and sends the JSON Schema.';
  return new SchemaError(
    'schema_no_json_schema',
    `${where}: this ${vendor} schema gives no JSON Schema for the model (it does not implement ~standard.jsonSchema); ${fix}`,
  );
}

/**
 * Validates a value with a Standard Schema, synchronously. A schema that answers with a Promise
 * (async refinements) is refused with a {@link SchemaError} `schema_async`.
 */
export function validateWithSchema(schema: StandardSchemaV1, value: unknown): SchemaVerdict {
  const result = schema['~standard'].validate(value);
  if (result instanceof Promise) {
    result.catch(() => undefined); // nobody awaits it: keep a rejection from going unhandled
    throw new SchemaError(
      'schema_async',
      'This schema validates asynchronously (async refinements or transforms); tool arguments and structured answers are validated synchronously: use a synchronous schema.',
    );
  }
  return result.issues ? { ok: false, issues: result.issues } : { ok: true, value: result.value };
}

/** The dotted path of an issue (`address.city`, `items.0`), or '' for the value itself. */
export function issuePath(issue: StandardSchemaV1.Issue): string {
  return (issue.path ?? [])
    .map((segment) => String(typeof segment === 'object' && segment !== null ? segment.key : segment))
    .join('.');
}

/** True for a zod 4 schema (its `toJSONSchema` gives the JSON Schema, as it always did). */
function isZod4(schema: StandardSchemaV1): schema is z.ZodType {
  return '_zod' in schema && schema['~standard'].vendor === 'zod';
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}
