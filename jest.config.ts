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
      '^@rxscope/middleware-builtin$': '<rootDir>/../middleware-builtin/src/index.ts',
      '^@rxscope/harness$': '<rootDir>/../harness/src/index.ts',
      '^(\\.{1,2}/.*)\\.js$': '$1',
    },
    testMatch: ['<rootDir>/src/**/*.spec.ts'],
  };
}

const config: Config = {
  projects: [project('core')],
};

export default config;
