/**
 * A person answers an MCP server's elicitation in the terminal: the reply suspended with
 * `REQUIRE_USER_CONFIRM`, its call carries the server's question (a form schema, or a URL to
 * open); this asks for each field, then whether to send, decline or cancel, and returns the
 * `USER_CONFIRM_RESULT` entry. An answer the agent refuses (a field that fails the schema) is
 * asked again by the caller.
 */
import type { ConfirmResult, PendingToolCall } from '@rxscope/core';

/** One line of input at a time (from a terminal or a pipe). */
export type Ask = (prompt: string) => Promise<string>;

interface FieldSchema {
  readonly type?: string;
  readonly title?: string;
  readonly description?: string;
  readonly enum?: readonly string[];
}

export async function answerInTerminal(call: PendingToolCall, ask: Ask): Promise<ConfirmResult> {
  const question = call.question!;
  process.stdout.write(`\nThe server asks: ${question.message}\n`);
  if (question.url) process.stdout.write(`Open ${question.url} in your browser.\n`);
  const input: Record<string, unknown> = {};
  const properties = (question.schema?.['properties'] ?? {}) as Record<string, FieldSchema>;
  const required = new Set((question.schema?.['required'] ?? []) as string[]);
  for (const [name, field] of Object.entries(properties)) {
    // Lists (multi-select) are left to richer UIs; Enter leaves a field out.
    if (!['string', 'number', 'integer', 'boolean'].includes(field.type ?? '')) continue;
    const choices = field.enum ? ` [${field.enum.join('/')}]` : field.type === 'boolean' ? ' [y/n]' : '';
    const line = (
      await ask(
        `  ${name}${required.has(name) ? ' *' : ''} (${field.description ?? field.title ?? field.type})${choices}: `,
      )
    ).trim();
    if (line === '') continue;
    input[name] = field.type === 'boolean' ? /^y/i.test(line) : field.type === 'string' ? line : Number(line);
  }
  const verdict = (await ask('Send it? [y]es / [n]o (decline) / [c]ancel: ')).trim().toLowerCase();
  if (verdict.startsWith('c')) return { toolCallId: call.id, confirmed: false, cancelled: true };
  if (!verdict.startsWith('y')) return { toolCallId: call.id, confirmed: false, reason: 'declined in the terminal' };
  return { toolCallId: call.id, confirmed: true, ...(question.url ? {} : { input }) };
}
