import { applyJsonPatch } from '../json-patch.js';

describe('applyJsonPatch (RFC 6902)', () => {
  const doc = { user: { name: 'Ada', tags: ['a', 'b'] }, other: { x: 1 } };

  it('applies add, remove, replace, move, copy and test without changing the document', () => {
    const out = applyJsonPatch(doc, [
      { op: 'test', path: '/user/name', value: 'Ada' },
      { op: 'add', path: '/user/tags/1', value: 'between' },
      { op: 'add', path: '/user/tags/-', value: 'end' },
      { op: 'remove', path: '/user/tags/0' },
      { op: 'replace', path: '/user/name', value: 'Grace' },
      { op: 'copy', from: '/user/name', path: '/author' },
      { op: 'move', from: '/author', path: '/user/alias' },
      { op: 'add', path: '/a~1b', value: 'escaped' },
    ]) as Record<string, unknown>;
    expect(out).toEqual({
      user: { name: 'Grace', tags: ['between', 'b', 'end'], alias: 'Grace' },
      other: { x: 1 },
      'a/b': 'escaped',
    });
    expect(doc).toEqual({ user: { name: 'Ada', tags: ['a', 'b'] }, other: { x: 1 } });
    expect(out['other']).toBe(doc.other); // untouched branches are shared
  });

  it('replaces the whole document at the root path', () => {
    expect(applyJsonPatch(doc, [{ op: 'replace', path: '', value: { fresh: true } }])).toEqual({ fresh: true });
  });

  it('fails naming the operation, and applies nothing of the patch', () => {
    const attempt = () =>
      applyJsonPatch(doc, [
        { op: 'replace', path: '/user/name', value: 'Grace' },
        { op: 'remove', path: '/user/missing' },
      ]);
    expect(attempt).toThrow(/operation 1 .*"remove".* does not apply: no value at "missing"/);
    expect(doc.user.name).toBe('Ada');
    expect(() => applyJsonPatch(doc, [{ op: 'test', path: '/user/name', value: 'Bob' }])).toThrow(/the test failed/);
    expect(() => applyJsonPatch(doc, [{ op: 'add', path: '/user/tags/9', value: 1 }])).toThrow(/out of bounds/);
    expect(() => applyJsonPatch(doc, [{ op: 'add', path: 'user', value: 1 }])).toThrow(/not a JSON Pointer/);
    expect(() => applyJsonPatch(doc, [{ op: 'jump', path: '/user' } as never])).toThrow(/unknown op "jump"/);
  });
});
