// Remote subagents: agent_spawn {name} runs a remote A2A agent (a2aAgentTool against an rxscope
// agent served with serveAgentOverA2A, both on the official A2A SDK, over loopback HTTP).
import { Agent, type AgentEvent } from '@rxscope/core';
import { ofType, runReply, ScriptedChatModel } from '@rxscope/core/testing';
import { a2aAgentTool, serveAgentOverA2A, type ServedA2aAgent } from '@rxscope/middleware-builtin/a2a';
import { HarnessOptionError } from '../../options/index.js';
import { tempDir } from '../../__tests__/helpers.js';
import { LocalFileSystem } from '../../workspace/local-file-system.js';
import { SubagentsMiddleware } from './index.js';

const resultOf = (events: readonly AgentEvent[]) => {
  const end = ofType(events, 'TOOL_RESULT_END').find((e) => e.source === 'lead')!;
  return { status: end.status, text: end.output.map((b) => (b.type === 'text' ? b.text : '')).join('') };
};

describe('SubagentsMiddleware: remote subagents', () => {
  let dir: ReturnType<typeof tempDir>;
  let served: ServedA2aAgent;
  let remoteModel: ScriptedChatModel;

  beforeEach(async () => {
    dir = tempDir();
    remoteModel = new ScriptedChatModel([{ text: 'Invoice 7 is paid.' }]);
    served = await serveAgentOverA2A(new Agent({ name: 'billing', model: remoteModel }), {
      card: { description: 'Answers about invoices.' },
    });
  });
  afterEach(async () => {
    await served.close();
    dir.cleanup();
  });

  const lead = (model: ScriptedChatModel) =>
    new Agent({
      name: 'lead',
      model,
      middlewares: [
        new SubagentsMiddleware({
          fileSystem: new LocalFileSystem(dir.path),
          remote: { billing: a2aAgentTool({ card: served.card, name: 'billing' }) },
        }),
      ],
    });

  it("agent_spawn {name} runs the remote agent: its answer is the result, its stream the spawn's progress", async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 's1', name: 'agent_spawn', input: { name: 'billing', task: 'Is invoice 7 paid?' } }] },
      { text: 'Yes, it is paid.' },
    ]);
    const events = await runReply(lead(model), 'Ask billing about invoice 7.');
    expect(resultOf(events)).toEqual({ status: 'success', text: 'Invoice 7 is paid.' });
    expect(ofType(events, 'TOOL_PROGRESS').map((e) => e.message)).toContain('Invoice 7 is paid.');
    // The remote agent got the task as its message.
    expect(JSON.stringify(remoteModel.requests[0]!.messages)).toContain('Is invoice 7 paid?');
    // The model finds it in agent_spawn's description.
    const spawn = model.requests[0]!.tools.find((t) => t.name === 'agent_spawn')!;
    expect(spawn.description).toContain('- billing: Answers about invoices. (a remote agent)');
  });

  it('runs in the foreground only, and a bad remote entry is refused at once', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 's1', name: 'agent_spawn', input: { name: 'billing', task: 'x', background: true } }] },
      { text: 'ok' },
    ]);
    const events = await runReply(lead(model), 'Go.');
    expect(resultOf(events)).toMatchObject({ status: 'error', text: expect.stringContaining('foreground') });
    const fileSystem = new LocalFileSystem(dir.path);
    expect(() => new SubagentsMiddleware({ fileSystem, remote: { 'bad name': {} as never } })).toThrow(
      HarnessOptionError,
    );
    expect(() => new SubagentsMiddleware({ fileSystem, remote: { billing: {} as never } })).toThrow(
      /must be a tool that runs/,
    );
  });
});
