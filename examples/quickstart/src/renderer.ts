/**
 * Renders an agent's event stream to a terminal: text streamed as it arrives, one line per tool
 * call (arguments, status, duration), a spinner while the model thinks (TTY only), and a closing
 * usage summary. `renderJson` prints the raw events as NDJSON instead.
 */
import type { AgentEvent, ErrorInfo, ReplyFinishReason, Usage } from '@rxscope/core';
import { defer, finalize, last, map, type Observable, tap } from 'rxjs';

/** What a rendered reply added up to. */
export interface ReplySummary {
  readonly finishReason: ReplyFinishReason | undefined;
  readonly error: ErrorInfo | undefined;
  readonly usage: Usage;
  readonly modelCalls: number;
  readonly toolCalls: number;
  readonly failedToolCalls: number;
  readonly wallMs: number;
}

export interface TerminalOptions {
  readonly write: (text: string) => void;
  /** ANSI colours (only on a TTY, and never with NO_COLOR). */
  readonly color: boolean;
  /** An animated spinner while the model thinks (only on a TTY: no control codes in piped output). */
  readonly spinner: boolean;
  /** Width to fit tool lines into. Default 120. */
  readonly columns?: number;
}

/** Renders the stream for a person; emits the summary once the stream completes. */
export function renderReply(events: Observable<AgentEvent>, options: TerminalOptions): Observable<ReplySummary> {
  return defer(() => {
    const tally = new Tally();
    const view = new TerminalView(options, tally);
    return events.pipe(
      tap((e) => {
        tally.add(e);
        view.show(e);
      }),
      finalize(() => view.stopSpinner()),
      last(null, null),
      map(() => tally.summary()),
    );
  });
}

/** Prints each event as one JSON line (NDJSON); emits the summary once the stream completes. */
export function renderJson(events: Observable<AgentEvent>, write: (text: string) => void): Observable<ReplySummary> {
  return defer(() => {
    const tally = new Tally();
    return events.pipe(
      tap((e) => {
        tally.add(e);
        write(`${JSON.stringify(e)}\n`);
      }),
      last(null, null),
      map(() => tally.summary()),
    );
  });
}

/** Adds up usage, calls and the outcome of a reply. */
class Tally {
  private readonly started = performance.now();
  private ended: number | undefined;
  private finishReason: ReplyFinishReason | undefined;
  private error: ErrorInfo | undefined;
  private usage = { inputTokens: 0, outputTokens: 0 };
  private modelCalls = 0;
  private toolCalls = 0;
  private failedToolCalls = 0;

  add(e: AgentEvent): void {
    switch (e.type) {
      case 'MODEL_CALL_END':
        this.modelCalls++;
        this.usage = {
          inputTokens: this.usage.inputTokens + e.usage.inputTokens,
          outputTokens: this.usage.outputTokens + e.usage.outputTokens,
        };
        break;
      case 'TOOL_RESULT_END':
        this.toolCalls++;
        if (e.status !== 'success') this.failedToolCalls++;
        break;
      case 'REPLY_END':
        this.ended = performance.now();
        this.finishReason = e.finishReason;
        this.error = e.error;
        break;
      default:
        break;
    }
  }

  summary(): ReplySummary {
    return {
      finishReason: this.finishReason,
      error: this.error,
      usage: this.usage,
      modelCalls: this.modelCalls,
      toolCalls: this.toolCalls,
      failedToolCalls: this.failedToolCalls,
      wallMs: (this.ended ?? performance.now()) - this.started,
    };
  }
}

const SPINNER_FRAMES = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';

class TerminalView {
  private readonly c: Paint;
  private readonly columns: number;
  /** Nothing written on the current line yet (the spinner does not count). */
  private atLineStart = true;
  private spinnerTimer: ReturnType<typeof setInterval> | undefined;
  private spinnerLabel = '';
  /** Tool calls by block id, then by call id once their result starts. */
  private readonly calls = new Map<string, { name: string; args: string; started?: number }>();
  private readonly callOfBlock = new Map<string, string>();

  constructor(
    private readonly options: TerminalOptions,
    private readonly tally: Tally,
  ) {
    this.c = paint(options.color);
    this.columns = Math.max(60, options.columns ?? 120);
  }

