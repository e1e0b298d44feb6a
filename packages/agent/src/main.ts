#!/usr/bin/env node
/**
 * `nodenet-agent`: parses the flags (run/options.ts, `--help`), starts the agent (run/run-agent.ts)
 * and stops it on SIGTERM or SIGINT within the shutdown deadline.
 */
import type { Command } from 'commander';
import { describeCause } from './errors.js';
import { buildProgram, resolveOptions, type AgentOptions, type RawOptions } from './run/options.js';
import { runAgent } from './run/run-agent.js';

async function main(argv: string[]): Promise<void> {
  const program: Command = buildProgram();
  program.parse(argv);
  let options: AgentOptions;
  try {
    options = resolveOptions(program.opts<RawOptions>());
  } catch (err) {
    program.error(`error: ${describeCause(err)}`, { exitCode: 2 });
  }
  const agent = await runAgent(options);
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) {
      console.error(`nodenet-agent: ${signal} again, exiting at once`);
      process.exit(1);
    }
    stopping = true;
    console.error(`nodenet-agent: ${signal}, shutting down (deadline ${options.shutdownTimeoutMs} ms)`);
    // A backstop in case something outside the bounded steps keeps the process busy.
    setTimeout(() => process.exit(1), options.shutdownTimeoutMs + 2_000).unref();
    agent.stop().then(
      (result) => {
        if (result.complete) process.exit(0);
        console.error(
          `nodenet-agent: shutdown cut short after ${result.elapsedMs} ms: ${result.unfinished.join('; ')}`,
        );
        process.exit(1);
      },
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

// Run only as the entry point (bin/nodenet-agent.js names it so), never on import.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  main(process.argv).catch((err: unknown) => {
    console.error(`nodenet-agent: ${describeCause(err)}`);
    process.exit(1);
  });
}
