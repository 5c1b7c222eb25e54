// ctx.conversation: edits by middlewares that change what is persisted and what the step being
// assembled sends, the pair invariant, and hints (once per step, per step or persistent, removed by id).
import { defer, finalize, retry } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import type { HintBlock, Msg } from '../message/blocks.js';
import { createMsg, textOfMsg, toolResultsOf } from '../message/msg.js';
import { ConversationEditError } from '../middleware/conversation.js';
import type { Middleware } from '../middleware/middleware.js';
import type { ModelRequest } from '../model/chat-model.js';
import { ScriptedChatModel } from '../testing/index.js';
import { defineTool } from '../tool/tool.js';
import { addTool, endOf, ofType, runReply } from './helpers.js';

const texts = (messages: readonly Msg[]) => messages.map((m) => `${m.role}:${m.content.map(blockText).join('|')}`);
const blockText = (b: Msg['content'][number]): string =>
  b.type === 'text' || b.type === 'hint'
    ? b.text
    : b.type === 'tool_call'
      ? `call ${b.id}`
      : b.type === 'tool_result'
        ? `result ${b.toolCallId}=${b.output.map((o) => (o.type === 'text' ? o.text : o.mediaType)).join('')}`
        : b.type;
/** What the model received, without the system prompt. */
const sent = (request: ModelRequest) => texts(request.messages.filter((m) => m.role !== 'system'));
const hintsOf = (messages: readonly Msg[]) =>
  messages.flatMap((m) => m.content.filter((b): b is HintBlock => b.type === 'hint'));

