import { RxscopeError } from '../error/rxscope-error.js';

/**
 * A JSON value: what survives `JSON.stringify` and `JSON.parse` unchanged.
 *
 * @example
 * ```ts
 * const v: JsonValue = { list: [1, 'two', null] };
 * ```
 */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * A JSON object (the shared state of a session is one).
 *
 * @example
 * ```ts
 * const state: JsonObject = { cart: ['tea'], phase: 'shopping' };
 * ```
 */
export type JsonObject = { readonly [key: string]: JsonValue };

/**
 * One RFC 6902 JSON Patch operation. `path` and `from` are RFC 6901 JSON Pointers (`/a/0/b`,
 * `~1` for `/`, `~0` for `~`; `-` appends to an array).
 *
 * @example
 * ```ts
 * const ops: JsonPatchOperation[] = [{ op: 'replace', path: '/step', value: 2 }];
 * ```
 */
export type JsonPatchOperation =
  | { readonly op: 'add' | 'replace' | 'test'; readonly path: string; readonly value: JsonValue }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'move' | 'copy'; readonly path: string; readonly from: string };

/**
 * A JSON Patch that does not apply to the document it was given (a missing path, a failed
 * `test`, a malformed operation). Code `json_patch_failed`.
 *
 * @example
 * ```ts
 * try { applyJsonPatch(state, delta); } catch (e) { if (e instanceof JsonPatchError) askForSnapshot(); }
 * ```
 */
export class JsonPatchError extends RxscopeError {
  readonly code = 'json_patch_failed';
  override readonly name = 'JsonPatchError';
  constructor(
    message: string,
    /** The index of the operation that failed. */
    readonly index: number,
  ) {
    super(message);
  }
}

type Mutable = Record<string, unknown> | unknown[];

/**
 * Applies RFC 6902 operations to a JSON document and returns the new document; `doc` is not
 * changed. Throws a {@link JsonPatchError} when an operation does not apply (the whole patch is
 * then not applied). What a consumer of `STATE_DELTA` events uses.
 *
 * @example
 * ```ts
 * const next = applyJsonPatch({ todos: ['a'] }, [{ op: 'add', path: '/todos/-', value: 'b' }]);
 * // { todos: ['a', 'b'] }
 * ```
 */
export function applyJsonPatch<T extends JsonValue>(doc: T, patch: readonly JsonPatchOperation[]): T {
  const root = { '': structuredClone(doc) } as Record<string, unknown>;
  patch.forEach((op, i) => applyOne(root, op, i));
  return root[''] as T;
}

function applyOne(root: Record<string, unknown>, op: JsonPatchOperation, i: number): void {
  const fail = (why: string): never => {
    throw new JsonPatchError(`JSON Patch operation #${i} (${op.op} ${op.path}) does not apply: ${why}.`, i);
  };
  if (typeof op.path !== 'string') fail('no path');
  switch (op.op) {
    case 'add':
      return put(root, op.path, clone(op.value), 'add', fail);
    case 'replace':
      return put(root, op.path, clone(op.value), 'replace', fail);
    case 'remove':
      take(root, op.path, fail);
      return;
    case 'move': {
      if (op.path.startsWith(`${op.from}/`)) fail('a value cannot move into itself');
      return put(root, op.path, take(root, op.from, fail), 'add', fail);
    }
    case 'copy':
      return put(root, op.path, structuredClone(read(root, op.from, fail)), 'add', fail);
    case 'test':
      if (!jsonEqual(read(root, op.path, fail), op.value)) fail('the value differs');
      return;
    default:
      fail(`unknown op ${JSON.stringify((op as { op?: unknown }).op)}`);
  }
}

function clone(value: unknown): unknown {
  return value === undefined ? value : structuredClone(value);
}

/** The parent container and last key of a pointer (the root document sits at key '' of `root`). */
function locate(root: Record<string, unknown>, path: string, fail: (why: string) => never): [Mutable, string] {
  if (path === '') return [root, ''];
  if (!path.startsWith('/')) fail('a path starts with /');
  const keys = path
    .slice(1)
    .split('/')
    .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
  let parent: unknown = root[''];
  for (const key of keys.slice(0, -1)) {
    parent = child(parent, key, fail);
  }
  if (parent === null || typeof parent !== 'object') fail('its parent is not an object or array');
  return [parent as Mutable, keys[keys.length - 1]!];
}

