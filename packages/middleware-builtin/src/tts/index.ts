// @rxscope/middleware-builtin/tts — the agent speaks: TTSMiddleware turns the reply's text into
// audio data blocks through a TextToSpeech (OpenAITextToSpeech for any OpenAI-compatible server).
// Explicit named exports only.

export { TTSMiddleware } from './tts-middleware.js';
export type { TTSOptions } from './tts-middleware.js';
export { OpenAITextToSpeech } from './openai-text-to-speech.js';
export type { OpenAITextToSpeechOptions } from './openai-text-to-speech.js';
export type { SpeechOptions, TextToSpeech } from './text-to-speech.js';
