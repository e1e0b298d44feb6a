/** Loading CustomResourceDefinitions from a directory of YAML files (`--crds DIR`). */
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { isObject, type KObject } from './objects/types.js';

export class CrdLoadError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = 'CrdLoadError';
  }
}

/** Every CustomResourceDefinition document in `*.yaml` / `*.yml` / `*.json` files of `dir` (sorted by file name). */
export function readCrds(dir: string): { file: string; crd: KObject }[] {
  if (!fs.existsSync(dir)) throw new CrdLoadError(dir, 'CRD directory does not exist');
  const files = fs
    .readdirSync(dir)
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .sort();
  const out: { file: string; crd: KObject }[] = [];
  for (const f of files) {
    const file = path.join(dir, f);
    for (const doc of parseAllDocuments(fs.readFileSync(file, 'utf8'))) {
      if (doc.errors.length) throw new CrdLoadError(file, doc.errors[0]?.message ?? 'invalid YAML');
      const v: unknown = doc.toJS();
      if (v === null || v === undefined) continue;
      if (!isObject(v)) throw new CrdLoadError(file, 'document is not an object');
      if (v.kind !== 'CustomResourceDefinition') continue;
      out.push({ file, crd: v as KObject });
    }
  }
  return out;
}
