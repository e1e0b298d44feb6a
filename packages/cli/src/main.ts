#!/usr/bin/env node
/** kubectl-nodenet: the kubectl plugin (`kubectl nodenet …` once on the PATH, or `npx kubectl-nodenet …`). */
import { askOnTerminal, run } from './program.js';

const controller = new AbortController();
process.once('SIGINT', () => {
  // The first Ctrl-C ends `status --watch` after its current draw; a second one kills at once.
  controller.abort();
  process.once('SIGINT', () => process.exit(130));
});

run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  signal: controller.signal,
  ...(process.stdin.isTTY ? { confirm: askOnTerminal } : {}),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err);
    process.exitCode = 5;
  },
);
