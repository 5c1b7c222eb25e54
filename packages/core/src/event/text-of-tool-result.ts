import type { ToolResultContent } from '../message/blocks.js';

/**
 * The text of a tool's result: the text blocks of its `output`, concatenated (data blocks such as
 * images are skipped). Takes a `TOOL_RESULT_END` event or a `tool_result` block of a message.
 *
 * A `TOOL_RESULT_END` always carries the result in `output` (the content blocks the model sees);
 * `value` is set only when the tool returned one non-text value (an object, array, number,
 * boolean or null), so for a tool that returns a string `value` is `undefined` and this is where
 * its text is.
 *
 * @example
 * ```ts
 * agent.reply('Weather in Paris?').subscribe((event) => {
 *   if (event.type === 'TOOL_RESULT_END') console.log(event.status, textOfToolResult(event));
 * });
 * ```
 */
export function textOfToolResult(result: { readonly output: readonly ToolResultContent[] }): string {
  let text = '';
  for (const block of result.output) if (block.type === 'text') text += block.text;
  return text;
}
