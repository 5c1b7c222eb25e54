import type { AgentEvent } from '@rxscope/core';

// Streamed tool-call arguments, shown whole when the call is complete.
const args = new Map<string, string>();

/** One line per meaningful event (text streams inline); returns the text to write. */
export function renderEvent(e: AgentEvent, color: boolean): string {
  const c = (code: number, s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const short = (s: string, n = 160) => {
    const one = s.replace(/\s+/g, ' ').trim();
    return one.length > n ? `${one.slice(0, n)}…` : one;
  };
  switch (e.type) {
    case 'TEXT_BLOCK_DELTA':
      return e.delta;
    case 'TEXT_BLOCK_END':
      return '\n';
    case 'TOOL_CALL_START':
      args.set(e.blockId, '');
      return c(36, `→ ${e.name}`);
    case 'TOOL_CALL_DELTA':
      args.set(e.blockId, (args.get(e.blockId) ?? '') + e.delta);
      return '';
    case 'TOOL_CALL_END': {
      const text = args.get(e.blockId) ?? '';
      args.delete(e.blockId);
      return `${c(2, ` ${short(text, 140)}`)}\n`;
    }
    case 'TOOL_RESULT_END': {
      const text = e.output.map((b) => (b.type === 'text' ? b.text : `[${b.mediaType}]`)).join('');
      const mark = e.status === 'success' ? c(32, '✓') : c(31, `✗ ${e.status}`);
      return `  ${mark} ${c(2, short(text))}\n`;
    }
    case 'REQUIRE_USER_CONFIRM':
      return e.toolCalls
        .map((t) => c(33, `? ${t.name} needs your approval: ${short(JSON.stringify(t.input), 120)}\n`))
        .join('');
    case 'CUSTOM':
      return renderCustom(e.name, e.value, c);
    case 'REPLY_END':
      return c(2, `[reply ${e.finishReason}${e.error ? `: ${e.error.message}` : ''}]\n`);
    default:
      return '';
  }
}

function renderCustom(name: string, value: unknown, c: (code: number, s: string) => string): string {
  const v = value as Record<string, unknown>;
  switch (name) {
    case 'todos_updated': {
      const todos = (v['todos'] as { content: string; status: string }[]) ?? [];
      const mark = (s: string) => (s === 'completed' ? '[x]' : s === 'in_progress' ? '[~]' : '[ ]');
      return c(35, `  tasks: ${todos.map((t) => `${mark(t.status)} ${t.content}`).join('  ')}\n`);
    }
    case 'plan_mode_changed':
      return c(
        35,
        `  plan mode ${v['active'] ? 'ON: only read-only tools until the plan is approved' : 'OFF: the plan was approved'}\n`,
      );
    case 'compaction_start':
      return c(
        35,
        `  compacting: ${String(v['messages'])} messages, ~${String(v['tokens'])} tokens (${String(v['reason'])})\n`,
      );
    case 'compaction_end':
      return c(
        35,
        `  compacted: ${String(v['messagesBefore'])} → ${String(v['messagesAfter'])} messages, ~${String(v['tokensBefore'])} → ~${String(v['tokensAfter'])} tokens; history saved to ${String(v['historyPath'])}\n`,
      );
    case 'tool_result_evicted':
      return c(35, `  large result saved to ${String(v['path'])}\n`);
    default:
      return '';
  }
}
