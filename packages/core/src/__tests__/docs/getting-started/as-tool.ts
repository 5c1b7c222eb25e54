import { Agent, type ChatModel, type Tool } from '../../../index.js';

export function leadWithCalculator(model: ChatModel, add: Tool) {
  const calculator = new Agent({ name: 'calculator', model, tools: [add] });
  const lead = new Agent({
    name: 'lead',
    model,
    tools: [calculator.asTool({ description: 'Does arithmetic; ask it in plain words.' })],
  });

  lead.reply('What is 2 + 3?').subscribe((e) => console.log(e.source, e.type));
  // lead REPLY_START … lead TOOL_RESULT_START
  //   calculator REPLY_START … calculator TOOL_RESULT_END … calculator REPLY_END
  // lead TOOL_RESULT_END … lead REPLY_END
}
