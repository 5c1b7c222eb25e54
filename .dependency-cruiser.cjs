/**
 * The import rules `npm run deps:check` holds the packages to (part of `npm test`): no import
 * cycle anywhere, and in the harness a folder uses another only through its index.ts.
 */
const HARNESS = '^packages/harness/src/';
// The package's doors (entry points and tests) may import any file.
const DOORS = `${HARNESS}(redis|bullmq|mcp|__tests__|__type-tests__)/`;

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: every floor builds only on what is below it.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'harness-feature-through-index',
      severity: 'error',
      comment: "A harness feature uses another only through that folder's index.ts.",
      from: { path: `${HARNESS}([^/]+)/`, pathNot: [DOORS, `${HARNESS}assembly/`, '\\.spec\\.ts$'] },
      to: { path: `${HARNESS}[^/]+/.+`, pathNot: [`${HARNESS}$1/`, `${HARNESS}[^/]+/index\\.ts$`] },
    },
    {
      name: 'harness-assembly-through-index-or-part',
      severity: 'error',
      comment: "The builder takes a feature's part (<feature>-part(s).ts) and otherwise only its index.ts.",
      from: { path: `${HARNESS}assembly/`, pathNot: '\\.spec\\.ts$' },
      to: {
        path: `${HARNESS}[^/]+/.+`,
        pathNot: [`${HARNESS}assembly/`, `${HARNESS}[^/]+/index\\.ts$`, `${HARNESS}[^/]+/[^/]+-parts?\\.ts$`],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
  },
};
