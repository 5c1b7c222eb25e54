// The public/internal split of docs/public-api.md: the engine's pieces listed there are exported
// by @rxscope/core/internal and not by the root entry, so they cannot slip back into the public API.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as root from '../index.js';
import * as internal from './index.js';

/** The names in the first column of the docs' "moved to @rxscope/core/internal" table. */
function documentedInternals(): string[] {
  const doc = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'public-api.md'), 'utf8');
  const table = doc.slice(doc.indexOf('| export | why it is internal |'));
  const rows = table.split('\n').filter((line) => line.startsWith('| `'));
  return rows.flatMap((row) => [...row.split(' | ')[0]!.matchAll(/`(\w+)`/g)].map((m) => m[1]!));
}

describe('@rxscope/core/internal', () => {
  it('holds exactly the values docs/public-api.md lists as internal, and the root entry none of them', () => {
    const names = documentedInternals();
    expect(names).toEqual(
      expect.arrayContaining(['decidePermission', 'ruleMatches', 'composeChain', 'migrateState', 'parseToolArguments']),
    );
    const values = names.filter((n) => /^[a-z]/.test(n)); // the others are types
    expect(Object.keys(internal).sort()).toEqual(values.sort());
    for (const name of names) expect(root).not.toHaveProperty(name);
  });

  it('keeps what the root entry documents for adapter and middleware authors public', () => {
    for (const name of [
      'newId',
      'toModelError',
      'parseRetryAfter',
      'toErrorInfo',
      'createEvent',
      'Permissions',
      'parseAgentState',
    ])
      expect(root).toHaveProperty(name);
  });
});
