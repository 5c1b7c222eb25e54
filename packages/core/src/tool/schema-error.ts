import { RxscopeError } from '../error/rxscope-error.js';

/**
 * A schema given as a tool's `input` or a reply's `output` that rxscope cannot use. Codes:
 * `schema_unsupported` (not a Standard Schema), `schema_no_json_schema` (the library gives no
 * JSON Schema of it: wrap it with `jsonSchemaInput`), `schema_not_object` (a tool's arguments
 * must be an object), `schema_invalid` (a JSON Schema that cannot be compiled) and
 * `schema_async` (the schema validates asynchronously; tool arguments and answers are checked
 * synchronously).
 *
 * @example
 * ```ts
 * try {
 *   defineTool({ name: 'f', description: 'F', input: z3.object({ a: z3.string() }), execute });
 * } catch (e) {
 *   if (e instanceof SchemaError && e.code === 'schema_no_json_schema') console.log(e.message); // names jsonSchemaInput
 * }
 * ```
 */
export class SchemaError extends RxscopeError {
  override readonly name = 'SchemaError';
  constructor(
    readonly code:
      'schema_unsupported' | 'schema_no_json_schema' | 'schema_not_object' | 'schema_invalid' | 'schema_async',
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
