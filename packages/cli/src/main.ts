#!/usr/bin/env node
/** kubectl-nodenet: the kubectl plugin (`kubectl nodenet …` once on the PATH, or `npx kubectl-nodenet …`). */
import { escapeControls } from '@nodenet/api';
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
    // run() maps every error to an exit code; this is the last guard: one line, exit 5.
    const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    process.stderr.write(`error: ${escapeControls(text.split('\n')[0] ?? '').slice(0, 500)}\n`);
    process.exitCode = 5;
  },
);
