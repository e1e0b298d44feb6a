import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const pkg = (name: string): string =>
  fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url));

// Tests import the packages' TypeScript sources directly, so `vitest` needs no prior build;
// suites that spawn the real binaries build first (npm test runs `tsc -b` before vitest).
export default defineConfig({
  resolve: {
    alias: {
      '@nodenet/api': pkg('api'),
      '@nodenet/kube': pkg('kube'),
      '@nodenet/devcluster': pkg('devcluster'),
      '@nodenet/configurator': pkg('configurator'),
      // Before '@nodenet/agent', which would match it as a path inside the package.
      '@nodenet/agent/host-plan': fileURLToPath(
        new URL('./packages/agent/src/host-plan/index.ts', import.meta.url),
      ),
      '@nodenet/agent': pkg('agent'),
      '@nodenet/cli': pkg('cli'),
      '@nodenet/testkit': pkg('testkit'),
    },
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
