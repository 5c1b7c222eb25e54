/**
 * `TTSMiddleware`: the agent speaks. Text blocks of the agent's reply become audio data blocks
 * (`DATA_BLOCK_START {mediaType}` / `DATA_BLOCK_DELTA` with base64 audio / `DATA_BLOCK_END`),
 * interleaved with the text, through a {@link TextToSpeech} (`OpenAITextToSpeech` for any
 * OpenAI-compatible server).
 *
 * - `mode: 'batch'` (default): when a text block ends, its whole text is spoken and one WAV
 *   file follows the block (`audio/wav`).
 * - `mode: 'realtime'`: an audio block opens with the text block and gets raw PCM deltas
 *   (`audio/pcm;rate=24000;bits=16;channels=1`) sentence by sentence while the text streams; it
 *   closes after the text block. Joined deltas are one playable PCM stream.
 *
 * Audio always finishes inside its model call (before `MODEL_CALL_END`), so the stream grammar
 * holds; the events after a spoken piece wait for its audio. Deltas are base64 of whole 3-byte
 * groups, so a player may join the deltas before decoding. A speech failure does not fail the
 * reply: the audio block closes and a `CUSTOM {name: 'tts.error', value: {message, blockId}}`
 * follows. Only the agent's own text is spoken (not a nested agent's). Audio blocks are part of
 * the reply message `agent.call()` returns, never of what the model sees.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, middlewares: [new TTSMiddleware({ tts: new OpenAITextToSpeech({ voice: 'coral' }), mode: 'realtime' })] });
 * agent.reply('Tell me a joke').pipe(filter(isEvent('DATA_BLOCK_DELTA'))).subscribe((e) => player.push(e.delta));
 * ```
 *
 * @module
 */
import { catchError, concat, concatMap, defer, EMPTY, from, mergeMap, type Observable, of } from 'rxjs';
import {
  type AgentHandle,
  type AgentEvent,
  type AgentInput,
  type Middleware,
  newId,
  type Next,
  type RuntimeContext,
  checkOptionKeys,
  optionKeys,
  OptionsError,
} from '@rxscope/core';
import { type TextToSpeech, toBase64 } from './text-to-speech.js';

/** Options of {@link TTSMiddleware}. */
export interface TTSOptions {
  /** The speech engine. Required. */
  readonly tts: TextToSpeech;
  /** `'batch'`: a WAV per finished text block. `'realtime'`: PCM sentence by sentence while the text streams. Default `'batch'`. */
  readonly mode?: 'batch' | 'realtime';
}

/** Ends of sentences or clauses a voice can speak on their own. */
const PIECE_END = /[.!?;:\n](?=\s|$)|\n/g;

/** The speakable head of `text` (up to its last sentence end) and the rest. */
function splitSpeakable(text: string): [string, string] {
  let cut = 0;
  for (const m of text.matchAll(PIECE_END)) cut = m.index + m[0].length;
  return [text.slice(0, cut), text.slice(cut)];
}

/** Per text block of one reply: the audio block beside it and the text not spoken yet. */
interface Voice {
  readonly audioId: string;
  pending: string;
  failed: boolean;
  /** Audio bytes not sent yet (deltas carry whole 3-byte groups, so joined deltas decode as one). */
  carry: Uint8Array;
}

// Every option, typed against TTSOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<TTSOptions>({
  tts: true,
  mode: true,
});

/**
 * Speaks the agent's text as audio data blocks. See the module documentation.
 */
export class TTSMiddleware implements Middleware {
  readonly key = 'TTSMiddleware';
  private readonly tts: TextToSpeech;
  private readonly mode: 'batch' | 'realtime';

  constructor(options: TTSOptions) {
    checkOptionKeys('TTSMiddleware', options, OPTION_KEYS);
    if (typeof options?.tts?.synthesize !== 'function')
      throw new OptionsError(
        'invalid_option',
        'TTSMiddleware.tts',
        'TTSMiddleware: tts must be a TextToSpeech, e.g. new OpenAITextToSpeech().',
      );
    if (options.mode !== undefined && options.mode !== 'batch' && options.mode !== 'realtime') {
      throw new OptionsError(
        'invalid_option',
        'TTSMiddleware.mode',
        `TTSMiddleware: mode must be 'batch' or 'realtime', got ${JSON.stringify(options.mode)}.`,
      );
    }
    this.tts = options.tts;
    this.mode = options.mode ?? 'batch';
  }

