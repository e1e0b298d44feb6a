/** For ad-hoc use: `npx tsx packages/testkit/scripts/run-in-vm.ts -- <command…>` runs the command in a guest and prints its output. */
import { runInVm } from '@nodenet/testkit';

const argv = process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--'));
if (argv.length === 0) {
  console.error(
    'usage: npx tsx packages/testkit/scripts/run-in-vm.ts -- <command> [args…]   (runs it in a real-kernel VM)',
  );
  process.exit(2);
}
const r = await runInVm({ command: argv });
process.stdout.write(r.output);
if (r.exitCode === null)
  process.stderr.write(`\n[vm] no exit code (timedOut=${r.timedOut}); console:\n${r.console}\n`);
console.error(`[vm] exit ${r.exitCode} in ${r.durationMs} ms`);
process.exit(r.exitCode ?? 1);
