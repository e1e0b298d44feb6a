/**
 * Writes crds/ from the schemas, and deploy/agent-configuration.yaml from deploy/agent/ (issue #36).
 * `--check` writes nothing and exits 1 when either is stale.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crdFiles } from './crd-files.js';
import { agentConfigurationFile } from './agent-configuration-file.js';

const dir = fileURLToPath(new URL('../../../crds/', import.meta.url));
const deployDir = fileURLToPath(new URL('../../../deploy', import.meta.url));
const agentConfigPath = join(deployDir, 'agent-configuration.yaml');
const agentConfig = agentConfigurationFile(deployDir);
const agentConfigStale = (() => {
  try {
    return readFileSync(agentConfigPath, 'utf8') !== agentConfig;
  } catch {
    return true;
  }
})();
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
  if (agentConfigStale) {
    console.error('deploy/agent-configuration.yaml is stale: run npm run generate');
    process.exit(1);
  }
  console.log('crds/ is up to date');
} else {
  for (const name of existing) if (!files.has(name)) rmSync(join(dir, name));
  for (const [name, text] of files) writeFileSync(join(dir, name), text);
  console.log(`wrote ${files.size} CRDs to crds/ (${stale.length} changed)`);
  writeFileSync(agentConfigPath, agentConfig);
  if (agentConfigStale) console.log('wrote deploy/agent-configuration.yaml');
}