  onAgent(_agent: AgentHandle, ctx: RuntimeContext, input: AgentInput, next: Next<AgentInput>): Observable<AgentEvent> {
    return defer(() => {
      // Per reply (this subscription): the text blocks being spoken.
      const voices = new Map<string, Voice>();
      return next(input).pipe(concatMap((e) => (e.source === ctx.agentName ? this.handle(ctx, e, voices) : of(e))));
    });
  }

  private handle(ctx: RuntimeContext, e: AgentEvent, voices: Map<string, Voice>): Observable<AgentEvent> {
    const realtime = this.mode === 'realtime';
    switch (e.type) {
      case 'TEXT_BLOCK_START': {
        const voice: Voice = { audioId: newId('blk'), pending: '', failed: false, carry: new Uint8Array(0) };
        voices.set(e.blockId, voice);
        return realtime ? of(e, this.start(ctx, voice)) : of(e);
      }
      case 'TEXT_BLOCK_DELTA': {
        const voice = voices.get(e.blockId);
        if (!voice) return of(e);
        voice.pending += e.delta;
        if (!realtime) return of(e);
        const [speakable, rest] = splitSpeakable(voice.pending);
        if (!speakable.trim()) return of(e);
        voice.pending = rest;
        return concat(of(e), this.speak(ctx, voice, speakable, 'pcm'));
      }
      case 'TEXT_BLOCK_END': {
        const voice = voices.get(e.blockId);
        if (!voice) return of(e);
        voices.delete(e.blockId);
        const text = voice.pending;
        voice.pending = '';
        if (!realtime) {
          return text.trim()
            ? concat(of(e, this.start(ctx, voice)), this.speak(ctx, voice, text, 'wav'), this.end(ctx, voice))
            : of(e);
        }
        return concat(of(e), text.trim() ? this.speak(ctx, voice, text, 'pcm') : EMPTY, this.end(ctx, voice));
      }
      default:
        return of(e);
    }
  }

  private start(ctx: RuntimeContext, voice: Voice): AgentEvent {
    const mediaType =
      this.mode === 'realtime' ? `audio/pcm;rate=${this.tts.pcmSampleRate};bits=16;channels=1` : 'audio/wav';
    return ctx.event('DATA_BLOCK_START', { blockId: voice.audioId, mediaType });
  }

  /** The audio of `text` as deltas of the voice's block (base64 of whole 3-byte groups); a failure becomes a `tts.error` event. */
  private speak(ctx: RuntimeContext, voice: Voice, text: string, format: 'wav' | 'pcm'): Observable<AgentEvent> {
    if (voice.failed) return EMPTY;
    return defer(() =>
      this.tts.synthesize(text, { format, signal: ctx.signal }).pipe(
        mergeMap((chunk) => {
          const all = new Uint8Array(voice.carry.length + chunk.length);
          all.set(voice.carry);
          all.set(chunk, voice.carry.length);
          const whole = all.length - (all.length % 3);
          voice.carry = all.slice(whole);
          return whole ? of(ctx.delta('DATA_BLOCK_DELTA', voice.audioId, toBase64(all.subarray(0, whole)))) : EMPTY;
        }),
        catchError((err: unknown) => {
          voice.failed = true;
          const message = err instanceof Error ? err.message : String(err);
          return from([ctx.event('CUSTOM', { name: 'tts.error', value: { message, blockId: voice.audioId } })]);
        }),
      ),
    );
  }

  /** The last bytes of the voice's audio, then the end of its block. */
  private end(ctx: RuntimeContext, voice: Voice): Observable<AgentEvent> {
    return defer(() => {
      const rest = voice.carry;
      voice.carry = new Uint8Array(0);
      const end = ctx.event('DATA_BLOCK_END', { blockId: voice.audioId });
      return rest.length ? of(ctx.delta('DATA_BLOCK_DELTA', voice.audioId, toBase64(rest)), end) : of(end);
    });
  }
}
