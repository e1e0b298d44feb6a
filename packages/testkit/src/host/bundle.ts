/**
 * Bundles a guest script (TypeScript, importing workspace sources) into one plain ES module for the
 * VM: under emulation, loading tsx and transpiling dozens of files costs minutes, a bundle seconds.
 * Native packages (netlink) stay external and resolve from the repository's node_modules, so the
 * bundle is written inside the repository (`test/vm/dist/`, ignored by git and the linters): the guest sees the
 * host's file system, but not the host's /tmp.
 */
import { mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

// packages/testkit/{src,dist}/host/ → the repository root.
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const packages = ['api', 'kube', 'devcluster', 'configurator', 'agent', 'cli'];

/** Bundles `entry` (path relative to the repository root) and returns the bundle's absolute path. */
export async function bundleGuest(entry: string, external: string[] = ['netlink']): Promise<string> {
  const outDir = join(repoRoot, 'test/vm/dist');
  mkdirSync(outDir, { recursive: true });
  const outfile = join(outDir, `${basename(entry).replace(/\.ts$/, '')}-${process.pid}.mjs`);
  await build({
    entryPoints: [join(repoRoot, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external,
    alias: {
      ...Object.fromEntries(
        packages.map((p) => [`@nodenet/${p}`, join(repoRoot, `packages/${p}/src/index.ts`)]),
      ),
      // The agent's second entry (its pure host plan, which the configurator imports): an exact
      // alias, else esbuild appends the subpath to the package's index.ts.
      '@nodenet/agent/host-plan': join(repoRoot, 'packages/agent/src/host-plan/index.ts'),
    },
    logLevel: 'error',
    // CommonJS dependencies (@kubernetes/client-node's, yaml's dist) `require` node built-ins, which
    // esbuild's ES output only supports through a `require` in scope.
    banner: {
      js: "import { createRequire as nodenetCreateRequire } from 'node:module'; const require = nodenetCreateRequire(import.meta.url);",
    },
  });
  return outfile;
}
