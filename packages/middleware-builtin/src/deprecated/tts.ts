// The root entry's aliases of @rxscope/middleware-builtin/tts (speech), which moved to
// its own entry point. Deprecated: they are removed in the next minor version.
import * as tts from '../tts/index.js';

/**
 * Root-entry alias of `TTSMiddleware` from `@rxscope/middleware-builtin/tts` (the same value).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/tts'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { TTSMiddleware } from '@rxscope/middleware-builtin/tts';
 * ```
 */
export const TTSMiddleware = tts.TTSMiddleware;
/**
 * Root-entry alias of `TTSMiddleware` from `@rxscope/middleware-builtin/tts` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/tts'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { TTSMiddleware } from '@rxscope/middleware-builtin/tts';
 * ```
 */
export type TTSMiddleware = tts.TTSMiddleware;

/**
 * Root-entry alias of `OpenAITextToSpeech` from `@rxscope/middleware-builtin/tts` (the same value).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/tts'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { OpenAITextToSpeech } from '@rxscope/middleware-builtin/tts';
 * ```
 */
export const OpenAITextToSpeech = tts.OpenAITextToSpeech;
/**
 * Root-entry alias of `OpenAITextToSpeech` from `@rxscope/middleware-builtin/tts` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/tts'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { OpenAITextToSpeech } from '@rxscope/middleware-builtin/tts';
 * ```
 */
export type OpenAITextToSpeech = tts.OpenAITextToSpeech;

/**
 * Root-entry alias of `TTSOptions` from `@rxscope/middleware-builtin/tts` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/tts'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type TTSOptions } from '@rxscope/middleware-builtin/tts';
 * ```
 */
export type TTSOptions = tts.TTSOptions;

/**
 * Root-entry alias of `OpenAITextToSpeechOptions` from `@rxscope/middleware-builtin/tts` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/tts'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type OpenAITextToSpeechOptions } from '@rxscope/middleware-builtin/tts';
 * ```
 */
export type OpenAITextToSpeechOptions = tts.OpenAITextToSpeechOptions;

/**
 * Root-entry alias of `SpeechOptions` from `@rxscope/middleware-builtin/tts` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/tts'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type SpeechOptions } from '@rxscope/middleware-builtin/tts';
 * ```
 */
export type SpeechOptions = tts.SpeechOptions;

/**
 * Root-entry alias of `TextToSpeech` from `@rxscope/middleware-builtin/tts` (the same type).
 *
 * @deprecated Import from '@rxscope/middleware-builtin/tts'. The root alias is removed in the next minor version.
 *
 * @example
 * ```ts
 * import { type TextToSpeech } from '@rxscope/middleware-builtin/tts';
 * ```
 */
export type TextToSpeech = tts.TextToSpeech;
