/// <reference types="node" />
// `POST /v1/audio/speech` of the OpenAI-compatible test server: a small valid WAV (or raw PCM)
// whose length follows the input text, so speech tests can decode and measure what they get.
import type { TestServerResponse } from './route-response.js';

/** Sample rate of the test server's audio (the OpenAI API's PCM rate). */
export const TEST_SPEECH_SAMPLE_RATE = 24_000;

/** Milliseconds of audio per character of input, between 50 ms and 2 s in all. */
const MS_PER_CHAR = 10;

/** The 16-bit mono samples the test server speaks for `text`: a 440 Hz tone as long as the text asks. */
function samplesFor(text: string): Int16Array {
  const ms = Math.min(2000, Math.max(50, text.length * MS_PER_CHAR));
  const count = Math.round((TEST_SPEECH_SAMPLE_RATE * ms) / 1000);
  const samples = new Int16Array(count);
  for (let i = 0; i < count; i++)
    samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / TEST_SPEECH_SAMPLE_RATE));
  return samples;
}

/**
 * The WAV file the test server returns for `text`: RIFF/WAVE, PCM, 16-bit, mono, 24 kHz, 10 ms of
 * a 440 Hz tone per character of input (at least 50 ms, at most 2 s). The same text always gives
 * the same bytes.
 *
 * @example
 * ```ts
 * const wav = testSpeechWav('Hello');
 * expect(wav.subarray(0, 4).toString('ascii')).toBe('RIFF');
 * ```
 */
export function testSpeechWav(text: string): Buffer {
  const pcm = Buffer.from(samplesFor(text).buffer);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // size of the fmt chunk
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(TEST_SPEECH_SAMPLE_RATE, 24);
  header.writeUInt32LE(TEST_SPEECH_SAMPLE_RATE * 2, 28); // bytes per second
  header.writeUInt16LE(2, 32); // bytes per frame
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

/**
 * Answers a speech request (`input` and `voice` required; `response_format` `wav` or `pcm`, the
 * formats it can produce without an encoder) like the OpenAI API.
 */
export function speechResponse(body: Readonly<Record<string, unknown>>): TestServerResponse {
  const input = body['input'];
  const format = body['response_format'] ?? 'mp3';
  const error = (message: string, code: string): TestServerResponse => ({
    status: 400,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      error: { message: `OpenAI test server: ${message}`, type: 'invalid_request_error', param: null, code },
    }),
  });
  if (typeof input !== 'string' || input.length === 0)
    return error("'input' must be a non-empty string.", 'invalid_input');
  if (typeof body['voice'] !== 'string') return error("'voice' is required.", 'invalid_voice');
  if (format === 'wav') return { status: 200, headers: { 'content-type': 'audio/wav' }, body: testSpeechWav(input) };
  if (format === 'pcm')
    return { status: 200, headers: { 'content-type': 'audio/pcm' }, body: Buffer.from(samplesFor(input).buffer) };
  return error(
    `response_format ${JSON.stringify(format)} is not supported here; ask for 'wav' or 'pcm'.`,
    'unsupported_format',
  );
}
