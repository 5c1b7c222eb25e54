import type { Interrupt } from '@ag-ui/core';
import type { PendingToolCall } from '../../event/events.js';
import type { ToolQuestionRequest } from '../../tool/tool-question.js';

/** The interrupt of a question a running tool asked (`PendingToolCall.question`). */
export function questionInterrupt(call: PendingToolCall, question: ToolQuestionRequest): Interrupt {
  return {
    id: call.id,
    reason: 'user_input',
    toolCallId: call.id,
    message: question.message,
    responseSchema: {
      type: 'object',
      properties: {
        approved: { type: 'boolean', description: 'true accepts (with input); false declines.' },
        input: {
          ...(question.schema ?? { type: 'object' }),
          description: 'The answer, validated against this schema.',
        },
        reason: { type: 'string', description: 'Why it was declined.' },
      },
      required: ['approved'],
    },
    metadata: {
      rxscope: {
        name: call.name,
        input: call.input,
        question: true,
        ...(question.url !== undefined ? { url: question.url } : {}),
        ...(question.kind !== undefined ? { kind: question.kind } : {}),
      },
    },
  };
}
