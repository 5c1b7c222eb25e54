import { audioBlobOf, base64Bytes, wavHeader } from './audio';
import type { AudioPart } from './turn';

const part = (mediaType: string, bytes: Uint8Array): AudioPart => ({
  kind: 'audio',
  blockId: 'a1',
  mediaType,
  data: Buffer.from(bytes).toString('base64'),
  done: true,
});

describe('audio of a spoken reply', () => {
  it('a WAV block is played as the file it is', async () => {
    const wav = new Uint8Array([...wavHeader(4, 8000, 16, 1), 1, 2, 3, 4]);
    const blob = audioBlobOf(part('audio/wav', wav))!;
    expect(blob.type).toBe('audio/wav');
    expect(new Uint8Array(await blob.arrayBuffer())).toEqual(wav);
  });

  it('raw PCM gets a WAV header from the media type parameters', async () => {
    const pcm = new Uint8Array([0, 0, 255, 127, 0, 128]);
    const blob = audioBlobOf(part('audio/pcm;rate=24000;bits=16;channels=1', pcm))!;
    const bytes = new Uint8Array(await blob.arrayBuffer());
    const view = new DataView(bytes.buffer);
    expect(blob.type).toBe('audio/wav');
    expect(Buffer.from(bytes.slice(0, 4)).toString()).toBe('RIFF');
    expect(Buffer.from(bytes.slice(8, 16)).toString()).toBe('WAVEfmt ');
    expect([
      view.getUint16(22, true),
      view.getUint32(24, true),
      view.getUint16(34, true),
      view.getUint32(40, true),
    ]).toEqual([1, 24000, 16, 6]);
    expect(bytes.slice(44)).toEqual(pcm);
  });

  it('leaves formats a page cannot play, and decodes joined base64 deltas as one', () => {
    expect(audioBlobOf(part('audio/x-unknown', new Uint8Array([1])))).toBeUndefined();
    expect(base64Bytes('AQID' + 'BAUG')).toEqual(new Uint8Array([1, 2, 3, 4, 5, 6]));
  });
});
