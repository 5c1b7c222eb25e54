// A snapshot from an untrusted client (a browser, another service) with any one field corrupted:
// parseAgentState refuses it with an AgentStateError naming that field, and an agent is
// never built from it. Fields typed `unknown` (tool inputs, middleware state) accept any JSON;
// they are listed here so the check cannot silently widen.
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { AgentStateError, parseAgentState } from '../state/snapshot.js';
import { defineTool } from '../tool/tool.js';
import { ScriptedChatModel } from '../testing/index.js';
import { runReply } from './helpers.js';

const transfer = defineTool({
  name: 'transfer',
  description: 'Moves money',
  input: z.object({ amount: z.number() }),
  needsApproval: true,
  execute: ({ amount }) => `moved ${amount}`,
});

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A snapshot with a finished turn, a tool call waiting for confirmation, and a queued message. */
async function richSnapshot(): Promise<Json> {
  const model = new ScriptedChatModel([
    { thinking: 'Pay.', text: 'Paying.', toolCalls: [{ id: 't1', name: 'transfer', input: { amount: 5 } }] },
  ]);
  const agent = new Agent({ model, tools: [transfer], sessionId: 's-1' });
  await runReply(agent, agent.reply('pay 5'));
  agent.send('and then?');
  return JSON.parse(JSON.stringify(agent.saveState())) as Json;
}

/** Every path to a value in the snapshot, with the value. */
function leaves(value: Json, path: string[] = []): Array<{ path: string[]; value: Json }> {
  const here = path.length ? [{ path, value }] : [];
  if (Array.isArray(value)) return [...here, ...value.flatMap((v, i) => leaves(v, [...path, String(i)]))];
  if (value !== null && typeof value === 'object')
    return [...here, ...Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k]))];
  return here;
}

/** A value of another JSON type than `value`. */
function wrongTypeFor(value: Json): Json {
  if (typeof value === 'string') return 42;
  if (typeof value === 'number') return 'forged';
  if (typeof value === 'boolean') return 'yes';
  if (value === null) return { forged: true };
  if (Array.isArray(value)) return 'forged';
  return [7];
}

function withValue(root: Json, path: readonly string[], value: Json | undefined): Json {
  const copy = structuredClone(root) as Record<string, Json>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, Json>;
  const last = path.at(-1)!;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

/** Fields that hold arbitrary JSON by design (tool arguments as the model sent them, results, middleware data). */
const FREE_FORM = [/^middlewareState\./, /\.input(\.|$)/, /\.rawArguments$/, /\.metadata(\.|$)/];

describe('a snapshot from an untrusted client', () => {
  it('with any one field of the wrong type is refused with an AgentStateError naming that field, and no agent is built', async () => {
    const good = await richSnapshot();
    expect(() => parseAgentState(good)).not.toThrow();
    const typed = leaves(good).filter(({ path }) => !FREE_FORM.some((re) => re.test(path.join('.'))));
    expect(typed.length).toBeGreaterThan(40);
    for (const { path, value } of typed) {
      const forged = withValue(good, path, wrongTypeFor(value));
      const dotted = path.join('.');
      let error: unknown;
      try {
        parseAgentState(forged);
      } catch (e) {
        error = e;
      }
      expect({ dotted, error: error instanceof AgentStateError ? 'AgentStateError' : String(error) }).toEqual({
        dotted,
        error: 'AgentStateError',
      });
      const named = (error as AgentStateError).path;
      expect({ dotted, named, prefix: dotted === named || dotted.startsWith(`${named}.`) }).toMatchObject({
        prefix: true,
      });
      expect((error as Error).message).toContain(`"${named}"`);
      expect(() => new Agent({ model: new ScriptedChatModel([]), tools: [transfer], state: forged })).toThrow(
        AgentStateError,
      );
    }
  });

  it('with a required field removed, or a forged newer version, is refused the same way', async () => {
    const good = await richSnapshot();
    for (const path of [
      ['context'],
      ['context', '0', 'role'],
      ['pending', 'confirm', '0', 'id'],
      ['pending', 'message'],
      ['permissions'],
    ]) {
      expect(() => parseAgentState(withValue(good, path, undefined))).toThrow(AgentStateError);
    }
    expect(() => parseAgentState(withValue(good, ['version'], 1_000))).toThrow(/newer than this build supports/);
  });
});
