/**
 * `diff -f FILE`: input objects from YAML files, laid over the inputs read from the cluster the way
 * `kubectl apply -f` would change them (same kind and name: replaced; new: added).
 */
import { readFileSync } from 'node:fs';
import type { InputObject, Inputs } from '@nodenet/api';
import { parseAllDocuments } from 'yaml';
import { CliError, EXIT } from './exit-codes.js';

const SECTION = {
  VRFRouteConfiguration: 'vrf',
  Layer2NetworkConfiguration: 'layer2',
  RoutingTable: 'routingTable',
} as const;

export function withFiles(inputs: Inputs, files: readonly string[]): Inputs {
  const out: Inputs = {
    vrf: [...inputs.vrf],
    layer2: [...inputs.layer2],
    routingTable: [...inputs.routingTable],
  };
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new CliError(`-f ${file}: ${(err as Error).message}`, EXIT.usage);
    }
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length > 0) throw new CliError(`-f ${file}: ${doc.errors[0]!.message}`, EXIT.usage);
      const obj = doc.toJS() as (InputObject & { items?: InputObject[] }) | null;
      for (const item of obj?.kind === ('List' as string) ? (obj.items ?? []) : obj ? [obj] : [])
        put(out, item, file);
    }
  }
  return out;
}

function put(out: Inputs, obj: InputObject, file: string): void {
  const section = SECTION[obj.kind as keyof typeof SECTION] as keyof Inputs | undefined;
  if (!section) return; // Nodes and other kinds are not inputs of a revision
  if (!obj.metadata?.name) throw new CliError(`-f ${file}: a ${obj.kind} without metadata.name`, EXIT.usage);
  const list = out[section] as InputObject[];
  const i = list.findIndex((o) => o.metadata.name === obj.metadata.name);
  if (i >= 0) list[i] = obj;
  else list.push(obj);
}
