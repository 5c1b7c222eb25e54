import { detectPii, ibanValid, luhnValid, type PiiType } from './detect.js';
import { sha256Hex } from './sha256.js';

const found = (text: string) => detectPii(text).map((m) => [m.type, m.value]);
const only = (text: string, type: PiiType) =>
  detectPii(text)
    .filter((m) => m.type === type)
    .map((m) => m.value);

describe('detectPii', () => {
  it.each([
    ['write to jane.doe+news@mail.example.co.uk today', 'jane.doe+news@mail.example.co.uk'],
    ['<bob@example.com>', 'bob@example.com'],
    ['end of sentence: a_b@x.io.', 'a_b@x.io'],
  ])('finds the e-mail address in %j', (text, email) => {
    expect(only(text, 'email')).toEqual([email]);
  });

  it.each(['user@localhost', 'not an @ address', '@handle', 'a@b.c'])('finds no e-mail address in %j', (text) => {
    expect(only(text, 'email')).toEqual([]);
  });

  it.each([
    ['call +1 (415) 555-2671 now', '+1 (415) 555-2671'],
    ['+49 30 12345678', '+49 30 12345678'],
    ['+14155552671', '+14155552671'],
    ['at 415-555-2671.', '415-555-2671'],
    ['at 415.555.2671', '415.555.2671'],
    ['(415) 555-2671', '(415) 555-2671'],
    ['(415)555-2671', '(415)555-2671'],
    ['Büro: 030 12345678', '030 12345678'],
    ['mobil 0171-1234567', '0171-1234567'],
  ])('finds the phone number in %j', (text, phone) => {
    expect(only(text, 'phone')).toEqual([phone]);
  });

  it.each([
    'on 2024-01-15 at 10:30',
    'timestamp 1712345678',
    'version 1.2.3',
    '10.000.000 units',
    '192.168.001.001',
    'order #123456',
    'ISBN 978-3-16-148410-0',
    'code A4155552671',
  ])('finds no phone number in %j', (text) => {
    expect(only(text, 'phone')).toEqual([]);
  });

  it.each([
    ['card 4111 1111 1111 1111.', '4111 1111 1111 1111'],
    ['4111-1111-1111-1111', '4111-1111-1111-1111'],
    ['4111111111111111', '4111111111111111'],
    ['amex 3782 822463 10005', '3782 822463 10005'],
    ['5555555555554444 expires 12/27', '5555555555554444'],
    ['order 12 4111 1111 1111 1111', '4111 1111 1111 1111'],
  ])('finds the card number in %j', (text, card) => {
    expect(only(text, 'card')).toEqual([card]);
  });

  it.each([
    ['fails Luhn', '4111 1111 1111 1112'],
    ['fails Luhn, compact', '4111111111111112'],
    ['glued to letters', 'ID4111111111111111'],
    ['glued to letters after', '4111111111111111abc'],
    ['too long', '41111111111111111111'],
    ['starts with 9', '9111111111111111'],
  ])('finds no card number when it %s: %j', (_why, text) => {
    expect(only(text, 'card')).toEqual([]);
  });

  it.each([
    ['IBAN DE89 3704 0044 0532 0130 00 please', 'DE89 3704 0044 0532 0130 00'],
    ['GB29NWBK60161331926819', 'GB29NWBK60161331926819'],
    ['GB29 NWBK 6016 1331 9268 19', 'GB29 NWBK 6016 1331 9268 19'],
    ['DE89 3704 0044 0532 0130 00 IS MINE', 'DE89 3704 0044 0532 0130 00'],
    ['FR14 2004 1010 0505 0001 3M02 606', 'FR14 2004 1010 0505 0001 3M02 606'],
  ])('finds the IBAN in %j', (text, iban) => {
    expect(only(text, 'iban')).toEqual([iban]);
  });

  it.each([
    'DE89 3704 0044 0532 0130 01',
    'DE89370400440532013001',
    'XDE89370400440532013000',
    'DE89 37 04 00 44 05 32 01 30 00',
  ])('finds no IBAN in %j (bad check digits, no boundary, odd grouping)', (text) => {
    expect(only(text, 'iban')).toEqual([]);
  });

  it.each([
    ['OpenAI', 'key=sk-proj-4f9XkQ2mZ8vLr1TbN6yHc3Wd7Ps0Ea5Gu'],
    ['GitHub', 'token ghp_16C7e42F292c6912E7710c838347Ae178B4a'],
    ['AWS', 'AKIAIOSFODNN7EXAMPLE'],
    ['Slack', 'xoxb-1234567890-abcdefghijKL'],
    ['Google', 'AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q'],
    ['Stripe', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'],
    ['JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
    ['random token', 'session Zx9Qw2Er7Ty5Ui3Op1As8Df6Gh4Jk0LmNbV'],
  ])('finds a %s secret', (_kind, text) => {
    expect(only(text, 'secret')).toHaveLength(1);
  });

  it.each([
    ['a git hash', 'commit 3b18e512dba79e4c8300dd08aeb37f8e728b8dad'],
    ['a UUID', '123e4567-e89b-12d3-a456-426614174000'],
    ['a snake_case identifier', 'this_is_a_very_long_identifier_name_for_tests'],
    ['a CamelCase identifier', 'AbstractSingletonProxyFactoryBeanV2Impl3'],
    ['a short sk- word', 'use sk-learn for that'],
    ['a URL', 'https://github.com/rxscope/rxscope/blob/main/packages/core/src/index.ts'],
  ])('finds no secret in %s', (_kind, text) => {
    expect(only(text, 'secret')).toEqual([]);
  });

  it('resolves overlaps leftmost first and reports offsets', () => {
    const text = 'Mail jane@example.com, card 4111 1111 1111 1111, IBAN DE89370400440532013000.';
    expect(found(text)).toEqual([
      ['email', 'jane@example.com'],
      ['card', '4111 1111 1111 1111'],
      ['iban', 'DE89370400440532013000'],
    ]);
    for (const m of detectPii(text)) expect(text.slice(m.start, m.end)).toBe(m.value);
  });

  it('searches only the types asked for, and from an offset using the text before as context', () => {
    expect(detectPii('a@b.io 4111111111111111', new Set(['card'])).map((m) => m.type)).toEqual(['card']);
    // "x@y.io" is not an address on its own here: its local part starts earlier ("abc").
    expect(detectPii('abcx@y.io', new Set(['email']), 3)).toEqual([]);
  });
});

describe('checksums and hashing', () => {
  it('luhnValid and ibanValid', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(ibanValid('DE89370400440532013000')).toBe(true);
    expect(ibanValid('DE89370400440532013001')).toBe(false);
  });

  it('sha256Hex matches the standard test vectors and Web Crypto', async () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
    for (const text of ['ünïcødé ✓ 🎉', 'x'.repeat(55), 'y'.repeat(56), 'z'.repeat(64), 'w'.repeat(1000)]) {
      const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
      expect(sha256Hex(text)).toBe(Buffer.from(digest).toString('hex'));
    }
  });
});
