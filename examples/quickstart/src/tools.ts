/**
 * The quickstart's two tools. Both do real work on this machine: `calculator` evaluates
 * arithmetic with a small parser (never `eval`), `current_time` reads the clock and the time
 * zone database through `Intl`.
 */
import { defineTool } from '@rxscope/core';
import { z } from 'zod';

/** Evaluates arithmetic: `+ - * / % ^`, parentheses, `sqrt abs round floor ceil min max`, `pi`, `e`. */
export const calculator = defineTool({
  name: 'calculator',
  description:
    'Evaluates an arithmetic expression exactly as written, e.g. "(1234 * 5678) / 2". Supports + - * / % ^, parentheses, sqrt, abs, round, floor, ceil, min, max, pi and e.',
  input: z.object({ expression: z.string().min(1).describe('The arithmetic expression to evaluate') }),
  readOnly: true,
  execute: ({ expression }) => `${expression} = ${formatNumber(evaluate(expression))}`,
});

/** The current date, time and UTC offset in an IANA time zone. */
export const currentTime = defineTool({
  name: 'current_time',
  description: 'Returns the current local date, time, weekday and UTC offset in a time zone.',
  input: z.object({ timeZone: z.string().describe('IANA time zone name, e.g. "Europe/Paris" or "Asia/Tokyo"') }),
  readOnly: true,
  execute: ({ timeZone }) => timeIn(timeZone, new Date()),
});

export const tools = [calculator, currentTime];

/** What `current_time` returns. */
export interface LocalTime {
  readonly timeZone: string;
  readonly date: string;
  readonly time: string;
  readonly weekday: string;
  /** `+09:00`, `-05:00`, `+00:00`. */
  readonly utcOffset: string;
}

export function timeIn(timeZone: string, now: Date): LocalTime {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'long',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'longOffset',
    });
  } catch {
    throw new Error(`Unknown time zone "${timeZone}": use an IANA name such as "Europe/Paris".`);
  }
  const part: Record<string, string> = {};
  for (const p of format.formatToParts(now)) part[p.type] = p.value;
  const offset = (part['timeZoneName'] ?? 'GMT').replace('GMT', '') || '+00:00';
  return {
    timeZone,
    date: `${part['year']}-${part['month']}-${part['day']}`,
    time: `${part['hour']}:${part['minute']}`,
    weekday: part['weekday'] ?? '',
    utcOffset: offset,
  };
}

// ---------------------------------------------------------------------------------------------
// A recursive-descent parser for arithmetic: expr = term (+|- term)*, term = unary (*|/|% unary)*,
// unary = (+|-) unary | power, power = primary (^ unary)?, primary = number | name | name(args) | (expr).

const FUNCTIONS: Readonly<Record<string, (...args: number[]) => number>> = {
  sqrt: Math.sqrt,
  abs: Math.abs,
  round: Math.round,
  floor: Math.floor,
  ceil: Math.ceil,
  min: Math.min,
  max: Math.max,
};
const CONSTANTS: Readonly<Record<string, number>> = { pi: Math.PI, e: Math.E };

/** Evaluates an arithmetic expression; throws an Error naming the position of a syntax error. */
export function evaluate(expression: string): number {
  const tokens = [...expression.matchAll(/\s*(?:(\d+\.?\d*(?:e[+-]?\d+)?|\.\d+)|([a-z]+)|(\*\*|[-+*/%^(),])|(\S))/gi)];
  let i = 0;
  const peek = () => tokens[i]?.[3] ?? tokens[i]?.[0].trim();
  const fail = (what: string): never => {
    const at = tokens[i]?.index ?? expression.length;
    throw new Error(`${what} at position ${at + 1} of "${expression}"`);
  };
  const need = (op: string) => (peek() === op ? i++ : fail(`expected "${op}"`));

  const primary = (): number => {
    const t = tokens[i];
    if (!t) return fail('unexpected end');
    i++;
    if (t[1] !== undefined) return Number(t[1]);
    if (t[2] !== undefined) {
      const name = t[2].toLowerCase();
      if (peek() !== '(') return CONSTANTS[name] ?? fail(`unknown name "${t[2]}"`);
      const fn = FUNCTIONS[name] ?? fail(`unknown function "${t[2]}"`);
      i++;
      const args = [expr()];
      while (peek() === ',') {
        i++;
        args.push(expr());
      }
      need(')');
      return fn(...args);
    }
    if (t[3] === '(') {
      const v = expr();
      need(')');
      return v;
    }
    i--;
    return fail(`unexpected "${t[0].trim()}"`);
  };
  const power = (): number => {
    const base = primary();
    if (peek() !== '^' && peek() !== '**') return base;
    i++;
    return base ** unary();
  };
  const unary = (): number => {
    const op = peek();
    if (op !== '-' && op !== '+') return power();
    i++;
    return op === '-' ? -unary() : unary();
  };
  const term = (): number => {
    let v = unary();
    for (let op = peek(); op === '*' || op === '/' || op === '%'; op = peek()) {
      i++;
      const r = unary();
      v = op === '*' ? v * r : op === '/' ? v / r : v % r;
    }
    return v;
  };
  const expr = (): number => {
    let v = term();
    for (let op = peek(); op === '+' || op === '-'; op = peek()) {
      i++;
      v = op === '+' ? v + term() : v - term();
    }
    return v;
  };

  const value = expr();
  if (i < tokens.length) fail(`unexpected "${tokens[i]![0].trim()}"`);
  if (!Number.isFinite(value)) throw new Error(`"${expression}" has no finite value (division by zero?)`);
  return value;
}

/** 12 significant digits, so 0.1 + 0.2 reads 0.3. */
function formatNumber(n: number): string {
  return String(Number(n.toPrecision(12)));
}
