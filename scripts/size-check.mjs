// Fails when a source file of a package is over 400 lines or a function in one is over 100 lines
// (tests, test helpers and type tests are not counted): one concept per file, a function a reader
// holds in their head. Run by `npm run size:check`, part of `npm test`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 100;
const root = process.cwd();
const isTest = (path) => /\.spec\.ts$|\.test-d\.ts$|\/__tests__\/|\/__type-tests__\//.test(path);
// Test helpers (core's `testing` entries: scripted models, the OpenAI-compatible test server) keep
// the file limit but not the function one: a server's routes read best in one closure.
const isTestHelper = (path) => /\/core\/src\/testing\//.test(path);

function* sources(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist') continue;
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts') && !isTest(path)) yield path;
  }
}

const FUNCTION_KINDS = new Set([
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.FunctionExpression,
  ts.SyntaxKind.ArrowFunction,
  ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.Constructor,
  ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.SetAccessor,
]);

const problems = [];
const packagesDir = join(root, 'packages');
for (const pkg of readdirSync(packagesDir)) {
  const src = join(packagesDir, pkg, 'src');
  try {
    statSync(src);
  } catch {
    continue;
  }
  for (const file of sources(src)) {
    const text = readFileSync(file, 'utf8');
    const rel = relative(root, file);
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_FILE_LINES)
      problems.push(`${rel}: ${lines} lines (at most ${MAX_FILE_LINES}): split it by concept`);
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (FUNCTION_KINDS.has(node.kind) && node.body && !isTestHelper(file)) {
        const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
        const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
        const length = end - start + 1;
        if (length > MAX_FUNCTION_LINES) {
          problems.push(`${rel}:${start + 1}: a function of ${length} lines (at most ${MAX_FUNCTION_LINES})`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
}
for (const p of problems) console.error(p);
if (problems.length) {
  console.error(`size:check: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log('size:check: every source file ≤ 400 lines, every function ≤ 100 lines');
