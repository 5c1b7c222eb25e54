import { EventType, type BaseEvent, type Message, type ToolCall } from '@ag-ui/core';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type LoggedMessage = Mutable<Message> & { content?: unknown; toolCalls?: ToolCall[]; subagentRunId?: string };

/**
 * The AG-UI messages a client holds after a run's events, rebuilt from those events the way
 * `@ag-ui/client` builds them (assistant messages with their tool calls, tool messages placed
 * after their call, reasoning messages), on top of the run's input messages. It feeds the
 * `MESSAGES_SNAPSHOT` sent before an interrupt, so a client that resumes from the snapshot alone
 * (replay-style) has everything.
 *
 * @example
 * ```ts
 * const log = new AgUiMessageLog(input.messages);
 * for (const event of events) log.apply(event);
 * const snapshot = log.snapshot();
 * ```
 */
export class AgUiMessageLog {
  private readonly messages: LoggedMessage[];

  constructor(initial: readonly Message[]) {
    this.messages = initial.filter((m) => m.role !== 'activity').map((m) => structuredClone(m) as LoggedMessage);
  }

  /** Applies one emitted AG-UI event. */
  apply(event: BaseEvent): void {
    const e = event;
    const attribution = typeof e['subagentRunId'] === 'string' ? { subagentRunId: e['subagentRunId'] } : {};
    switch (event.type) {
      case EventType.TEXT_MESSAGE_START:
        this.ensure(e['messageId'] as string, { role: 'assistant', content: '', ...attribution });
        return;
      case EventType.TEXT_MESSAGE_CONTENT: {
        const m = this.find(e['messageId'] as string);
        if (m) m.content = `${typeof m.content === 'string' ? m.content : ''}${e['delta'] as string}`;
        return;
      }
      case EventType.REASONING_MESSAGE_START:
        this.ensure(e['messageId'] as string, { role: 'reasoning', content: '', ...attribution });
        return;
      case EventType.REASONING_MESSAGE_CONTENT: {
        const m = this.find(e['messageId'] as string);
        if (m) m.content = `${typeof m.content === 'string' ? m.content : ''}${e['delta'] as string}`;
        return;
      }
      case EventType.TOOL_CALL_START: {
        const parentId = (e['parentMessageId'] as string | undefined) ?? (e['toolCallId'] as string);
        const parent = this.ensure(parentId, { role: 'assistant', ...attribution });
        (parent.toolCalls ??= []).push({
          id: e['toolCallId'] as string,
          type: 'function',
          function: { name: e['toolCallName'] as string, arguments: '' },
        });
        return;
      }
      case EventType.TOOL_CALL_ARGS: {
        const call = this.toolCall(e['toolCallId'] as string);
        if (call) call.function.arguments += e['delta'] as string;
        return;
      }
      case EventType.TOOL_CALL_RESULT: {
        const message = {
          id: e['messageId'] as string,
          role: 'tool',
          toolCallId: e['toolCallId'] as string,
          content: e['content'],
          ...attribution,
        } as LoggedMessage;
        const at = this.messages.findIndex(
          (m) => m.role === 'assistant' && m.toolCalls?.some((c) => c.id === e['toolCallId']),
        );
        if (at === -1) {
          this.messages.push(message);
          return;
        }
        let i = at + 1;
        while (i < this.messages.length && this.messages[i]!.role === 'tool') i++;
        this.messages.splice(i, 0, message);
        return;
      }
      default:
        return;
    }
  }

  /** The messages as a client holds them now. */
  snapshot(): Message[] {
    return structuredClone(this.messages);
  }

  private find(id: string): LoggedMessage | undefined {
    return this.messages.find((m) => m.id === id);
  }

  private ensure(id: string, fields: Omit<LoggedMessage, 'id'>): LoggedMessage {
    let m = this.find(id);
    if (!m) {
      m = { id, ...fields } as LoggedMessage;
      this.messages.push(m);
    }
    return m;
  }

  private toolCall(id: string): ToolCall | undefined {
    for (const m of this.messages) {
      const call = m.toolCalls?.find((c) => c.id === id);
      if (call) return call;
    }
    return undefined;
  }
}
