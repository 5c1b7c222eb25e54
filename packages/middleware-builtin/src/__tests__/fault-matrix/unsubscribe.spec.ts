// The consumer unsubscribing at each phase of a reply, bare and with the built-ins (the checks are
// in unsubscribe-cell.ts; the harness's cells run from packages/harness).
import { Agent } from '@rxscope/core';
import { PHASES, runUnsubscribeCell, unsubscribeBuiltIns } from './unsubscribe-cell.js';

describe('unsubscribing at each phase of a reply (OpenAIChatModel over HTTP)', () => {
  jest.setTimeout(10_000);

  const cells = PHASES.flatMap((p) =>
    p.configurations.filter((c) => c !== 'harness').map((c) => [p.name, c, p] as const),
  );

  it.each(cells)('%s — %s', (_name, config, phase) =>
    runUnsubscribeCell(phase, {
      agent: ({ model, tools }) =>
        new Agent({ model, tools, middlewares: config === 'built-ins' ? unsubscribeBuiltIns() : [] }),
      resume: ({ model, tools, state }) => new Agent({ model, tools, state }),
    }),
  );
});
