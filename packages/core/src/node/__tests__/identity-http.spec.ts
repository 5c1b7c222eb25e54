// The AG-UI endpoint with identify(req), over a real socket: the thread's first user owns it,
// another user is answered 403 before anything of the thread is read or run.
import { HttpAgent } from '@ag-ui/client';
import { Agent, type ReplyOptions } from '../../index.js';
import { ScriptedChatModel } from '../../testing/index.js';
import { createAgUiHandler } from '../ag-ui/index.js';
import { HttpError } from '../index.js';
import { listen, type Listening } from './helpers.js';

describe('createAgUiHandler with identify(req)', () => {
  let http: Listening;
  afterEach(() => http?.close());

  it("runs a thread for its owner, refuses another user's run with 403, and passes the user to the reply", async () => {
    const model = new ScriptedChatModel([{ text: 'Hello alice.' }, { text: 'Again.' }]);
    const agent = new Agent({ model, sessionId: 'thread-1' });
    const users: (string | undefined)[] = [];
    const reply = agent.reply.bind(agent);
    agent.reply = (input, options?: ReplyOptions) => (users.push(options?.userId), reply(input, options));
    const handler = createAgUiHandler({
      agent: () => agent,
      identify: (req) => {
        const user = req.headers['x-user'];
        if (typeof user !== 'string') throw new HttpError(401, 'Sign in first.', 'unauthenticated');
        return user;
      },
    });
    http = await listen(handler);
    const client = (user: string) =>
      new HttpAgent({ url: `${http.url}/agui`, threadId: 'thread-1', headers: { 'x-user': user } });

    const alice = client('alice');
    alice.addMessage({ id: 'u1', role: 'user', content: 'Hi' });
    const run = await alice.runAgent();
    expect(run.newMessages).toEqual([expect.objectContaining({ role: 'assistant', content: 'Hello alice.' })]);
    expect(users).toEqual(['alice']);
    expect(agent.saveState().owner).toBe('alice');

    const body = JSON.stringify({
      threadId: 'thread-1',
      runId: 'r2',
      messages: [{ id: 'm1', role: 'user', content: 'Show me her thread' }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    });
    const post = (headers: Record<string, string>) =>
      fetch(`${http.url}/agui`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const mallory = await post({ 'x-user': 'mallory' });
    expect(mallory.status).toBe(403);
    expect(await mallory.json()).toMatchObject({ error: { code: 'session_forbidden' } });
    expect(model.requests).toHaveLength(1);
    expect(agent.context).toHaveLength(2);

    expect((await post({})).status).toBe(401);
    expect(users).toEqual(['alice']);
  });
});
