/**
 * The import rules `npm run deps:check` holds the packages to (part of `npm test`): no import
 * cycle anywhere, core's folders build only on the floors below them, and in the harness a
 * folder uses another only through its index.ts.
 */
const CORE = '^packages/core/src/';
// Core's floors, lowest first: a folder may import its own floor and those below, never above.
// docs/internals.md draws the same picture.
const CORE_FLOORS = [
  ['util', 'error'],
  ['message'],
  ['event'],
  ['model'],
  ['tool'],
  ['permission'],
  ['state'],
  ['middleware'],
  ['agent'],
  ['operators', 'testing', 'transport', 'internal', 'langchain'],
  ['node'],
];
const coreFloorRules = CORE_FLOORS.slice(0, -1).map((floor, i) => ({
  name: `core-no-upward-import-from-${floor.join('-')}`,
  severity: 'error',
  comment: `core/src/{${floor.join(',')}} is below ${CORE_FLOORS.slice(i + 1)
    .flat()
    .join(', ')}: it must not import them.`,
  from: { path: `${CORE}(${floor.join('|')})/`, pathNot: '\\.spec\\.ts$|/__tests__/' },
  to: {
    path: `${CORE}(${CORE_FLOORS.slice(i + 1)
      .flat()
      .join('|')})/`,
  },
}));
const HARNESS = '^packages/harness/src/';
// The package's doors (entry points and tests) may import any file.
const DOORS = `${HARNESS}(redis|bullmq|mcp|__tests__|__type-tests__)/`;

module.exports = {
  forbidden: [
    ...coreFloorRules,
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
    {
      name: 'angular-browser-safe-core-only',
      severity: 'error',
      comment:
        "@rxscope/angular runs in the browser and builds on the core's public, browser-safe root entry: no Node entry (node, testing/node), no internal one, no file of the core's sources.",
      from: { path: '^packages/angular/src/', pathNot: '/__tests__/' },
      to: { path: ['^packages/core/', '^@rxscope/core/(node|internal|testing)'] },
    },
    {
      name: 'devtools-root-entry-browser-safe',
      severity: 'error',
      comment:
        "@rxscope/devtools' root entry (recorder, middleware, record types) is imported by the devtools page: no Node built-in, no Node entry of the core; the HTTP handler lives in src/node/.",
      from: {
        path: '^packages/devtools/src/',
        pathNot: ['^packages/devtools/src/node/', '\\.spec\\.ts$', '/__tests__/'],
      },
      to: {
        dependencyTypesNot: ['type-only'],
        path: [
          '^node:',
          '^(fs|http|net|path|os|crypto|module|url)$',
          '^packages/core/src/(node|internal|testing)/',
          '^@rxscope/core/(node|internal|testing)',
        ],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
  },
};
