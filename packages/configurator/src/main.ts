#!/usr/bin/env node
/** nodenet-configurator: parses the flags (run/flags.ts, run/options.ts), runs `runConfigurator` until SIGTERM. */
import type { Command } from 'commander';
import { buildProgram } from './run/flags.js';
import {
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  resolveOptions,
  type ConfiguratorOptions,
  type RawOptions,
} from './run/options.js';
import { runConfigurator } from './run/run-configurator.js';

async function main(argv: string[]): Promise<void> {
  // Annotated so that TypeScript sees `program.error` never returns.
  const program: Command = buildProgram();
  program.parse(argv);
  let options: ConfiguratorOptions;
  try {
    options = resolveOptions(program.opts<RawOptions>());
  } catch (err) {
    program.error(`error: ${err instanceof Error ? err.message : String(err)}`, { exitCode: 2 });
  }
  const configurator = await runConfigurator(options);
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) {
      console.error(`nodenet-configurator: ${signal} again, exiting at once`);
      process.exit(1);
    }
    stopping = true;
    const deadlineMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
    console.error(`nodenet-configurator: ${signal}, shutting down (deadline ${deadlineMs} ms)`);
    // A backstop in case something outside the bounded steps keeps the process busy.
    setTimeout(() => process.exit(1), deadlineMs + 2_000).unref();
    configurator.stop(deadlineMs).then(
      (result) => {
        if (result.complete) process.exit(0);
        console.error(
          `nodenet-configurator: shutdown cut short after ${result.elapsedMs} ms: ${result.unfinished.join('; ')}`,
        );
        process.exit(1);
      },
      (err: unknown) => {
        console.error(`nodenet-configurator: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main(process.argv).catch((err: unknown) => {
  console.error(`nodenet-configurator: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
