import type { Observable } from 'rxjs';

/**
 * Options of one {@link TextToSpeech.synthesize} call.
 *
 * @example
 * ```ts
 * tts.synthesize('Hello!', { format: 'wav', signal: AbortSignal.timeout(10_000) });
 * ```
 */
export interface SpeechOptions {
  /** `wav`: a whole file per call. `pcm`: raw 16-bit mono samples, which can be joined call after call. */
  readonly format: 'wav' | 'pcm';
  readonly signal: AbortSignal;
}

/**
 * Speech synthesis: text in, audio bytes out (in one or more chunks, as they arrive).
 * `OpenAITextToSpeech` talks to any OpenAI-compatible `/v1/audio/speech`.
 *
 * @example
 * ```ts
 * const silent: TextToSpeech = { pcmSampleRate: 24_000, synthesize: () => of(new Uint8Array(0)) };
 * ```
 */
export interface TextToSpeech {
  /** Sample rate of `pcm` output, in Hz. */
  readonly pcmSampleRate: number;
  synthesize(text: string, options: SpeechOptions): Observable<Uint8Array>;
}

/** Base64 of `bytes` (browser-safe). */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
