import { ModelError } from './model-error.js';
import { modelText } from './model-text.js';
import { ScriptedChatModel } from '../testing/index.js';

describe('modelText', () => {
  it('asks with the system and user message, no tools, and joins the answer text', async () => {
    const model = new ScriptedChatModel([{ thinking: 'hm', text: ['Two ', 'facts.'] }]);
    const signal = new AbortController().signal;
    await expect(modelText(model, { system: 'Summarise.', user: 'a long chat', signal })).resolves.toBe('Two facts.');
    const request = model.requests[0]!;
    expect(request.messages.map((m) => [m.role, m.content])).toEqual([
      ['system', [{ type: 'text', text: 'Summarise.' }]],
      ['user', [{ type: 'text', text: 'a long chat' }]],
    ]);
    expect([request.tools, request.toolChoice, request.signal]).toEqual([[], 'none', signal]);
  });

  it('rejects with the model error, and resolves empty for an answer without text', async () => {
    const signal = new AbortController().signal;
    const failing = new ScriptedChatModel([{ error: new ModelError('down', { code: 'server_error' }) }]);
    await expect(modelText(failing, { system: 's', user: 'u', signal })).rejects.toMatchObject({
      code: 'server_error',
    });
    await expect(modelText(new ScriptedChatModel([{ text: [] }]), { system: 's', user: 'u', signal })).resolves.toBe(
      '',
    );
  });
});
