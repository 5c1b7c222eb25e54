import { throwError } from 'rxjs';
import { Agent, type AgentEvent } from '@rxscope/core';
import { startOpenAITestServer, testSpeechWav, type OpenAITestServer } from '@rxscope/core/testing/node';
import { closeTestServer, customValues, ofType, run, testServerModel } from '../__tests__/helpers.js';
import { TTSMiddleware } from './index.js';
import { OpenAITextToSpeech } from './openai-text-to-speech.js';
import type { TextToSpeech } from './text-to-speech.js';

/** The audio of the data block `blockId`: its deltas joined, then decoded. */
const audioOf = (events: readonly AgentEvent[], blockId: string) =>
  Buffer.from(
    ofType(events, 'DATA_BLOCK_DELTA')
      .filter((e) => e.blockId === blockId)
      .map((e) => e.delta)
      .join(''),
    'base64',
  );
const pcm = (text: string) => testSpeechWav(text).subarray(44);
const speechRequests = (server: OpenAITestServer) => server.requests.filter((r) => r.path === '/v1/audio/speech');

describe('TTSMiddleware', () => {
  let server: OpenAITestServer;
  afterEach(() => closeTestServer(server));
  const ttsFor = () =>
    new OpenAITextToSpeech({ apiKey: 'sk-test', baseURL: server.url, model: 'tts-test', voice: 'coral' });

  it('batch: speaks each finished text block as one WAV right after it, inside its model call', async () => {
    server = await startOpenAITestServer({ script: [{ text: ['Hello there. ', 'How are you?'] }] });
    const agent = new Agent({
      name: 'a',
      model: testServerModel(server),
      middlewares: [new TTSMiddleware({ tts: ttsFor() })],
    });

    const { events } = await run(agent, 'hi');

    const types = events.map((e) => e.type).filter((t) => t !== 'TEXT_BLOCK_DELTA' && t !== 'DATA_BLOCK_DELTA');
    expect(types).toEqual([
      'REPLY_START',
      'MODEL_CALL_START',
      'TEXT_BLOCK_START',
      'TEXT_BLOCK_END',
      'DATA_BLOCK_START',
      'DATA_BLOCK_END',
      'MODEL_CALL_END',
      'REPLY_END',
    ]);
    const [start] = ofType(events, 'DATA_BLOCK_START');
    expect(start!.mediaType).toBe('audio/wav');
    expect(audioOf(events, start!.blockId)).toEqual(testSpeechWav('Hello there. How are you?'));
    expect(speechRequests(server).map((r) => r.body)).toEqual([
      { model: 'tts-test', voice: 'coral', input: 'Hello there. How are you?', response_format: 'wav' },
    ]);
  });

  it('realtime: streams PCM sentence by sentence beside the text, one playable stream per text block', async () => {
    server = await startOpenAITestServer({ script: [{ text: ['Hello there. ', 'How are', ' you?'] }] });
    const agent = new Agent({
      name: 'a',
      model: testServerModel(server),
      middlewares: [new TTSMiddleware({ tts: ttsFor(), mode: 'realtime' })],
    });

    const { events } = await run(agent, 'hi');

    const [text] = ofType(events, 'TEXT_BLOCK_START');
    const [audio] = ofType(events, 'DATA_BLOCK_START');
    expect(audio!.mediaType).toBe('audio/pcm;rate=24000;bits=16;channels=1');
    // The audio block opens with the text block, the first sentence is heard before the text goes on.
    expect(events.indexOf(audio!)).toBe(events.indexOf(text!) + 1);
    const firstAudio = events.findIndex((e) => e.type === 'DATA_BLOCK_DELTA');
    const secondText = events.findIndex((e) => e.type === 'TEXT_BLOCK_DELTA' && e.delta === 'How are');
    expect(firstAudio).toBeLessThan(secondText);
    expect(speechRequests(server).map((r) => r.body['input'])).toEqual(['Hello there.', ' How are you?']);
    expect(speechRequests(server).every((r) => (r.body['response_format'] as unknown) === 'pcm')).toBe(true);
    expect(audioOf(events, audio!.blockId)).toEqual(Buffer.concat([pcm('Hello there.'), pcm(' How are you?')]));
    const ends = events.map((e, i) => [e.type, i] as const);
    const audioEnd = ends.find(([t]) => t === 'DATA_BLOCK_END')![1];
    expect(audioEnd).toBeGreaterThan(ends.find(([t]) => t === 'TEXT_BLOCK_END')![1]);
    expect(audioEnd).toBeLessThan(ends.find(([t]) => t === 'MODEL_CALL_END')![1]);
  });

  it('keeps the text reply when speech fails: the audio block closes and a tts.error event says why', async () => {
    server = await startOpenAITestServer({ script: [{ text: 'Hello.' }] });
    const broken: TextToSpeech = {
      pcmSampleRate: 24_000,
      synthesize: () => throwError(() => new Error('voice service down')),
    };
    const agent = new Agent({
      name: 'a',
      model: testServerModel(server),
      middlewares: [new TTSMiddleware({ tts: broken })],
    });
    const { events, end } = await run(agent, 'hi');
    expect(end.finishReason).toBe('completed');
    expect(
      ofType(events, 'TEXT_BLOCK_DELTA')
        .map((e) => e.delta)
        .join(''),
    ).toBe('Hello.');
    const [audio] = ofType(events, 'DATA_BLOCK_START');
    expect(customValues(events, 'tts.error')).toEqual([{ message: 'voice service down', blockId: audio!.blockId }]);
  });

  it('speaks concurrent replies of agents sharing one instance each with its own voice', async () => {
    server = await startOpenAITestServer({
      chunkDelayMs: 3,
      handler: (req) => ({ text: [`Answer to `, `${JSON.stringify(req.body.messages!.at(-1)!.content)}.`] }),
    });
    const tts = new TTSMiddleware({ tts: ttsFor(), mode: 'realtime' });
    const questions = ['one', 'two', 'three'];
    const results = await Promise.all(
      questions.map((q) => run(new Agent({ name: q, model: testServerModel(server), middlewares: [tts] }), q)),
    );
    results.forEach(({ events }, i) => {
      const [audio] = ofType(events, 'DATA_BLOCK_START');
      expect(audioOf(events, audio!.blockId)).toEqual(pcm(`Answer to "${questions[i]}".`));
    });
  });

  it('refuses bad options at construction', () => {
    expect(() => new TTSMiddleware({} as never)).toThrow(/tts must be a TextToSpeech/);
    expect(
      () =>
        new TTSMiddleware({
          tts: { pcmSampleRate: 1, synthesize: () => throwError(() => new Error()) },
          mode: 'stream' as never,
        }),
    ).toThrow(/mode must be 'batch' or 'realtime'/);
    expect(() => new OpenAITextToSpeech({ apiKey: 'x', speed: 9 })).toThrow(/speed must be between 0.25 and 4/);
  });
});
