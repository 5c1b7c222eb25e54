import { z } from 'zod';
import { defineTool, type Tool } from './tool.js';

/** Definition passed to {@link externalTool}. */
export interface ExternalToolDefinition {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments (an object schema), sent to the model as is. */
  readonly parameters: Readonly<Record<string, unknown>>;
}

/**
 * A tool the model may call but the agent does not run: a call suspends the reply with
 * `REQUIRE_EXTERNAL_EXECUTION` and the client answers it with `EXTERNAL_EXECUTION_RESULT`.
 * Made from a JSON Schema, for tools a client declares at run time (AG-UI frontend tools,
 * a browser's actions): the schema goes to the model unchanged; the agent checks only that the
 * arguments are a JSON object, the client that runs the tool validates them.
 *
 * @example
 * ```ts
 * const confirmDate = externalTool({
 *   name: 'pick_date',
 *   description: 'Lets the user pick a date in the page',
 *   parameters: { type: 'object', properties: { purpose: { type: 'string' } }, required: ['purpose'] },
 * });
 * agent.reply('Book me a table', { tools: [confirmDate] });
 * ```
 */
export function externalTool(definition: ExternalToolDefinition): Tool<Record<string, unknown>> {
  const { name, description, parameters } = definition;
  if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)) {
    throw new TypeError(`Tool "${name}": parameters must be a JSON Schema object, got ${JSON.stringify(parameters)}.`);
  }
  if (parameters['type'] !== undefined && parameters['type'] !== 'object') {
    throw new TypeError(
      `Tool "${name}": parameters must describe an object (type: 'object'), got type ${JSON.stringify(parameters['type'])}; models take object arguments only.`,
    );
  }
  const tool = defineTool({ name, description, input: z.record(z.string(), z.unknown()), external: true });
  return { ...tool, schema: { name, description, parameters: { type: 'object', ...parameters } } };
}