  show(e: AgentEvent): void {
    switch (e.type) {
      case 'MODEL_CALL_START':
        this.startSpinner('thinking');
        break;
      case 'TEXT_BLOCK_DELTA':
        this.print(e.delta);
        break;
      case 'THINKING_BLOCK_DELTA':
        this.print(this.c.dim(e.delta));
        break;
      case 'TEXT_BLOCK_END':
      case 'THINKING_BLOCK_END':
        this.endLine();
        break;
      case 'TOOL_CALL_START':
        this.callOfBlock.set(e.blockId, e.toolCallId);
        this.calls.set(e.toolCallId, { name: e.name, args: '' });
        this.startSpinner(`calling ${e.name}`);
        break;
      case 'TOOL_CALL_DELTA': {
        const call = this.calls.get(this.callOfBlock.get(e.blockId) ?? '');
        if (call) call.args += e.delta;
        break;
      }
      case 'TOOL_RESULT_START': {
        const call = this.calls.get(e.toolCallId) ?? { name: e.name, args: '' };
        this.calls.set(e.toolCallId, { ...call, started: performance.now() });
        break;
      }
      case 'TOOL_RESULT_END':
        this.toolLine(
          e.toolCallId,
          e.status,
          e.output.map((o) => (o.type === 'text' ? o.text : `[${o.mediaType}]`)).join(''),
        );
        break;
      case 'REPLY_END':
        this.stopSpinner();
        this.endLine();
        if (e.error) this.print(`${this.c.red(`✗ ${e.error.message}`)}\n`);
        this.print(`\n${this.summaryLine()}\n`);
        break;
      default:
        break;
    }
  }

  stopSpinner(): void {
    if (this.spinnerTimer === undefined) return;
    clearInterval(this.spinnerTimer);
    this.spinnerTimer = undefined;
    this.options.write('\r\x1b[2K');
  }

  private startSpinner(label: string): void {
    this.spinnerLabel = label;
    if (!this.options.spinner || !this.atLineStart || this.spinnerTimer !== undefined) return;
    let frame = 0;
    const draw = () =>
      this.options.write(
        `\r${this.c.cyan(SPINNER_FRAMES[frame++ % SPINNER_FRAMES.length]!)} ${this.c.dim(this.spinnerLabel)}`,
      );
    draw();
    this.spinnerTimer = setInterval(draw, 80);
    this.spinnerTimer.unref();
  }

  private print(text: string): void {
    if (!text) return;
    this.stopSpinner();
    this.options.write(text);
    this.atLineStart = text.endsWith('\n');
  }

  private endLine(): void {
    if (!this.atLineStart) this.print('\n');
  }

  private toolLine(callId: string, status: string, output: string): void {
    const call = this.calls.get(callId);
    const ms = call?.started !== undefined ? performance.now() - call.started : undefined;
    const ok = status === 'success';
    const mark = ok ? this.c.green('✓') : this.c.red('✗');
    const head = `  ${mark} ${this.c.bold(call?.name ?? '?')} ${oneLine(call?.args ?? '')}`;
    const tail = ` ${ms === undefined ? '' : formatMs(ms)}${ok ? '' : ` ${status}`}`;
    // Fit the result preview into what is left of the line.
    const room = this.columns - visibleLength(head) - tail.length - 3;
    const preview = room > 8 ? ` ${this.c.dim(`→ ${truncate(oneLine(output), room)}`)}` : '';
    this.endLine();
    this.print(`${head}${preview}${ok ? this.c.dim(tail) : this.c.red(tail)}\n`);
  }

  private summaryLine(): string {
    const s = this.tally.summary();
    const n = (v: number) => v.toLocaleString('en-US');
    const parts = [
      s.finishReason ?? 'incomplete',
      `${n(s.usage.inputTokens)} input + ${n(s.usage.outputTokens)} output tokens`,
      `${s.modelCalls} model call${s.modelCalls === 1 ? '' : 's'}`,
      `${s.toolCalls} tool call${s.toolCalls === 1 ? '' : 's'}${s.failedToolCalls ? ` (${s.failedToolCalls} failed)` : ''}`,
      formatMs(s.wallMs),
    ];
    return this.c.dim(`── ${parts.join(' · ')}`);
  }
}

function formatMs(ms: number): string {
  if (ms < 1) return '<1 ms';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
const truncate = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
// eslint-disable-next-line no-control-regex
const visibleLength = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '').length;

interface Paint {
  dim(s: string): string;
  bold(s: string): string;
  red(s: string): string;
  green(s: string): string;
  cyan(s: string): string;
}

function paint(enabled: boolean): Paint {
  const sgr = (open: number, close: number) => (s: string) => (enabled ? `\x1b[${open}m${s}\x1b[${close}m` : s);
  return { dim: sgr(2, 22), bold: sgr(1, 22), red: sgr(31, 39), green: sgr(32, 39), cyan: sgr(36, 39) };
}

/**
 * Whether to use colours and a spinner on a stream: only on a TTY, never with `NO_COLOR`
 * (https://no-color.org) or `TERM=dumb`; `FORCE_COLOR` forces colours.
 */
export function terminalSupport(
  stream: { isTTY?: boolean },
  env: NodeJS.ProcessEnv,
): { color: boolean; spinner: boolean } {
  const tty = stream.isTTY === true && env['TERM'] !== 'dumb';
  const noColor = env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '';
  const force = env['FORCE_COLOR'] !== undefined && env['FORCE_COLOR'] !== '0';
  return { color: !noColor && (tty || force), spinner: tty };
}
