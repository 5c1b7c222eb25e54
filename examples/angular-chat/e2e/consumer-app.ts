// The files of a fresh Angular app that uses @rxscope/angular as a newcomer would, outside the
// workspace (the consumer test writes them into a temporary folder and installs with npm).

/** Angular's versions as the workspace pins them (pnpm-workspace.yaml's catalog). */
export function catalogVersion(workspaceYaml: string, name: string): string {
  const escaped = name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const match = new RegExp(`^  '?${escaped}'?: (\\S+)`, 'm').exec(workspaceYaml);
  if (!match) throw new Error(`pnpm-workspace.yaml's catalog has no ${name}`);
  return match[1]!;
}

const MAIN_TS = `import { ChangeDetectionStrategy, Component, provideZonelessChangeDetection } from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';
import { injectAgentChat, provideRxscope } from '@rxscope/angular';

@Component({
  selector: 'app-root',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: \`
    <button id="send" (click)="chat.send('Refund order 7')">Send</button>
    <output id="status">{{ chat.status() }}</output>
    <p id="streaming">{{ chat.streamingText() }}</p>
    @for (m of chat.messages(); track m.id) {
      <p class="message" [attr.data-role]="m.role">{{ m.text }}</p>
    }
    @for (c of chat.toolCalls(); track c.id) {
      <p class="call" [attr.data-status]="c.status">{{ c.name }} {{ c.output }}</p>
    }
    @for (p of chat.pendingConfirmations(); track p.toolCallId) {
      <button class="approve" (click)="chat.confirm(p.toolCallId)">Approve {{ p.name }} {{ json(p.input) }}</button>
    }
  \`,
})
class App {
  readonly chat = injectAgentChat();
  json(value: unknown): string {
    return JSON.stringify(value);
  }
}

bootstrapApplication(App, {
  providers: [provideZonelessChangeDetection(), provideRxscope({ url: '/chat', transport: 'sse' })],
}).catch((err: unknown) => console.error(err));
`;

const INDEX_HTML = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>consumer</title><base href="/" /><link rel="icon" href="data:," /></head>
  <body><app-root></app-root></body>
</html>
`;

const ANGULAR_JSON = {
  $schema: './node_modules/@angular/cli/lib/config/schema.json',
  version: 1,
  cli: { analytics: false },
  newProjectRoot: 'projects',
  projects: {
    app: {
      projectType: 'application',
      root: '',
      sourceRoot: 'src',
      architect: {
        build: {
          builder: '@angular/build:application',
          options: {
            browser: 'src/main.ts',
            index: 'src/index.html',
            tsConfig: 'tsconfig.json',
            outputPath: { base: 'dist', browser: 'browser' },
            // CommonJS dependencies of @rxscope/core's root entry (tool schemas, permission rules).
            allowedCommonJsDependencies: ['ajv', 'ajv/dist/2020.js', 'picomatch', 'openai', 'p-queue', 'base64-js'],
          },
        },
      },
    },
  },
};

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    target: 'ES2022',
    module: 'preserve',
    moduleResolution: 'bundler',
    lib: ['ES2022', 'DOM'],
    experimentalDecorators: true,
    skipLibCheck: true,
    isolatedModules: true,
    types: [],
  },
  angularCompilerOptions: { strictTemplates: true },
  files: ['src/main.ts'],
};

/** Every file of the app, by path, with the package.json of the given dependencies. */
export function consumerAppFiles(
  dependencies: Record<string, string>,
  devDependencies: Record<string, string>,
): Record<string, string> {
  const manifest = { name: 'my-angular-app', version: '1.0.0', private: true, dependencies, devDependencies };
  return {
    'package.json': JSON.stringify(manifest, null, 2),
    'angular.json': JSON.stringify(ANGULAR_JSON, null, 2),
    'tsconfig.json': JSON.stringify(TSCONFIG, null, 2),
    'src/main.ts': MAIN_TS,
    'src/index.html': INDEX_HTML,
  };
}
