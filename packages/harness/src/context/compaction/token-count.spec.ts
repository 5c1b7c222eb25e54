// What compaction measures a conversation with: the token estimate of each kind of block, the
// tally that counts each message once across steps, and the context window looked up by model.
import { type ChatModel, createMsg, type Msg, textOfMsg } from '@rxscope/core';
import { contextWindowOf } from './context-window.js';
import { estimateTokens, TokenTally } from './token-count.js';

const framing = (blocks: number) => 4 + blocks * 3;

describe('estimateTokens', () => {
  it('counts about four characters a token, plus framing per message and per block', () => {
    expect(estimateTokens(createMsg('user', 'Hello there'))).toBe(3 + framing(1));
    expect(estimateTokens(createMsg('user', 'x'.repeat(400)))).toBe(100 + framing(1));
    expect(estimateTokens(createMsg('user', []))).toBe(framing(0));
  });

  it('counts thinking, hints, and tool calls by name and arguments', () => {
    const msg = createMsg('assistant', [
      { type: 'thinking', thinking: 't'.repeat(40) },
      { type: 'hint', text: 'h'.repeat(40) },
      { type: 'tool_call', id: 'c1', name: 'read_file', arguments: '{"path":"a.ts"}' },
    ]);
    const chars = 40 + 40 + 'read_file'.length + '{"path":"a.ts"}'.length;
    expect(estimateTokens(msg)).toBe(Math.ceil(chars / 4) + framing(3));
  });

  it('counts a tool result by its text and inline data, and media by reference as 400 characters', () => {
    const result = createMsg('assistant', [
      {
        type: 'tool_result',
        toolCallId: 'c1',
        name: 'read_file',
        status: 'success',
        output: [
          { type: 'text', text: 'r'.repeat(80) },
          { type: 'data', mediaType: 'image/png', data: 'A'.repeat(800) },
          { type: 'data', mediaType: 'image/png', url: 'https://example.com/x.png' },
        ],
      },
    ]);
    expect(estimateTokens(result)).toBe(Math.ceil((80 + 800 + 400) / 4) + framing(1));
    const image = createMsg('user', [{ type: 'data', mediaType: 'image/png', url: 'https://example.com/y.png' }]);
    expect(estimateTokens(image)).toBe(100 + framing(1));
  });

  it('grows with a huge inline image instead of treating it as small', () => {
    const huge = createMsg('user', [{ type: 'data', mediaType: 'image/png', data: 'A'.repeat(4_000_000) }]);
    expect(estimateTokens(huge)).toBeGreaterThanOrEqual(1_000_000);
  });
});

describe('TokenTally', () => {
  const counting = () => {
    const counted: Msg[] = [];
    const counter = (m: Msg) => (counted.push(m), 10);
    return { counted, counter };
  };

  it('counts each message once, however many steps see it', () => {
    const { counted, counter } = counting();
    const tally = new TokenTally(counter);
    const a = createMsg('user', 'a');
    const b = createMsg('assistant', 'b');
    expect(tally.total([a])).toBe(10);
    expect(tally.total([a, b])).toBe(20);
    expect(tally.total([a, b])).toBe(20);
    expect(counted).toEqual([a, b]);
  });

  it('recounts from the first message that changed, keeping the sums before it', () => {
    const tally = new TokenTally((m) => Number(textOfMsg(m)));
    const [a, b, c] = ['1', '2', '3'].map((n) => createMsg('user', n)) as [Msg, Msg, Msg];
    expect(tally.prefixSums([a, b, c])).toEqual([1, 3, 6]);
    const replaced = createMsg('user', '10');
    expect(tally.prefixSums([a, replaced, c])).toEqual([1, 11, 14]);
    // A compaction that shortens the conversation.
    expect(tally.prefixSums([a])).toEqual([1]);
    expect(tally.total([])).toBe(0);
  });

  it('shares counts between tallies given the same cache, so a message is counted once in all', () => {
    const { counted, counter } = counting();
    const cache = new WeakMap<Msg, number>();
    const m = createMsg('user', 'shared');
    new TokenTally(counter, cache).total([m]);
    new TokenTally(counter, cache).total([m]);
    expect(counted).toHaveLength(1);
    expect(new TokenTally(counter).of(m)).toBe(10);
    expect(counted).toHaveLength(2);
  });

  it('does not change sums it returned earlier when the conversation changes', () => {
    const tally = new TokenTally(() => 5);
    const [a, b] = [createMsg('user', 'a'), createMsg('user', 'b')];
    const first = tally.prefixSums([a, b]);
    tally.prefixSums([a, createMsg('user', 'c'), createMsg('user', 'd')]);
    expect(first).toEqual([5, 10]);
  });
});

describe('contextWindowOf', () => {
  const model = (modelName: string, extra: Record<string, unknown> = {}) =>
    ({ modelName, provider: 'test', ...extra }) as unknown as ChatModel;

  it.each([
    ['gpt-4o-mini', 128_000],
    ['gpt-4.1-mini', 1_047_576],
    ['gpt-5-nano', 400_000],
    ['claude-sonnet-4', 200_000],
    ['GPT-4O', 128_000],
    ['o4-mini-high', 200_000],
    ['gemini-2.5-pro', 1_000_000],
  ])('knows %s has %d tokens', (name, window) => {
    expect(contextWindowOf(model(name))).toBe(window);
  });

  it('knows nothing of an unknown model, rather than guessing', () => {
    expect(contextWindowOf(model('llama-3-70b'))).toBeUndefined();
    expect(contextWindowOf(model('my-gpt-4o'))).toBeUndefined();
  });

  it('prefers the model’s own positive contextWindow, and ignores a zero, negative or non-number one', () => {
    expect(contextWindowOf(model('gpt-4o', { contextWindow: 32_000 }))).toBe(32_000);
    expect(contextWindowOf(model('gpt-4o', { contextWindow: 0 }))).toBe(128_000);
    expect(contextWindowOf(model('gpt-4o', { contextWindow: -5 }))).toBe(128_000);
    expect(contextWindowOf(model('local', { contextWindow: '8k' }))).toBeUndefined();
  });
});
