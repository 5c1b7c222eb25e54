/**
 * Turns the spoken reply's audio data blocks (`DATA_BLOCK_*` with base64 deltas, from the
 * service's `TTSMiddleware`) into something an `<audio>` element plays: a WAV `Blob`. A `wav`
 * block is already a file; raw PCM (`audio/pcm;rate=24000;bits=16;channels=1`, the realtime
 * mode) gets a WAV header.
 */
import type { AudioPart } from './turn';

/** The bytes of base64 text (the deltas carry whole 3-byte groups, so joined deltas decode as one). */
export function base64Bytes(base64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A playable WAV blob of a finished audio part, or `undefined` for a format the page cannot play. */
export function audioBlobOf(part: AudioPart): Blob | undefined {
  const [type, ...params] = part.mediaType.split(';').map((s) => s.trim());
  const bytes = base64Bytes(part.data);
  if (type === 'audio/wav' || type === 'audio/x-wav' || type === 'audio/mpeg' || type === 'audio/ogg')
    return new Blob([bytes], { type });
  if (type !== 'audio/pcm') return undefined;
  const param = (name: string, fallback: number) =>
    Number(params.find((p) => p.startsWith(`${name}=`))?.slice(name.length + 1) ?? fallback);
  return new Blob([wavHeader(bytes.length, param('rate', 24_000), param('bits', 16), param('channels', 1)), bytes], {
    type: 'audio/wav',
  });
}

/** The 44-byte header of a PCM WAV file. */
export function wavHeader(
  dataBytes: number,
  sampleRate: number,
  bits: number,
  channels: number,
): Uint8Array<ArrayBuffer> {
  const header = new DataView(new ArrayBuffer(44));
  const text = (at: number, s: string) => [...s].forEach((c, i) => header.setUint8(at + i, c.charCodeAt(0)));
  const blockAlign = (channels * bits) / 8;
  text(0, 'RIFF');
  header.setUint32(4, 36 + dataBytes, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  header.setUint32(16, 16, true);
  header.setUint16(20, 1, true); // PCM
  header.setUint16(22, channels, true);
  header.setUint32(24, sampleRate, true);
  header.setUint32(28, sampleRate * blockAlign, true);
  header.setUint16(32, blockAlign, true);
  header.setUint16(34, bits, true);
  text(36, 'data');
  header.setUint32(40, dataBytes, true);
  return new Uint8Array(header.buffer);
}
