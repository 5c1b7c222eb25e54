import { checkOptionKeys, optionKeys, OptionsError } from '@rxscope/core';
import OpenAI from 'openai';
import { Observable } from 'rxjs';
import type { SpeechOptions, TextToSpeech } from './text-to-speech.js';

/**
 * Options of {@link OpenAITextToSpeech}.
 *
 * @example
 * ```ts
 * const options: OpenAITextToSpeechOptions = { model: 'gpt-4o-mini-tts', voice: 'coral', instructions: 'Speak calmly.' };
 * ```
 */
export interface OpenAITextToSpeechOptions {
  /** Default `'gpt-4o-mini-tts'`. */
  readonly model?: string;
  /** Default `'alloy'`. */
  readonly voice?: string;
  /** How to speak (models that take instructions). */
  readonly instructions?: string;
  /** 0.25 to 4. Default 1. */
  readonly speed?: number;
  /** Default: `OPENAI_API_KEY`. */
  readonly apiKey?: string;
  /** Any OpenAI-compatible server, e.g. `http://localhost:8000/v1`. */
  readonly baseURL?: string;
  /** A configured client instead of `apiKey`/`baseURL`. */
  readonly client?: OpenAI;
}

// Every option, typed against OpenAITextToSpeechOptions: adding one there without listing it here fails to compile.
const OPTION_KEYS = optionKeys<OpenAITextToSpeechOptions>({
  model: true,
  voice: true,
  instructions: true,
  speed: true,
  apiKey: true,
  baseURL: true,
  client: true,
});

/**
 * Text to speech through an OpenAI-compatible `POST /v1/audio/speech`, on the official `openai`
 * client. The audio body is streamed: chunks are emitted as they arrive, and unsubscribing aborts
 * the request.
 *
 * @example
 * ```ts
 * const tts = new OpenAITextToSpeech({ voice: 'coral' });
 * const agent = new Agent({ model, middlewares: [new TTSMiddleware({ tts })] });
 * ```
 */
export class OpenAITextToSpeech implements TextToSpeech {
  /** The OpenAI API's PCM rate. */
  readonly pcmSampleRate = 24_000;
  private readonly client: OpenAI;
  private readonly model: string;
  private readonly voice: string;
  private readonly instructions: string | undefined;
  private readonly speed: number | undefined;

  constructor(options: OpenAITextToSpeechOptions = {}) {
    checkOptionKeys('OpenAITextToSpeech', options, OPTION_KEYS);
    if (options.speed !== undefined && !(options.speed >= 0.25 && options.speed <= 4)) {
      throw new OptionsError(
        'invalid_option',
        'OpenAITextToSpeech.speed',
        `OpenAITextToSpeech: speed must be between 0.25 and 4, got ${options.speed}.`,
      );
    }
    this.client =
      options.client ??
      new OpenAI({
        ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
        ...(options.baseURL ? { baseURL: options.baseURL } : {}),
        maxRetries: 0,
      });
    this.model = options.model ?? 'gpt-4o-mini-tts';
    this.voice = options.voice ?? 'alloy';
    this.instructions = options.instructions;
    this.speed = options.speed;
  }

  synthesize(text: string, options: SpeechOptions): Observable<Uint8Array> {
    return new Observable<Uint8Array>((subscriber) => {
      const abort = new AbortController();
      const onAbort = () => abort.abort(options.signal.reason);
      options.signal.addEventListener('abort', onAbort, { once: true });
      const read = async () => {
        const response = await this.client.audio.speech.create(
          {
            model: this.model,
            voice: this.voice,
            input: text,
            response_format: options.format,
            ...(this.instructions ? { instructions: this.instructions } : {}),
            ...(this.speed !== undefined ? { speed: this.speed } : {}),
          },
          { signal: abort.signal },
        );
        const reader = response.body?.getReader();
        if (!reader) {
          subscriber.next(new Uint8Array(await response.arrayBuffer()));
          return;
        }
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          if (value?.length) subscriber.next(value);
        }
      };
      read().then(
        () => subscriber.complete(),
        (err: unknown) => subscriber.error(err),
      );
      return () => {
        options.signal.removeEventListener('abort', onAbort);
        abort.abort();
      };
    });
  }
}
