#!/usr/bin/env node
// The rxscope-eval command (the package's bin): see runCli.
import { runCli } from './cli.js';

runCli(
  process.argv.slice(2),
  { stdout: (t) => void process.stdout.write(t), stderr: (t) => void process.stderr.write(t) },
  Boolean(process.stderr.isTTY),
).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`rxscope-eval: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 2;
  },
);
