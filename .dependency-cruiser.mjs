// The import graph's rules (issue 43), checked by `npm run lint` (`depcruise packages`):
// no circle in any package; a folder with an index.ts is used from outside only through it (its
// face); and each package's layers point one way (the pure core never imports its shell).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const escapeRegex = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every folder under packages/*\/src that has an index.ts, except the package roots. */
function faces() {
  const found = [];
  const walk = (dir, isRoot) => {
    if (!isRoot && existsSync(join(dir, 'index.ts'))) found.push(dir);
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name), false);
    }
  };
  for (const pkg of readdirSync('packages')) {
    if (existsSync(join('packages', pkg, 'src'))) walk(join('packages', pkg, 'src'), true);
  }
  return found;
}

/** The files a face hides: its own files and those of sub-folders without a face of their own. */
function hiddenBehind(face) {
  const paths = [];
  const walk = (dir) => {
    paths.push(`^${escapeRegex(dir)}/[^/]+\\.ts$`);
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const sub = join(dir, e.name);
      if (e.isDirectory() && !existsSync(join(sub, 'index.ts'))) walk(sub);
    }
  };
  walk(face);
  return paths;
}

const faceRules = faces().map((face) => ({
  name: 'folder-face',
  comment: `${face} is used from outside through its index.ts only`,
  severity: 'error',
  from: { path: '^packages/', pathNot: `^${escapeRegex(face)}/` },
  to: { path: hiddenBehind(face), pathNot: `^${escapeRegex(face)}/index\\.ts$` },
}));

/** `lower` never imports `upper`: the direction of a package's layers. */
const layer = (name, lower, upper) => ({
  name,
  severity: 'error',
  from: { path: lower },
  to: { path: upper },
});

export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A circle of imports means two modules are one concept, or a type sits in the wrong one.',
      severity: 'error',
      from: { path: '^packages/[^/]+/src/' },
      to: { circular: true },
    },
    ...faceRules,
    // The package's own entry (src/index.ts) re-exports the shell for main.ts and the tests.
    layer(
      'agent-core-below-shell',
      '^packages/agent/src/(?!run/|main\\.ts$|index\\.ts$)',
      '^packages/agent/src/(run/|main\\.ts$)',
    ),
    layer(
      'frr-render-pure',
      '^packages/agent/src/frr/(render|text)/',
      '^packages/agent/src/frr/(read|change)/',
    ),
    layer('frr-read-below-change', '^packages/agent/src/frr/read/', '^packages/agent/src/frr/change/'),
    // The pipeline (apply/) reports through its own port (apply/report.ts); status/ delivers it.
    layer('agent-apply-below-status', '^packages/agent/src/apply/', '^packages/agent/src/status/'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules|test|page)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
  },
};
