import { RxscopeError } from '../error/rxscope-error.js';
import type { ToolQuestionRequest } from '../event/tool-question-request.js';

export type { ToolQuestionRequest } from '../event/tool-question-request.js';

/**
 * A person's answer to a {@link ToolQuestionRequest}, given to the tool's next run as
 * `toolCtx.answer`: `confirmed` with the validated `input` (accepted), `confirmed: false`
 * (declined, with the person's `reason`), or `cancelled` (dismissed without a decision).
 *
 * @example
 * ```ts
 * if (toolCtx.answer?.confirmed) charge(toolCtx.answer.input);
 * ```
 */
export interface ToolAnswer {
  readonly question: ToolQuestionRequest;
  readonly confirmed: boolean;
  readonly input?: unknown;
  readonly reason?: string;
  readonly cancelled?: boolean;
}

/**
 * Thrown by a running tool (or an `onActing` layer) that needs a person's answer before it can
 * go on: the call gets no result, the reply suspends with `REQUIRE_USER_CONFIRM` (the call's
 * entry carries the `question`), and `USER_CONFIRM_RESULT` answers it — its `input` validated
 * against the question's schema. The resumed reply runs the tool again with `toolCtx.answer`.
 *
 * @example
 * ```ts
 * const transfer = defineTool({ name: 'transfer', description: 'Moves money', input: z.object({ amount: z.number() }),
 *   execute: ({ amount }, toolCtx) => {
 *     if (!toolCtx.answer) throw new ToolQuestion({ message: 'From which account?', schema: accountSchema });
 *     return toolCtx.answer.confirmed ? bank.move(amount, toolCtx.answer.input) : 'The user declined.';
 *   } });
 * ```
 */
export class ToolQuestion extends RxscopeError {
  override readonly name = 'ToolQuestion';
  readonly code = 'tool_question';
  constructor(readonly question: ToolQuestionRequest) {
    super(`The tool asks: ${question.message}`);
  }
}