describe('ctx.conversation: edits by middlewares', () => {
  it('a summary that replaces older messages is what the step sends, what saveState holds and what the next reply sees', async () => {
    const model = new ScriptedChatModel([{ text: 'one' }, { text: 'two' }, { text: 'three' }]);
    const compaction: Middleware = {
      onReasoning: (_agent, ctx, input, next) => {
        const messages = ctx.conversation.messages;
        if (messages.length > 4)
          ctx.conversation.replaceMessages(0, messages.length - 1, [createMsg('user', 'Summary: earlier talk')]);
        return next(input);
      },
    };
    const agent = new Agent({ model, middlewares: [compaction] });
    await runReply(agent, agent.reply('a'));
    await runReply(agent, agent.reply('b'));
    expect(agent.context).toHaveLength(4);
    await runReply(agent, agent.reply('c'));

    expect(sent(model.requests[2]!)).toEqual(['user:Summary: earlier talk', 'user:c']);
    expect(texts(agent.context)).toEqual(['user:Summary: earlier talk', 'user:c', 'assistant:three']);
    expect(texts(agent.saveState().context)).toEqual(texts(agent.context));
  });

  it('replaces a large tool result of the running reply with a pointer: the next request and the stored reply hold the pointer', async () => {
    const big = defineTool({
      name: 'dump',
      description: 'big output',
      input: z.object({}),
      execute: () => 'x'.repeat(5000),
    });
    const model = new ScriptedChatModel([{ toolCalls: [{ id: 'c1', name: 'dump', input: {} }] }, { text: 'done' }]);
    const eviction: Middleware = {
      onReasoning: (_agent, ctx, input, next) => {
        for (const m of ctx.conversation.messages) {
          for (const r of toolResultsOf(m)) {
            const size = r.output.reduce((n, o) => n + (o.type === 'text' ? o.text.length : 0), 0);
            if (size > 1000) {
              ctx.conversation.replaceBlock(
                { toolResult: r.toolCallId },
                { ...r, output: [{ type: 'text', text: `[saved: ${size} chars]` }] },
              );
            }
          }
        }
        return next(input);
      },
    };
    const agent = new Agent({ model, tools: [big], middlewares: [eviction] });
    const events = await runReply(agent, agent.reply('go'));

    // The stream is what happened: the full result was emitted.
    expect(ofType(events, 'TOOL_RESULT_END')[0]!.output).toEqual([{ type: 'text', text: 'x'.repeat(5000) }]);
    expect(sent(model.requests[1]!)).toEqual(['user:go', 'assistant:call c1|result c1=[saved: 5000 chars]']);
    expect(texts(agent.context)).toEqual(['user:go', 'assistant:call c1|result c1=[saved: 5000 chars]|done']);
  });

  it('refuses an edit that would separate a tool call from its result, with a clear error, and changes nothing', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'c1', name: 'add', input: { a: 1, b: 2 } }] },
      { text: '3' },
      { text: 'ok' },
    ]);
    const errors: unknown[] = [];
    const breaker: Middleware = {
      onReasoning: (_agent, ctx, input, next) => {
        const messages = ctx.conversation.messages;
        const reply = messages.find((m) => m.content.some((b) => b.type === 'tool_call'));
        if (reply) {
          const i = messages.indexOf(reply);
          const attempts = [
            () => ctx.conversation.replaceBlock({ toolResult: 'c1' }, { type: 'text', text: 'gone' }),
            () =>
              ctx.conversation.replaceMessages(i, i + 1, [
                { ...reply, content: reply.content.filter((b) => b.type !== 'tool_result') },
              ]),
            () =>
              ctx.conversation.replaceMessages(0, 0, [
                createMsg('assistant', [{ type: 'tool_call', id: 'c9', name: 'add', arguments: '{}' }]),
              ]),
            () => ctx.conversation.replaceMessages(2, 1, []),
            () => ctx.conversation.replaceMessages(0, 0, [{ role: 'user' } as unknown as Msg]),
          ];
          for (const attempt of attempts) {
            try {
              attempt();
            } catch (e) {
              errors.push(e);
            }
          }
        }
        return next(input);
      },
    };
    const agent = new Agent({ model, tools: [addTool], middlewares: [breaker] });
    await runReply(agent, agent.reply('1+2'));
    const before = texts(agent.context);
    await runReply(agent, agent.reply('thanks'));

    expect(errors.length).toBeGreaterThanOrEqual(5);
    expect(errors.every((e) => e instanceof ConversationEditError)).toBe(true);
    const messages = errors.map((e) => (e as Error).message);
    expect(messages[0]).toMatch(/result of tool call c1 can only be replaced by another result of that call/);
    expect(messages[1]).toMatch(/tool call\(s\) c1 without a matching call or result/);
    expect(messages[2]).toMatch(/c9/);
    expect(messages[3]).toMatch(/0 <= start <= end/);
    expect(messages[4]).toMatch(/replacement\[0\] is not a valid message/);
    expect(texts(agent.context).slice(0, before.length)).toEqual(before);
  });

  it('an edit is visible to inner layers and the model even when outer layers spread the input; a messages array of your own is sent as is', async () => {
    const model = new ScriptedChatModel([{ text: 'a' }, { text: 'b' }]);
    let own = false;
    const outer: Middleware = { onReasoning: (_agent, _ctx, input, next) => next({ ...input, toolChoice: 'none' }) };
    const editor: Middleware = {
      onReasoning: (_agent, ctx, input, next) => {
        ctx.conversation.replaceMessages(0, 0, [createMsg('user', 'background')]);
        return next(own ? { ...input, messages: [createMsg('user', 'only this')] } : input);
      },
    };
    let seenByInner: readonly Msg[] = [];
    const inner: Middleware = {
      onReasoning: (_agent, _ctx, input, next) => {
        seenByInner = input.messages;
        return next(input);
      },
    };
    const agent = new Agent({ model, middlewares: [outer, editor, inner] });
    await runReply(agent, agent.reply('hi'));
    expect(texts(seenByInner)).toEqual(['user:background', 'user:hi']);
    expect(sent(model.requests[0]!)).toEqual(['user:background', 'user:hi']);
    expect(model.requests[0]!.toolChoice).toBe('none');

    own = true;
    await runReply(agent, agent.reply('again'));
    expect(sent(model.requests[1]!)).toEqual(['user:only this']);
    // The edit itself is persisted all the same.
    expect(texts(agent.context).filter((t) => t === 'user:background')).toHaveLength(2);
  });

  it('a compaction that replaces the reply so far continues the reply in a new message with its id', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'c1', name: 'add', input: { a: 1, b: 1 } }] },
      { toolCalls: [{ id: 'c2', name: 'add', input: { a: 2, b: 2 } }] },
      { text: 'finished' },
    ]);
    const compaction: Middleware = {
      onReasoning: (_agent, ctx, input, next) => {
        if (ctx.iteration === 3) {
          ctx.conversation.replaceMessages(0, ctx.conversation.messages.length, [
            createMsg('user', 'Summary: 1+1=2, 2+2=4'),
          ]);
        }
        return next(input);
      },
    };
    const agent = new Agent({ model, tools: [addTool], middlewares: [compaction] });
    const events = await runReply(agent, agent.reply('add things'));
    expect(sent(model.requests[2]!)).toEqual(['user:Summary: 1+1=2, 2+2=4']);
    expect(texts(agent.context)).toEqual(['user:Summary: 1+1=2, 2+2=4', 'assistant:finished']);
    expect(agent.context[1]!.id).toBe(endOf(events).replyId);
  });
});

