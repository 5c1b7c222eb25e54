// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import rxjsX from 'eslint-plugin-rxjs-x';

export default tseslint.config(
  {
    // The evals CLI spec's suite files are plain ES modules a user would write, run by the built bin;
    // packages/*/jest/*.cjs: jest environments (plain CommonJS, outside every TypeScript program).
    ignores: [
      '**/dist/**',
      '**/dist-ui/**', // the devtools UI as built
      '**/node_modules/**',
      '**/*.d.ts',
      'bench/.compare/**',
      'packages/evals/src/__tests__/fixtures/**',
      'packages/*/jest/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  rxjsX.configs.strict,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Getters in an object literal are new closures per object: every object gets a hidden class
    // of its own, which V8 keeps reachable until a full GC together with everything the closures
    // hold. In code that runs per agent, reply or call that promoted whole replies to the old
    // generation (docs/BENCHMARKS.md, performance round 2). Use a class, or Object.defineProperty
    // with one shared getter function.
    files: ['packages/*/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/__tests__/**', '**/__type-tests__/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "ObjectExpression > Property[kind='get'], ObjectExpression > Property[kind='set']",
          message:
            'No getters or setters in object literals: each object gets its own hidden class, kept until a full GC with what the closures hold. Use a class, or Object.defineProperty with a shared getter.',
        },
      ],
    },
  },
  {
    // The Angular example has no tsconfig.json of its own: its app and spec programs say which files it has.
    files: ['examples/angular-chat/**/*.ts'],
    languageOptions: {
      parserOptions: {
        projectService: false,
        project: ['./examples/angular-chat/tsconfig.app.json', './examples/angular-chat/tsconfig.spec.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    // The devtools UI is an Angular app inside the package: its app and spec programs say which files it has.
    files: ['packages/devtools/ui/**/*.ts'],
    languageOptions: {
      parserOptions: {
        projectService: false,
        project: ['./packages/devtools/ui/tsconfig.ui.json', './packages/devtools/ui/tsconfig.spec.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    files: ['**/*.spec.ts', '**/__tests__/**/*.ts', '**/testing/**/*.ts', '**/*.test-d.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      'rxjs-x/no-ignored-subscription': 'off',
      'rxjs-x/no-subject-value': 'off',
      'rxjs-x/no-topromise': 'off',
      // Tests await whole replies with lastValueFrom and subscribe to observe cancellation.
      'rxjs-x/no-ignored-default-value': 'off',
      'rxjs-x/no-ignored-error': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
