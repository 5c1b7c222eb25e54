/**
 * One RFC 6902 JSON Patch operation (what a `STATE_DELTA` event carries).
 *
 * @example
 * ```ts
 * const op: JsonPatchOperation = { op: 'replace', path: '/plan/0/done', value: true };
 * ```
 */
export type JsonPatchOperation =
  | { readonly op: 'add' | 'replace' | 'test'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'move' | 'copy'; readonly from: string; readonly path: string };

/**
 * Applies RFC 6902 JSON Patch operations to a JSON document without changing it: the result
 * shares every untouched branch with `document` (signals and `track` see only what changed).
 * Throws an `Error` naming the operation when one does not apply (a missing path, a failed
 * `test`, an unknown `op`); the patch is then applied not at all.
 *
 * @example
 * ```ts
 * applyJsonPatch({ todos: [] }, [{ op: 'add', path: '/todos/-', value: 'write docs' }]);
 * // { todos: ['write docs'] }
 * ```
 */
export function applyJsonPatch(document: unknown, operations: readonly JsonPatchOperation[]): unknown {
  if (!Array.isArray(operations)) throw new Error('A JSON Patch is an array of operations.');
  let doc = document;
  (operations as readonly JsonPatchOperation[]).forEach((op, index) => {
    const where = `operation ${index} (${JSON.stringify(op).slice(0, 120)})`;
    try {
      doc = applyOne(doc, op);
    } catch (e) {
      throw new Error(`JSON Patch ${where} does not apply: ${(e as Error).message}`, { cause: e });
    }
  });
  return doc;
}

function applyOne(doc: unknown, op: JsonPatchOperation): unknown {
  if (typeof op !== 'object' || op === null || typeof op.path !== 'string') throw new Error('not an operation');
  switch (op.op) {
    case 'add':
      return update(doc, pointer(op.path), (parent, key) => insert(parent, key, op.value));
    case 'remove':
      return update(doc, pointer(op.path), (parent, key) => remove(parent, key));
    case 'replace':
      return update(doc, pointer(op.path), (parent, key) => {
        get(parent, [key]); // replace needs an existing value
        return set(parent, key, op.value);
      });
    case 'test':
      if (JSON.stringify(get(doc, pointer(op.path))) !== JSON.stringify(op.value)) throw new Error('the test failed');
      return doc;
    case 'copy':
      return applyOne(doc, { op: 'add', path: op.path, value: get(doc, pointer(op.from)) });
    case 'move': {
      const value = get(doc, pointer(op.from));
      return applyOne(applyOne(doc, { op: 'remove', path: op.from }), { op: 'add', path: op.path, value });
    }
    default:
      throw new Error(`unknown op "${String((op as { op?: unknown }).op)}"`);
  }
}

/** RFC 6901: "/a/b~1c" → ["a", "b/c"]. */
function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new Error(`"${path}" is not a JSON Pointer`);
  return path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function get(doc: unknown, keys: readonly string[]): unknown {
  let node = doc;
  for (const key of keys) {
    if (Array.isArray(node)) node = node[index(node, key, false)];
    else if (isObject(node) && Object.prototype.hasOwnProperty.call(node, key)) node = node[key];
    else throw new Error(`no value at "${key}"`);
  }
  return node;
}

/** Copies the path down to the parent of the last key and lets `change` replace that parent. */
function update(doc: unknown, keys: readonly string[], change: (parent: unknown, key: string) => unknown): unknown {
  if (keys.length === 0) return (change({ '': doc }, '') as Record<string, unknown>)[''];
  const [head, ...rest] = keys as [string, ...string[]];
  if (rest.length === 0) return change(doc, head);
  const child = get(doc, [head]);
  const next = update(child, rest, change);
  return set(doc, head, next);
}

/** Replaces the value at an existing key or index, keeping the others in place. */
function set(parent: unknown, key: string, value: unknown): unknown {
  if (Array.isArray(parent)) {
    const copy: unknown[] = [...(parent as unknown[])];
    copy[index(copy, key, false)] = value;
    return copy;
  }
  return { ...(parent as Record<string, unknown>), [key]: value };
}

function insert(parent: unknown, key: string, value: unknown): unknown {
  if (Array.isArray(parent)) {
    const copy: unknown[] = [...(parent as unknown[])];
    copy.splice(key === '-' ? copy.length : index(copy, key, true), 0, value);
    return copy;
  }
  if (!isObject(parent)) throw new Error(`the parent of "${key}" is not an object or array`);
  return { ...parent, [key]: value };
}

function remove(parent: unknown, key: string): unknown {
  if (Array.isArray(parent)) {
    const copy: unknown[] = [...(parent as unknown[])];
    copy.splice(index(copy, key, false), 1);
    return copy;
  }
  if (!isObject(parent) || !Object.prototype.hasOwnProperty.call(parent, key)) throw new Error(`no value at "${key}"`);
  const copy = { ...parent };
  delete copy[key];
  return copy;
}

function index(array: readonly unknown[], key: string, end: boolean): number {
  if (!/^(0|[1-9][0-9]*)$/.test(key)) throw new Error(`"${key}" is not an array index`);
  const i = Number(key);
  if (i > array.length || (!end && i === array.length)) throw new Error(`index ${i} is out of bounds`);
  return i;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