describe('ctx.conversation: hints', () => {
  it('emits a hint once when an outer layer re-enters the step after a failure, and the model and the stored reply hold it once', async () => {
    let calls = 0;
    const model = new ScriptedChatModel(() => (++calls === 1 ? { error: new Error('flaky') } : { text: 'fine' }));
    const retrying: Middleware = { onReasoning: (_agent, _ctx, input, next) => next(input).pipe(retry(1)) };
    const hinting: Middleware = {
      onReasoning: (_agent, ctx, input, next) =>
        defer(() => {
          ctx.conversation.addHint('Be concise.', { id: 'style' });
          return next(input);
        }),
    };
    const agent = new Agent({ model, middlewares: [retrying, hinting] });
    const events = await runReply(agent, agent.reply('hi'));

    expect(ofType(events, 'HINT_BLOCK')).toEqual([expect.objectContaining({ text: 'Be concise.', hintId: 'style' })]);
    expect(model.requests.map(sent)).toEqual([
      ['user:hi', 'assistant:Be concise.'],
      ['user:hi', 'assistant:Be concise.'],
    ]);
    expect(hintsOf(agent.context)).toEqual([{ type: 'hint', text: 'Be concise.', id: 'style' }]);
    expect(endOf(events).finishReason).toBe('completed');
  });

  it("a step hint is part of that step's request only and leaves the conversation afterwards", async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'c1', name: 'add', input: { a: 1, b: 1 } }] },
      { text: '2' },
    ]);
    const rag: Middleware = {
      onReasoning: (_agent, ctx, input, next) => {
        if (ctx.iteration === 1)
          ctx.conversation.addHint('Context: adding is easy.', { id: 'rag', lifetime: 'step', source: 'rag' });
        return next(input);
      },
    };
    const agent = new Agent({ model, tools: [addTool], middlewares: [rag] });
    const events = await runReply(agent, agent.reply('1+1'));

    expect(ofType(events, 'HINT_BLOCK')).toEqual([expect.objectContaining({ hintId: 'rag', hintSource: 'rag' })]);
    expect(sent(model.requests[0]!)).toEqual(['user:1+1', 'assistant:Context: adding is easy.']);
    expect(sent(model.requests[1]!)).toEqual(['user:1+1', 'assistant:call c1|result c1=2']);
    expect(hintsOf(agent.context)).toEqual([]);
    expect(hintsOf(agent.saveState().context)).toEqual([]);
  });

  it('removes its own hint by id without touching the hints of other middlewares', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'c1', name: 'add', input: { a: 1, b: 1 } }] },
      { text: '2' },
      { text: 'bye' },
    ]);
    const a: Middleware = {
      onReasoning: (_agent, ctx, input, next) => {
        if (ctx.iteration > 1) return next(input);
        ctx.conversation.addHint('from a', { id: 'a:note' });
        return next(input).pipe(finalize(() => ctx.conversation.removeHint('a:note')));
      },
    };
    const b: Middleware = {
      onReasoning: (_agent, ctx, input, next) => {
        ctx.conversation.addHint('from b', { id: 'b:note' });
        return next(input);
      },
    };
    const agent = new Agent({ model, tools: [addTool], middlewares: [a, b] });
    const events = await runReply(agent, agent.reply('1+1'));

    expect(ofType(events, 'HINT_BLOCK').map((e) => e.hintId)).toEqual(['a:note', 'b:note']);
    expect(sent(model.requests[0]!)).toEqual(['user:1+1', 'assistant:from a|from b']);
    expect(sent(model.requests[1]!)).toEqual(['user:1+1', 'assistant:from b|call c1|result c1=2']);
    expect(hintsOf(agent.context)).toEqual([{ type: 'hint', text: 'from b', id: 'b:note' }]);

    // A persistent hint of an earlier reply is removed from the stored conversation too.
    const c: Middleware = {
      onReasoning: (_agent, ctx, input, next) => {
        expect(ctx.conversation.removeHint('b:note')).toBe(true);
        expect(ctx.conversation.removeHint('nothing')).toBe(false);
        return next(input);
      },
    };
    const later = new Agent({ model, tools: [addTool], middlewares: [c], state: agent.saveState() });
    await runReply(later, later.reply('thanks'));
    expect(hintsOf(later.context)).toEqual([]);
    expect(sent(model.requests[2]!)).toEqual(['user:1+1', 'assistant:call c1|result c1=2|2', 'user:thanks']);
  });

  it('a hint added by a layer that answers without the model is still emitted and stored', async () => {
    const model = new ScriptedChatModel([]);
    const cache: Middleware = {
      onReasoning: (_agent, ctx) =>
        defer(() => {
          ctx.conversation.addHint('answered from cache', { id: 'cache' });
          const blockId = 'blk_cached';
          return [
            ctx.event('TEXT_BLOCK_START', { blockId }),
            ctx.event('TEXT_BLOCK_DELTA', { blockId, delta: 'cached' }),
            ctx.event('TEXT_BLOCK_END', { blockId }),
          ];
        }),
    };
    const agent = new Agent({ model, middlewares: [cache] });
    const events = await runReply(agent, agent.reply('q'));
    expect(ofType(events, 'HINT_BLOCK')).toHaveLength(1);
    expect(texts(agent.context)).toEqual(['user:q', 'assistant:answered from cache|cached']);
    expect(textOfMsg(agent.context[1]!)).toBe('cached');
    expect(model.requests).toHaveLength(0);
  });
});