function child(container: unknown, key: string, fail: (why: string) => never): unknown {
  if (Array.isArray(container)) return container[index(container, key, false, fail)];
  if (container === null || typeof container !== 'object' || !Object.hasOwn(container, key))
    fail(`no member ${JSON.stringify(key)}`);
  return (container as Record<string, unknown>)[key];
}

function index(array: unknown[], key: string, adding: boolean, fail: (why: string) => never): number {
  if (adding && key === '-') return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(key)) fail(`${JSON.stringify(key)} is not an array index`);
  const n = Number(key);
  if (n > array.length || (!adding && n === array.length)) fail(`index ${n} is out of bounds`);
  return n;
}

function read(root: Record<string, unknown>, path: string, fail: (why: string) => never): unknown {
  const [parent, key] = locate(root, path, fail);
  return child(parent, key, fail);
}

function put(
  root: Record<string, unknown>,
  path: string,
  value: unknown,
  how: 'add' | 'replace',
  fail: (why: string) => never,
): void {
  if (value === undefined) fail('no value');
  const [parent, key] = locate(root, path, fail);
  if (Array.isArray(parent)) {
    const n = index(parent, key, how === 'add', fail);
    if (how === 'add') parent.splice(n, 0, value);
    else parent[n] = value;
    return;
  }
  if (how === 'replace' && !Object.hasOwn(parent, key)) fail(`no member ${JSON.stringify(key)}`);
  parent[key] = value;
}

function take(root: Record<string, unknown>, path: string, fail: (why: string) => never): unknown {
  if (path === '') fail('the whole document cannot be removed');
  const [parent, key] = locate(root, path, fail);
  if (Array.isArray(parent)) return parent.splice(index(parent, key, false, fail), 1)[0];
  if (!Object.hasOwn(parent, key)) fail(`no member ${JSON.stringify(key)}`);
  const value = parent[key];
  delete parent[key];
  return value;
}

/**
 * The JSON Patch that turns `from` into `to`: `add`, `remove` and `replace` operations, member by
 * member (an array that changed length is replaced whole past its common part). Applying it to
 * `from` with {@link applyJsonPatch} gives a document equal to `to`.
 *
 * @example
 * ```ts
 * diffJson({ step: 1, done: false }, { step: 2, done: false }); // [{ op: 'replace', path: '/step', value: 2 }]
 * ```
 */
export function diffJson(from: JsonValue, to: JsonValue, path = ''): JsonPatchOperation[] {
  if (jsonEqual(from, to)) return [];
  if (isObject(from) && isObject(to)) {
    const ops: JsonPatchOperation[] = [];
    for (const key of Object.keys(from)) {
      if (!Object.hasOwn(to, key)) ops.push({ op: 'remove', path: `${path}/${escape(key)}` });
    }
    for (const [key, value] of Object.entries(to)) {
      const at = `${path}/${escape(key)}`;
      if (!Object.hasOwn(from, key)) ops.push({ op: 'add', path: at, value });
      else ops.push(...diffJson(from[key]!, value, at));
    }
    return ops;
  }
  if (Array.isArray(from) && Array.isArray(to)) {
    const a = from as readonly JsonValue[];
    const b = to as readonly JsonValue[];
    const ops: JsonPatchOperation[] = [];
    const common = Math.min(a.length, b.length);
    for (let i = 0; i < common; i++) ops.push(...diffJson(a[i]!, b[i]!, `${path}/${i}`));
    for (let i = a.length - 1; i >= b.length; i--) ops.push({ op: 'remove', path: `${path}/${i}` });
    for (let i = common; i < b.length; i++) ops.push({ op: 'add', path: `${path}/-`, value: b[i]! });
    return ops;
  }
  return [{ op: 'replace', path, value: to }];
}

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function escape(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Deep equality of two JSON values (member order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as never)[k], (b as never)[k]));
}
