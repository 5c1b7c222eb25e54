import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Agent, OptionsError } from '@rxscope/core';
import { startOpenAITestServer, type OpenAITestServer } from '@rxscope/core/testing/node';
import { closeTestServer, ofType, run, start, testServerModel } from '../__tests__/helpers.js';
import { TSX, waitFor } from '../mcp/__tests__/servers.js';
import { startSdkProbeServer } from './__tests__/sdk-probe-server.js';
import { a2aAgentTool, serveAgentOverA2A } from './index.js';

type Probe = Awaited<ReturnType<typeof startSdkProbeServer>>;

/** Starts the probe server as a process of its own (to kill it mid-stream); resolves with its URL. */
function probeProcess(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [TSX, join(__dirname, '__tests__', 'sdk-probe-server.ts')], {
    env: { ...process.env, A2A_PROBE_MAIN: '1' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const port = /PORT (\d+)/.exec(out)?.[1];
      if (port) resolve({ url: `http://127.0.0.1:${port}/`, child });
    });
    child.once('exit', (code) => reject(new Error(`the probe server exited (${code}) before listening`)));
  });
}

/** A remote A2A agent as a tool, against the SDK's own server (and against serveAgentOverA2A). */
describe('a2aAgentTool', () => {
  jest.setTimeout(30_000);
  let server: OpenAITestServer;
  let probe: Probe;

  beforeEach(async () => {
    server = await startOpenAITestServer();
    probe = await startSdkProbeServer();
  });
  afterEach(async () => {
    await probe.close();
    await closeTestServer(server);
  });

  const front = (url = probe.url, name?: string) =>
    new Agent({
      name: 'front',
      model: testServerModel(server),
      tools: [a2aAgentTool({ url, ...(name ? { name } : {}) })],
    });

  it("calls the remote agent: its streamed updates are the tool's progress, its answer the result", async () => {
    server.enqueue({ toolCalls: [{ name: 'probe', input: { message: 'echo order 42' } }] }, { text: 'It said so.' });
    const { events, end } = await run(front(probe.url, 'probe'), 'Ask the probe.');
    expect(end.finishReason).toBe('completed');
    expect(ofType(events, 'TOOL_PROGRESS').map((e) => e.message)).toEqual(['thinking', 'You said: ', 'order 42']);
    expect(ofType(events, 'TOOL_RESULT_END')[0]).toMatchObject({
      status: 'success',
      output: [{ type: 'text', text: 'You said: order 42' }],
    });
  });

  it('takes its name and description from a card given inline; a card that does not parse is refused at once', () => {
    const tool = a2aAgentTool({ card: probe.card });
    expect(tool.name).toBe('probe_agent');
    expect(tool.description).toBe('A scripted A2A agent.');
    expect(() => a2aAgentTool({ card: '{"name": ' })).toThrow(/agent card is not JSON/);
    expect(() => a2aAgentTool({ card: { description: 'no name' } })).toThrow(OptionsError);
    expect(() => a2aAgentTool({ url: probe.url, urll: 'x' } as never)).toThrow(/did you mean "url"/);
  });

  it('a remote task that fails is an error result; the reply goes on', async () => {
    server.enqueue({ toolCalls: [{ name: 'probe', input: { message: 'where is 42' } }] }, { text: 'It failed.' });
    const { events, end } = await run(front(probe.url, 'probe'), 'Ask.');
    expect(end.finishReason).toBe('completed');
    expect(ofType(events, 'TOOL_RESULT_END')[0]).toMatchObject({
      status: 'error',
      output: [{ type: 'text', text: expect.stringContaining('The remote task ended failed: no such order') }],
    });
  });

  it('a card that cannot be read or parsed is an error result; the reply goes on', async () => {
    const bad: Server = createServer((_, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{not json'),
    );
    await new Promise<void>((resolve) => bad.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(bad.address() as AddressInfo).port}/`;
      server.enqueue({ toolCalls: [{ name: 'remote_agent', input: { message: 'hi' } }] }, { text: 'No luck.' });
      const { events, end } = await run(front(url), 'Ask.');
      expect(end.finishReason).toBe('completed');
      expect(ofType(events, 'TOOL_RESULT_END')[0]).toMatchObject({
        status: 'error',
        output: [{ type: 'text', text: expect.stringContaining(`Could not read the agent card at ${url}`) }],
      });
    } finally {
      bad.closeAllConnections();
      await new Promise<void>((resolve) => bad.close(() => resolve()));
    }
  });

  it('a remote agent that dies mid-stream is an error result; the reply goes on', async () => {
    const { url, child } = await probeProcess();
    try {
      server.enqueue({ toolCalls: [{ name: 'probe', input: { message: 'die' } }] }, { text: 'It went away.' });
      const { events, end } = await run(front(url, 'probe'), 'Ask.');
      expect(end.finishReason).toBe('completed');
      expect(ofType(events, 'TOOL_PROGRESS').map((e) => e.message)).toEqual(['about to go', 'half an answer']);
      expect(ofType(events, 'TOOL_RESULT_END')[0]).toMatchObject({
        status: 'error',
        output: [
          { type: 'text', text: expect.stringMatching(/stream broke off|ended its stream before the task finished/) },
        ],
      });
    } finally {
      child.kill();
    }
  });

  it('input-required: the question comes back; answering it asks the user first, then the task goes on', async () => {
    const agent = front(probe.url, 'probe');
    server.enqueue(
      { toolCalls: [{ name: 'probe', input: { message: 'confirm' } }] },
      { text: 'It asks you to approve.' },
    );
    const first = await run(agent, 'Transfer 100 EUR.');
    const text = (ofType(first.events, 'TOOL_RESULT_END')[0]!.output as readonly { text: string }[])[0]!.text;
    expect(text).toContain('Approve the transfer of 100 EUR?');
    const taskId = /"taskId": "([^"]+)"/.exec(text)![1]!;
    // The model answers the question with the task id it was given: the user is asked first.
    server.enqueue({ toolCalls: [{ name: 'probe', input: { taskId, message: 'yes, approved' } }] }, { text: 'Done.' });
    const second = await run(agent, 'Yes, approve it.');
    expect(second.end.finishReason).toBe('awaiting_confirmation');
    const asked = ofType(second.events, 'REQUIRE_USER_CONFIRM')[0]!;
    expect(asked.toolCalls[0]).toMatchObject({ name: 'probe', input: { taskId, message: 'yes, approved' } });
    const resumed = await run(agent, {
      type: 'USER_CONFIRM_RESULT',
      results: [{ toolCallId: asked.toolCalls[0]!.id, confirmed: true }],
    });
    expect(resumed.end.finishReason).toBe('completed');
    expect(ofType(resumed.events, 'TOOL_RESULT_END')[0]).toMatchObject({
      status: 'success',
      output: [{ type: 'text', text: 'answered: yes, approved' }],
    });
  });

  it('cancelling the call cancels the remote task', async () => {
    const agent = front(probe.url, 'probe');
    server.enqueue({ toolCalls: [{ name: 'probe', input: { message: 'slow' } }] });
    const reply = start(agent, 'Ask slowly.');
    await waitFor(() => ofType(reply.events, 'TOOL_PROGRESS').length > 0, 'the remote task to work');
    agent.interrupt('the user gave up');
    await waitFor(() => reply.done(), 'the reply to end');
    await waitFor(() => probe.cancelled.length === 1, 'the remote task to be cancelled');
    expect(ofType(reply.events, 'TOOL_RESULT_END')[0]!.status).toBe('interrupted');
  });

  it('an rxscope agent served over A2A, called by another through the tool; cancelling aborts its model request', async () => {
    const served = await serveAgentOverA2A(new Agent({ name: 'support', model: testServerModel(server) }), {
      card: { description: 'Answers about orders.' },
    });
    try {
      const agent = new Agent({
        name: 'front',
        model: testServerModel(server),
        tools: [a2aAgentTool({ url: served.url })],
      });
      server.enqueue(
        { toolCalls: [{ name: 'remote_agent', input: { message: 'Where is 42?' } }] },
        { text: ['Order 42 ', 'ships tomorrow.'] },
        { text: 'It ships tomorrow.' },
      );
      const { events, end } = await run(agent, 'Ask support.');
      expect(end.finishReason).toBe('completed');
      expect(ofType(events, 'TOOL_RESULT_END')[0]).toMatchObject({
        status: 'success',
        output: [{ type: 'text', text: 'Order 42 ships tomorrow.' }],
      });
      expect(server.requests[1]!.body.messages!.at(-1)).toMatchObject({ role: 'user', content: 'Where is 42?' });

      server.enqueue(
        { toolCalls: [{ name: 'remote_agent', input: { message: 'Slowly?' } }] },
        { text: ['Hm'], fault: 'stall' },
      );
      const reply = start(agent, 'Again.');
      await waitFor(() => ofType(reply.events, 'TOOL_PROGRESS').some((e) => e.message === 'Hm'), 'the remote text');
      agent.interrupt('enough');
      await waitFor(() => server.requests[4]!.clientClosed, "the remote agent's model request to be aborted");
      await waitFor(() => reply.done(), 'the reply to end');
    } finally {
      await served.close();
    }
  });
});
