import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from 'jest';

type Project = Exclude<NonNullable<Config['projects']>[number], string>;

/**
 * Maps every entry point of every package in packages/ to its TypeScript source, read from the
 * package's `exports` map (`./dist/x/index.js` → `src/x/index.ts`), so a new package or subpath
 * is mapped as soon as it is declared, and tests never run against stale builds.
 */
function workspaceModules(): Record<string, string> {
  const packagesDir = join(__dirname, 'packages');
  const map: Record<string, string> = {};
  for (const dir of readdirSync(packagesDir)) {
    const manifest = join(packagesDir, dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string; exports?: Record<string, unknown> };
    for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
      const file = typeof target === 'string' ? target : (target as { default?: string }).default;
      if (!file || !file.startsWith('./dist/') || !file.endsWith('.js')) continue; // ./package.json
      const source = join(packagesDir, dir, 'src', file.slice('./dist/'.length, -'.js'.length) + '.ts');
      const specifier = pkg.name + subpath.slice(1); // '.' → '', './node' → '/node'
      map[`^${specifier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`] = source;
    }
  }
  return map;
}

/** Fails a test on unexpected console output or unhandled errors (scripts/jest-setup.ts). */
const setupFilesAfterEnv = [join(__dirname, 'scripts', 'jest-setup.ts')];

const moduleNameMapper = { ...workspaceModules(), '^(\\.{1,2}/.*)\\.js$': '$1' };

/**
 * ESM-only packages that tests import (arktype and its own packages: arkregex, @ark/*): jest's CommonJS runtime
 * cannot load them as they are, so ts-jest compiles them like the sources. Named as pnpm's store
 * folder (`arktype@2.2.10`, `@ark+util@...`) and as the package folder inside it.
 */
// jose: the A2A SDK's dependency (agent card signatures).
const ESM_ONLY = ['arktype[@/]', 'arkregex[@/]', '@ark[+/]', 'jose[@/]'];
const ESM_ONLY_JS = `/node_modules/\\.pnpm/(${ESM_ONLY.join('|')}).*\\.js$`;

/** One jest project per workspace package; sources are transpiled by ts-jest (CommonJS). */
function project(name: string): Project {
  return {
    displayName: name,
    rootDir: `<rootDir>/packages/${name}`,
    testEnvironment: 'node',
    transform: {
      '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/../../tsconfig.jest.json', diagnostics: false }],
      // ESM-only packages the tests use (arktype), compiled to CommonJS like the sources
      [ESM_ONLY_JS]: [
        'ts-jest',
        { tsconfig: { module: 'CommonJS', allowJs: true, isolatedModules: true }, diagnostics: false },
      ],
    },
    transformIgnorePatterns: [`/node_modules/(?!(\\.pnpm/)?(${ESM_ONLY.join('|')}))`],
    moduleNameMapper,
    setupFilesAfterEnv,
    testMatch: ['<rootDir>/src/**/*.spec.ts'],
  };
}

/**
 * A runnable workspace package outside packages/ (examples, bench). Its tests run the built
 * program (`tsc -b` output) as a child process; imports of the workspace packages map to their sources.
 */
function program(name: string, dir: string): Project {
  const root = `<rootDir>/${dir
    .split('/')
    .map(() => '..')
    .join('/')}`;
  return {
    displayName: name,
    rootDir: `<rootDir>/${dir}`,
    testEnvironment: 'node',
    transform: {
      '^.+\\.ts$': ['ts-jest', { tsconfig: `${root}/tsconfig.jest.json`, diagnostics: false }],
    },
    moduleNameMapper,
    setupFilesAfterEnv,
    testMatch: ['<rootDir>/src/**/*.spec.ts'],
    // bench/.compare holds other commits' checkouts (`npm run bench -- --compare <commit>`).
    modulePathIgnorePatterns: ['<rootDir>/.compare/'],
  };
}

