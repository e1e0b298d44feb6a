/**
 * Writes crds/ from the schemas. `--check` writes nothing and exits 1 when crds/ is stale.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crdFiles } from './crd-files.js';

const dir = fileURLToPath(new URL('../../../crds/', import.meta.url));
const check = process.argv.includes('--check');
const files = crdFiles();
mkdirSync(dir, { recursive: true });
const existing = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
const stale = [
  ...[...files].filter(
    ([name, text]) => !existing.includes(name) || readFileSync(join(dir, name), 'utf8') !== text,
  ),
  ...existing.filter((name) => !files.has(name)).map((name) => [name, ''] as const),
].map(([name]) => name);

if (check) {
  if (stale.length > 0) {
    console.error(`crds/ is stale (${stale.join(', ')}): run npm run generate`);
    process.exit(1);
  }
  console.log('crds/ is up to date');
} else {
  for (const name of existing) if (!files.has(name)) rmSync(join(dir, name));
  for (const [name, text] of files) writeFileSync(join(dir, name), text);
  console.log(`wrote ${files.size} CRDs to crds/ (${stale.length} changed)`);
}
