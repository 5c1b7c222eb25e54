import type { Config } from 'jest';

type Project = Exclude<NonNullable<Config['projects']>[number], string>;

/** One jest project per workspace package; sources are transpiled by ts-jest (CommonJS). */
function project(name: string): Project {
  return {
    displayName: name,
    rootDir: `<rootDir>/packages/${name}`,
    testEnvironment: 'node',
    transform: {
      '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/../../tsconfig.jest.json', diagnostics: false }],
    },
    moduleNameMapper: {
      '^@rxscope/core$': '<rootDir>/../core/src/index.ts',
      '^@rxscope/core/testing$': '<rootDir>/../core/src/testing/index.ts',
      '^@rxscope/core/testing/node$': '<rootDir>/../core/src/testing/node/index.ts',
      '^@rxscope/core/node$': '<rootDir>/../core/src/node/index.ts',
      '^@rxscope/middleware-builtin$': '<rootDir>/../middleware-builtin/src/index.ts',
      '^@rxscope/harness$': '<rootDir>/../harness/src/index.ts',
      '^(\\.{1,2}/.*)\\.js$': '$1',
    },
    testMatch: ['<rootDir>/src/**/*.spec.ts'],
  };
}

/**
 * A runnable workspace package outside packages/ (examples, bench). Its tests run the built
 * program (`tsc -b` output) as a child process; only `@rxscope/core` is mapped to its sources.
 */
function program(name: string, dir: string): Project {
  const root = `<rootDir>/${dir.split('/').map(() => '..').join('/')}`;
  return {
    displayName: name,
    rootDir: `<rootDir>/${dir}`,
    testEnvironment: 'node',
    transform: {
      '^.+\\.ts$': ['ts-jest', { tsconfig: `${root}/tsconfig.jest.json`, diagnostics: false }],
    },
    moduleNameMapper: {
      '^@rxscope/core$': `${root}/packages/core/src/index.ts`,
      '^@rxscope/core/node$': `${root}/packages/core/src/node/index.ts`,
      '^@rxscope/core/testing$': `${root}/packages/core/src/testing/index.ts`,
      '^@rxscope/core/testing/node$': `${root}/packages/core/src/testing/node/index.ts`,
      '^(\\.{1,2}/.*)\\.js$': '$1',
    },
    testMatch: ['<rootDir>/src/**/*.spec.ts'],
  };
}

/**
 * The Angular example: unit tests of its plain TypeScript parts (src) and the end-to-end test in
 * Chromium (e2e), which builds the app and serves it with the node-service.
 */
function angularApp(name: string, dir: string): Project {
  return { ...program(name, dir), testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/e2e/**/*.spec.ts'] };
}

/** The repository's own scripts (plain Node, no workspace imports). */
const scripts: Project = {
  displayName: 'scripts',
  rootDir: '<rootDir>/scripts',
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/../tsconfig.jest.json', diagnostics: false }] },
  testMatch: ['<rootDir>/*.spec.ts'],
};

const config: Config = {
  projects: [
    scripts,
    project('core'),
    project('middleware-builtin'),
    project('harness'),
    program('quickstart', 'examples/quickstart'),
    program('tracing-example', 'examples/tracing'),
    program('bench', 'bench'),
    angularApp('angular-chat', 'examples/angular-chat'),
    program('node-service', 'examples/node-service'),
    program('express-sse', 'examples/express-sse'),
    program('fastify-sse', 'examples/fastify-sse'),
  ],
};

export default config;
