// Which session an agent serves: the first session claims it, another is refused unless shared,
// and only the reply at the root of a served stream takes the claim.
import { lastValueFrom, of, toArray } from 'rxjs';
import { ScriptedChatModel } from '../testing/index.js';
import { Agent } from './agent.js';
import { AgentSharedError } from './agent-shared-error.js';
import { bindAgentToSession, claimAgent, claimOnSubscribe } from './session-claim.js';

const newAgent = (name = 'assistant') => new Agent({ name, model: new ScriptedChatModel([{ text: 'ok' }]) });

describe('claimAgent', () => {
  it('lets the first session keep its agent and refuses another one with AgentSharedError naming the fix', () => {
    const agent = newAgent();
    claimAgent(agent, { session: 'alice', by: 'createAgentSseHandler' });
    expect(() => claimAgent(agent, { session: 'alice', by: 'createAgentSseHandler' })).not.toThrow();
    let error: unknown;
    try {
      claimAgent(agent, { session: 'bob', by: 'createAgentSseHandler' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AgentSharedError);
    expect(error).toMatchObject({ code: 'agent_shared', status: 500 });
    const message = (error as Error).message;
    expect(message).toContain('createAgentSseHandler was about to serve agent "assistant" to a second session');
    expect(message).toContain('new AgentSessions({ agent: (sessionId) => new Agent({...}) })');
    expect(message).toContain('pass shared: true to createAgentSseHandler');
    expect(message).not.toContain('bob'); // a session id is a capability: never in a message
  });

  it('tells a server without session ids to name the session of a request', () => {
    const agent = newAgent();
    claimAgent(agent, { session: Symbol('request'), by: 'streamAgentEvents' });
    expect(() => claimAgent(agent, { session: Symbol('request'), by: 'streamAgentEvents' })).toThrow(
      /to a second request: .*the handler's sessionId option/,
    );
  });

  it('records nothing for a shared claim', () => {
    const agent = newAgent();
    claimAgent(agent, { session: 'alice', by: 'x', shared: true });
    claimAgent(agent, { session: 'bob', by: 'x', shared: true });
    claimAgent(agent, { session: 'carol', by: 'x' }); // the first real claim
    expect(() => claimAgent(agent, { session: 'dave', by: 'x' })).toThrow(AgentSharedError);
  });
});

describe('bindAgentToSession', () => {
  it('lets requests that name no session continue the bound session, and refuses another named session', () => {
    const agent = newAgent();
    bindAgentToSession(agent, 'alice', 'AgentSessions');
    claimAgent(agent, { session: Symbol('request'), by: 'createAgentSseHandler' });
    claimAgent(agent, { session: Symbol('request'), by: 'createAgentSseHandler' }); // the confirmation
    claimAgent(agent, { session: 'alice', by: 'createAgentSseHandler' });
    expect(() => claimAgent(agent, { session: 'bob', by: 'createAgentSseHandler' })).toThrow(AgentSharedError);
  });

  it('refuses a factory that returns one agent for two sessions, naming the fix', () => {
    const agent = newAgent();
    bindAgentToSession(agent, 'alice', 'AgentSessions');
    expect(() => bindAgentToSession(agent, 'alice', 'AgentSessions')).not.toThrow();
    expect(() => bindAgentToSession(agent, 'bob', 'AgentSessions')).toThrow(
      /AgentSessions's agent factory returned agent "assistant" for a second session: .*Return a new Agent for each session id/,
    );
  });
});

describe('claimOnSubscribe', () => {
  it('claims the agent whose reply is subscribed, and refuses it (as an error, before the reply runs) for another session', async () => {
    const agent = newAgent();
    const served = (session: string) => agent.reply('hi').pipe(claimOnSubscribe({ session, by: 'test' }));
    expect((await lastValueFrom(served('alice').pipe(toArray()))).at(-1)).toMatchObject({ type: 'REPLY_END' });
    await expect(lastValueFrom(served('bob'))).rejects.toBeInstanceOf(AgentSharedError);
    expect(agent.context.filter((m) => m.role === 'user')).toHaveLength(1); // bob's message never joined
  });

  it('claims nothing outside the subscription: the same agent used directly afterwards is not refused', async () => {
    const agent = newAgent();
    await lastValueFrom(of(1).pipe(claimOnSubscribe({ session: 'alice', by: 'test' })));
    // No reply was subscribed while the claim was pending: the agent serves whoever claims it first.
    await lastValueFrom(agent.reply('direct').pipe(toArray()));
    await lastValueFrom(agent.reply('hi').pipe(claimOnSubscribe({ session: 'bob', by: 'test' }), toArray()));
    await expect(
      lastValueFrom(agent.reply('hi').pipe(claimOnSubscribe({ session: 'carol', by: 'test' }))),
    ).rejects.toBeInstanceOf(AgentSharedError);
  });
});
