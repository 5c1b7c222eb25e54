import { of } from 'rxjs';
import { z } from 'zod';
import { Agent, createMsg, defineTool, textOfMsg } from '@rxscope/core';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { ofType, runEvents as run, textOf } from '../__tests__/helpers.js';
import { RetryMiddleware } from '../retry/index.js';
import { PiiRedactionMiddleware } from './index.js';

const lastUserText = (model: ScriptedChatModel, call = 0) => {
  const messages = model.requests[call]!.messages;
  return textOfMsg(messages.filter((m) => m.role === 'user').at(-1)!);
};

describe('PiiRedactionMiddleware', () => {
  describe('request', () => {
    it('the model receives redacted messages; the stored conversation keeps what the user wrote', async () => {
      const model = new ScriptedChatModel([{ text: 'ok' }]);
      const agent = new Agent({
        model,
        sysPrompt: 'Support: help@shop.example',
        middlewares: [new PiiRedactionMiddleware()],
      });
      const said = 'I am jane@example.com, card 4111 1111 1111 1111, call +1 415 555 2671.';
      await run(agent, said);
      expect(lastUserText(model)).toBe('I am [EMAIL], card ****1111, call [PHONE].');
      expect(textOfMsg(model.requests[0]!.messages[0]!)).toBe('Support: help@shop.example'); // the system prompt is the developer's
      expect(textOfMsg(agent.context[0]!)).toBe(said);
    });

    it('systemPrompt: true redacts the system prompt too; request: false sends messages as they are', async () => {
      const model = new ScriptedChatModel([{ text: 'ok' }, { text: 'ok' }]);
      await run(
        new Agent({
          model,
          sysPrompt: 'Owner: help@shop.example',
          middlewares: [new PiiRedactionMiddleware({ systemPrompt: true })],
        }),
      );
      expect(textOfMsg(model.requests[0]!.messages[0]!)).toBe('Owner: [EMAIL]');
      await run(
        new Agent({ model, middlewares: [new PiiRedactionMiddleware({ request: false })] }),
        'me: jane@example.com',
      );
      expect(lastUserText(model, 1)).toBe('me: jane@example.com');
    });

    it('tool results and earlier answers in the conversation are redacted before the model sees them', async () => {
      const lookup = defineTool({
        name: 'lookup',
        description: 'crm',
        input: z.object({}),
        execute: () => 'customer: bob@example.com',
      });
      const model = new ScriptedChatModel([{ toolCalls: [{ name: 'lookup', input: {} }] }, { text: 'done' }]);
      const agent = new Agent({ model, tools: [lookup], middlewares: [new PiiRedactionMiddleware({ output: false })] });
      await run(agent, 'who?');
      const result = model.requests[1]!.messages.flatMap((m) => m.content).find((b) => b.type === 'tool_result');
      expect(result).toMatchObject({ output: [{ type: 'text', text: 'customer: [EMAIL]' }] });
    });

    it('hash: the same address gets the same token in every call, another address another token', async () => {
      const model = new ScriptedChatModel([{ text: 'ok' }, { text: 'ok' }]);
      const agent = new Agent({
        model,
        middlewares: [new PiiRedactionMiddleware({ types: { email: 'hash' }, hashSalt: 's3cret' })],
      });
      await run(agent, 'from jane@example.com');
      await run(agent, 'from JANE@example.com and john@example.com');
      const first = /\[EMAIL:[0-9a-f]{12}\]/.exec(lastUserText(model, 0))![0];
      expect(lastUserText(model, 1)).toMatch(
        new RegExp(`^from \\${first.slice(0, -1)}\\] and \\[EMAIL:(?!${first.slice(7, -1)})[0-9a-f]{12}\\]$`),
      );
      expect(textOfMsg(model.requests[1]!.messages[0]!)).toBe(`from ${first}`); // earlier turns too
    });

    it('block: the block holding the match is replaced by a notice', async () => {
      const model = new ScriptedChatModel([{ text: 'ok' }]);
      const agent = new Agent({ model, middlewares: [new PiiRedactionMiddleware({ types: { secret: 'block' } })] });
      await run(agent, [
        createMsg('user', [
          { type: 'text', text: 'my key is sk-proj-4f9XkQ2mZ8vLr1TbN6yHc3Wd7Ps0Ea5Gu' },
          { type: 'text', text: 'and a question' },
        ]),
      ]);
      expect(model.requests[0]!.messages[0]!.content).toEqual([
        { type: 'text', text: '[removed: contained a secret (API key or token)]' },
        { type: 'text', text: 'and a question' },
      ]);
    });
  });

  describe('output', () => {
    it('a card number split over three deltas is redacted; deltas concatenate to the redacted text, and the stored reply holds it', async () => {
      const model = new ScriptedChatModel([{ text: ['Your card 4111 11', '11 1111 1', '111 is on file.'] }]);
      const agent = new Agent({ model, middlewares: [new PiiRedactionMiddleware()] });
      const events = await run(agent);
      expect(textOf(events)).toBe('Your card ****1111 is on file.');
      expect(ofType(events, 'TEXT_BLOCK_DELTA').some((e) => /\d{2}/.test(e.delta.replace('****1111', '')))).toBe(false);
      expect(textOfMsg(agent.context[1]!)).toBe('Your card ****1111 is on file.');
    });

    it('every split of an answer in two deltas gives the same redacted reply', async () => {
      const answer = 'Reach me at jane@example.com or +49 30 12345678.';
      const expected = new PiiRedactionMiddleware().redactText(answer);
      expect(expected).toBe('Reach me at [EMAIL] or [PHONE].');
      for (let i = 0; i <= answer.length; i++) {
        const model = new ScriptedChatModel([{ text: [answer.slice(0, i), answer.slice(i)] }]);
        const agent = new Agent({ model, middlewares: [new PiiRedactionMiddleware()] });
        const events = await run(agent);
        expect(textOf(events)).toBe(expected);
        expect(textOfMsg(agent.context[1]!)).toBe(expected);
      }
    });

    it('thinking is redacted; tool-call arguments are not by default (the tool needs the real value), on request they are', async () => {
      const received: string[] = [];
      const send = defineTool({
        name: 'send',
        description: 'sends mail',
        input: z.object({ to: z.string() }),
        execute: ({ to }) => {
          received.push(to);
          return 'sent';
        },
      });
      const turns = () => [
        { thinking: ['mail jane@exa', 'mple.com'], toolCalls: [{ name: 'send', input: { to: 'jane@example.com' } }] },
        { text: 'sent' },
      ];
      const model = new ScriptedChatModel(turns());
      const events = await run(new Agent({ model, tools: [send], middlewares: [new PiiRedactionMiddleware()] }));
      expect(
        ofType(events, 'THINKING_BLOCK_DELTA')
          .map((e) => e.delta)
          .join(''),
      ).toBe('mail [EMAIL]');
      expect(received).toEqual(['jane@example.com']);

      const strict = new ScriptedChatModel(turns());
      await run(
        new Agent({
          model: strict,
          tools: [send],
          middlewares: [new PiiRedactionMiddleware({ output: { toolArguments: true } })],
        }),
      );
      expect(received).toEqual(['jane@example.com', '[EMAIL]']);
    });

    it('tool results: deltas and the authoritative output are redacted', async () => {
      const lookup = defineTool({
        name: 'lookup',
        description: 'crm',
        input: z.object({}),
        execute: () => of('IBAN DE89 3704 ', '0044 0532 0130 00'),
      });
      const model = new ScriptedChatModel([{ toolCalls: [{ name: 'lookup', input: {} }] }, { text: 'ok' }]);
      const agent = new Agent({ model, tools: [lookup], middlewares: [new PiiRedactionMiddleware()] });
      const events = await run(agent);
      expect(
        ofType(events, 'TOOL_RESULT_DELTA')
          .map((e) => e.delta)
          .join(''),
      ).toBe('IBAN [IBAN]');
      expect(ofType(events, 'TOOL_RESULT_END')[0]!.output).toEqual([{ type: 'text', text: 'IBAN [IBAN]' }]);
    });

    it('tool results: progress messages are redacted, and a returned object that held a match reaches nobody', async () => {
      const lookup = defineTool({
        name: 'lookup',
        description: 'crm',
        input: z.object({}),
        execute: (_input, toolCtx) => {
          toolCtx.emit('looking up jane@example.com...');
          return { email: 'jane@example.com', plan: 'pro' };
        },
      });
      const plain = defineTool({
        name: 'plan',
        description: 'plan',
        input: z.object({}),
        execute: () => ({ plan: 'pro' }),
      });
      const model = new ScriptedChatModel([
        {
          toolCalls: [
            { name: 'lookup', input: {} },
            { name: 'plan', input: {} },
          ],
        },
        { text: 'ok' },
      ]);
      const agent = new Agent({ model, tools: [lookup, plain], middlewares: [new PiiRedactionMiddleware()] });
      const events = await run(agent);
      expect(ofType(events, 'TOOL_PROGRESS').map((e) => e.message)).toEqual(['looking up [EMAIL]...']);
      const [redacted, untouched] = ofType(events, 'TOOL_RESULT_END');
      expect(redacted!.output).toEqual([{ type: 'text', text: '{"email":"[EMAIL]","plan":"pro"}' }]);
      expect('value' in redacted!).toBe(false);
      expect(untouched!.value).toEqual({ plan: 'pro' });
      expect(JSON.stringify(events)).not.toContain('jane@');
    });

    it('block in a tool result: the call gets an error result with a notice', async () => {
      const leak = defineTool({
        name: 'env',
        description: 'env',
        input: z.object({}),
        execute: () => 'OPENAI_API_KEY=sk-proj-4f9XkQ2mZ8vLr1TbN6yHc3Wd7Ps0Ea5Gu',
      });
      const model = new ScriptedChatModel([{ toolCalls: [{ name: 'env', input: {} }] }, { text: 'ok' }]);
      const agent = new Agent({
        model,
        tools: [leak],
        middlewares: [new PiiRedactionMiddleware({ types: { secret: 'block' } })],
      });
      const events = await run(agent);
      expect(ofType(events, 'TOOL_RESULT_END')[0]).toMatchObject({
        status: 'error',
        output: [{ type: 'text', text: 'Tool result withheld: it contained a secret (API key or token).' }],
      });
      expect(JSON.stringify(events)).not.toContain('sk-proj');
    });

    it('block in the model output: the text stops before the match, the call fails with pii_blocked, and the data is never emitted', async () => {
      const model = new ScriptedChatModel(
        [
          { text: ['Sure, the key is sk-proj-4f9XkQ2m', 'Z8vLr1TbN6yHc3Wd7Ps0Ea5Gu and more', ' text'] },
          { text: 'retried?' },
        ],
        { delayMs: 1 },
      );
      const agent = new Agent({
        model,
        middlewares: [
          new PiiRedactionMiddleware({ types: { secret: 'block' } }),
          new RetryMiddleware({ initialDelayMs: 1 }),
        ],
      });
      const events = await run(agent);
      expect(textOf(events)).toBe('Sure, the key is ');
      expect(JSON.stringify(events)).not.toContain('sk-proj');
      expect(ofType(events, 'MODEL_CALL_END')[0]).toMatchObject({
        finishReason: 'error',
        error: { code: 'pii_blocked' },
      });
      expect(ofType(events, 'REPLY_END')[0]).toMatchObject({
        finishReason: 'error',
        error: { code: 'pii_blocked', retryable: false },
      });
      expect(model.requests).toHaveLength(1);
      expect(model.requests[0]!.signal.aborted).toBe(true);
    });

    it('output: false leaves the stream alone', async () => {
      const model = new ScriptedChatModel([{ text: 'mail jane@example.com' }]);
      const events = await run(new Agent({ model, middlewares: [new PiiRedactionMiddleware({ output: false })] }));
      expect(textOf(events)).toBe('mail jane@example.com');
    });
  });

  it('one instance serves two agents at once without mixing their streams', async () => {
    const pii = new PiiRedactionMiddleware();
    const a = new ScriptedChatModel([{ text: ['a: 4111 1111 ', '1111 1111'] }], { delayMs: 1 });
    const b = new ScriptedChatModel([{ text: ['b: jane@exa', 'mple.com'] }], { delayMs: 1 });
    const [ea, eb] = await Promise.all([
      run(new Agent({ model: a, middlewares: [pii] })),
      run(new Agent({ model: b, middlewares: [pii] })),
    ]);
    expect([textOf(ea), textOf(eb)]).toEqual(['a: ****1111', 'b: [EMAIL]']);
  });
});
