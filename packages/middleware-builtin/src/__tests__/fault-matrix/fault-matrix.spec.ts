// The fault matrix of docs/RELIABILITY.md: each fault of matrix.ts, bare and with the built-ins,
// through the real OpenAIChatModel over HTTP (cell.ts holds the checks of a cell). The harness
// column runs from packages/harness/src/__tests__/fault-matrix.spec.ts on the same table.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from '@rxscope/core';
import { RetryMiddleware } from '../../retry/index.js';
import { TimeoutMiddleware } from '../../timeout/index.js';
import { BOUND_MS, FAULT_TOOLS, runCell } from './cell.js';
import { type Configuration, FAULTS, matrixTable } from './matrix.js';

const CONFIGURATIONS: readonly Configuration[] = ['bare', 'built-ins'];
const cells = FAULTS.flatMap((fault) => CONFIGURATIONS.map((config) => [fault.name, config, fault] as const));

describe('fault matrix: OpenAIChatModel over HTTP, bare and with the built-ins', () => {
  jest.setTimeout(BOUND_MS * 2.5); // above BOUND_MS, so a hang fails on the cell's own bound

  it.each(cells)('%s — %s', (_name, config, fault) =>
    runCell(fault, config, {
      agent: ({ model, middlewares, store, sessionId }) =>
        new Agent({
          model,
          tools: [...FAULT_TOOLS],
          middlewares: [
            ...(config === 'built-ins'
              ? [
                  new RetryMiddleware({ initialDelayMs: 20, maxDelayMs: 50, jitter: 0 }),
                  new TimeoutMiddleware({ idleMs: 300, toolCallMs: 200 }),
                ]
              : []),
            ...middlewares,
          ],
          ...(store && { store, sessionId }),
        }),
      resume: ({ model, state }) => new Agent({ model, tools: [...FAULT_TOOLS], state }),
    }),
  );

  // FAULT_MATRIX_WRITE=1 writes the table into the docs (between its two markers) from matrix.ts.
  it('docs/RELIABILITY.md shows this matrix', () => {
    const path = join(__dirname, '../../../../../docs/RELIABILITY.md');
    const [start, end] = ['<!-- fault-matrix:start -->', '<!-- fault-matrix:end -->'];
    let docs = readFileSync(path, 'utf8');
    if (process.env['FAULT_MATRIX_WRITE']) {
      docs = docs.replace(new RegExp(`${start}[\\s\\S]*${end}`), `${start}\n${matrixTable()}\n${end}`);
      writeFileSync(path, docs);
    }
    expect(docs).toContain(`${start}\n${matrixTable()}\n${end}`);
  });
});
