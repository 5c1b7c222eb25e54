/**
 * The offline scripted model: rxscope's OpenAI-compatible test server on 127.0.0.1, answering
 * one scripted conversation. The agent talks to it through the real `OpenAIChatModel` over real
 * HTTP/SSE, runs the real tools, and the server writes its final answer from their results.
 */
import {
  startOpenAITestServer,
  type OpenAITestServer,
  type RecordedRequest,
  type ServerTurn,
} from '@rxscope/core/testing/node';

/** The question the scripted conversation answers. */
export const OFFLINE_PROMPT =
  "I'm in New York and want to call a friend in Tokyo. What time is it for each of us right now, " +
  'how many hours ahead is Tokyo, and if we talk 45 minutes every day for a year, how many hours is that?';

/** Delay before each streamed chunk, so the streaming is visible. */
const CHUNK_DELAY_MS = 20;
/** "Thinking" time before each response starts. */
const THINK_MS = 250;

export function startOfflineModel(): Promise<OpenAITestServer> {
  return startOpenAITestServer({ handler: scriptedTurn, chunkDelayMs: CHUNK_DELAY_MS });
}

async function scriptedTurn(request: RecordedRequest): Promise<ServerTurn> {
  await new Promise((resolve) => setTimeout(resolve, THINK_MS));
  const results = new Map<string, string>();
  for (const m of request.body.messages ?? []) {
    if (m.role === 'tool' && m.tool_call_id)
      results.set(m.tool_call_id, typeof m.content === 'string' ? m.content : '');
  }

  if (!results.has('call_ny')) {
    return {
      text: words('Let me check both clocks and do the math.'),
      toolCalls: [
        { id: 'call_ny', name: 'current_time', input: { timeZone: 'America/New_York' } },
        { id: 'call_tokyo', name: 'current_time', input: { timeZone: 'Asia/Tokyo' } },
        { id: 'call_year', name: 'calculator', input: { expression: '45 * 365 / 60' } },
      ],
    };
  }

  const ny = parseTime(results.get('call_ny'));
  const tokyo = parseTime(results.get('call_tokyo'));
  if (!results.has('call_diff') && ny && tokyo) {
    return {
      text: words(
        `Tokyo is at UTC${tokyo.utcOffset} and New York at UTC${ny.utcOffset}; let me work out the difference.`,
      ),
      toolCalls: [
        {
          id: 'call_diff',
          name: 'calculator',
          input: { expression: `${hours(tokyo.utcOffset)} - (${hours(ny.utcOffset)})` },
        },
      ],
    };
  }

  const diff = answerOf(results.get('call_diff'));
  const yearly = answerOf(results.get('call_year'));
  const text =
    ny && tokyo
      ? `Right now it is ${ny.time} on ${ny.weekday} in New York and ${tokyo.time} on ${tokyo.weekday} in Tokyo, ` +
        `so Tokyo is ${diff} hours ahead of you. Talking 45 minutes every day for a year adds up to ${yearly} hours on the phone. ` +
        `If you call at 8 in the evening, your friend picks up the next morning.`
      : `I could not read both clocks (${results.get('call_ny') ?? 'no answer'}), but 45 minutes a day for a year is ${yearly} hours.`;
  return { text: words(text) };
}

interface LocalTime {
  readonly time: string;
  readonly weekday: string;
  readonly utcOffset: string;
}

function parseTime(content: string | undefined): LocalTime | undefined {
  try {
    const v = JSON.parse(content ?? '') as Partial<LocalTime>;
    return typeof v.time === 'string' && typeof v.utcOffset === 'string' ? (v as LocalTime) : undefined;
  } catch {
    return undefined;
  }
}

/** `+05:30` → `5.5`, `-04:00` → `-4`. */
function hours(offset: string): number {
  const m = /^([+-])(\d{2}):(\d{2})$/.exec(offset);
  if (!m) return 0;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) + Number(m[3]) / 60);
}

/** The value after `=` in a calculator result. */
const answerOf = (content: string | undefined) => content?.split(' = ').pop() ?? '?';

/** Splits text into word chunks, as a model streams it. */
const words = (text: string) => text.match(/\S+\s*/g) ?? [text];
