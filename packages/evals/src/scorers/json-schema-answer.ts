import { Ajv, type ValidateFunction } from 'ajv';
import { checkOptionKeys, optionKeys, OptionsError } from '@rxscope/core';
import type { Scorer } from './scorer.js';

/**
 * Options of {@link jsonSchemaAnswer}.
 *
 * @example
 * ```ts
 * const options: JsonSchemaAnswerOptions = { schema: { type: 'object', required: ['files'] } };
 * ```
 */
export interface JsonSchemaAnswerOptions {
  /** A JSON Schema (draft-07). */
  readonly schema: Readonly<Record<string, unknown>>;
  readonly name?: string;
}

/** The JSON an answer holds: the whole text, or the body of a ```json fence in it. */
function jsonOf(text: string): { value?: unknown; error?: string } {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n?```/.exec(text);
  try {
    return { value: JSON.parse(fenced ? fenced[1]! : text) };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * 1 when the reply's structured output (`REPLY_END.output`), or else the JSON of its final answer
 * (the whole text or a ```json block), is valid against the schema; the reason names the first
 * violation.
 *
 * @example
 * ```ts
 * const scorers = [jsonSchemaAnswer({ schema: { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] } })];
 * ```
 */
export function jsonSchemaAnswer(options: JsonSchemaAnswerOptions): Scorer {
  checkOptionKeys('jsonSchemaAnswer', options, optionKeys<JsonSchemaAnswerOptions>({ schema: true, name: true }));
  let validate: ValidateFunction;
  try {
    validate = new Ajv({ allErrors: false, strict: false }).compile(options.schema);
  } catch (e) {
    throw new OptionsError(
      'invalid_option',
      'jsonSchemaAnswer.schema',
      `jsonSchemaAnswer: the schema does not compile: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  return {
    name: options.name ?? 'answer:json-schema',
    score: (sample) => {
      const structured = sample.end?.output;
      const parsed = structured !== undefined ? { value: structured } : jsonOf(sample.answer);
      if (parsed.error !== undefined) return { score: 0, reason: `the answer is not JSON: ${parsed.error}` };
      if (validate(parsed.value)) return { score: 1, reason: 'valid against the schema' };
      const first = validate.errors?.[0];
      return { score: 0, reason: `invalid: ${first?.instancePath || '(root)'} ${first?.message ?? ''}`.trim() };
    },
  };
}