/**
 * The Angular example: unit tests of its plain TypeScript parts (src) and the end-to-end test in
 * Chromium (e2e), which builds the app and serves it with the node-service.
 */
function angularApp(name: string, dir: string): Project {
  return { ...program(name, dir), testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/e2e/**/*.spec.ts'] };
}

/**
 * An Angular package: TestBed specs in jsdom, zoneless (jest-preset-angular compiles Angular's
 * ES modules for jest); its environment hands Node's fetch to the page, so the specs stream from
 * real servers on loopback.
 */
function angularPackage(name: string): Project {
  return {
    displayName: name,
    rootDir: `<rootDir>/packages/${name}`,
    testEnvironment: '<rootDir>/jest/environment.cjs',
    transform: {
      '^.+\\.(ts|js|mjs)$': ['jest-preset-angular', { tsconfig: '<rootDir>/tsconfig.json', diagnostics: false }],
    },
    transformIgnorePatterns: ['node_modules/(?!.*\\.mjs$)'],
    moduleNameMapper,
    setupFilesAfterEnv: ['<rootDir>/jest/setup.ts', ...setupFilesAfterEnv],
    testMatch: ['<rootDir>/src/**/*.spec.ts'],
    modulePathIgnorePatterns: ['<rootDir>/dist/'], // ng-packagr's build has a package.json of its own
  };
}

/**
 * The devtools UI (packages/devtools/ui, an Angular app): its layout functions and components in
 * jsdom, zoneless, like an Angular package; and its end-to-end test in Chromium, which builds the
 * UI and drives it through the node-service.
 */
function devtoolsUi(): Project[] {
  const rootDir = '<rootDir>/packages/devtools/ui';
  return [
    {
      displayName: 'devtools-ui',
      rootDir,
      testEnvironment: 'jest-preset-angular/environments/jest-jsdom-env',
      transform: {
        '^.+\\.(ts|js|mjs|html)$': [
          'jest-preset-angular',
          { tsconfig: '<rootDir>/tsconfig.spec.json', diagnostics: false, stringifyContentPathRegex: '\\.html$' },
        ],
      },
      transformIgnorePatterns: ['node_modules/(?!.*\\.mjs$)'],
      moduleFileExtensions: ['ts', 'html', 'js', 'json', 'mjs'], // templateUrl: the timeline's SVG template
      moduleNameMapper,
      setupFilesAfterEnv: ['<rootDir>/jest/setup.ts', ...setupFilesAfterEnv],
      testMatch: ['<rootDir>/src/**/*.spec.ts'],
    },
    { ...program('devtools-e2e', 'packages/devtools/ui'), testMatch: ['<rootDir>/e2e/**/*.spec.ts'] },
  ];
}

/** The repository's own scripts (plain Node, no workspace imports). */
const scripts: Project = {
  displayName: 'scripts',
  rootDir: '<rootDir>/scripts',
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/../tsconfig.jest.json', diagnostics: false }] },
  testMatch: ['<rootDir>/*.spec.ts'],
  setupFilesAfterEnv,
};

const config: Config = {
  projects: [
    scripts,
    project('core'),
    project('middleware-builtin'),
    project('harness'),
    project('evals'),
    project('devtools'),
    angularPackage('angular'),
    ...devtoolsUi(),
    program('quickstart', 'examples/quickstart'),
    program('tracing-example', 'examples/tracing'),
    program('coding-agent', 'examples/coding-agent'),
    program('evals-presets', 'examples/evals-presets'),
    program('bench', 'bench'),
    angularApp('angular-chat', 'examples/angular-chat'),
    program('node-service', 'examples/node-service'),
    program('worker-pool', 'examples/worker-pool'),
    program('express-sse', 'examples/express-sse'),
    angularApp('react-chat', 'examples/react-chat'),
    program('fastify-sse', 'examples/fastify-sse'),
    program('rag-assistant', 'examples/rag-assistant'),
    program('mcp-agent', 'examples/mcp-agent'),
  ],
};

export default config;
