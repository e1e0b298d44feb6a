/**
 * `diff -f FILE`: input objects from YAML files, laid over the inputs read from the cluster as
 * `kubectl apply -f` would change them (same kind and name: replaced; new: added). Like `kubectl diff`,
 * each object goes through a server-side dry run first, so the preview uses what the API server would
 * store (schema defaults applied, schema errors reported), not the raw file.
 */
import { readFileSync } from 'node:fs';
import type { InputObject, Inputs } from '@nodenet/api';
import { isNotFound, KubeApiError, type Clients, type ResourceClient } from '@nodenet/kube';
import { parseAllDocuments } from 'yaml';
import { CliError, EXIT } from '../exit-codes.js';
import { asCliError } from './state.js';

const SECTION = {
  VRFRouteConfiguration: 'vrf',
  Layer2NetworkConfiguration: 'layer2',
  RoutingTable: 'routingTable',
  BGPPeering: 'bgpPeering',
  AgentConfiguration: 'agentConfiguration',
} as const;

/** The input objects of the files (Nodes and other kinds are not inputs of a revision). */
export function readInputFiles(files: readonly string[]): { file: string; obj: InputObject }[] {
  const out: { file: string; obj: InputObject }[] = [];
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
      for (const item of obj?.kind === ('List' as string) ? (obj.items ?? []) : obj ? [obj] : []) {
        if (!(item.kind in SECTION)) continue;
        if (!item.metadata?.name)
          throw new CliError(`-f ${file}: a ${item.kind} without metadata.name`, EXIT.usage);
        out.push({ file, obj: item });
      }
    }
  }
  return out;
}

/** The inputs after applying the files, each object as the API server would store it (dry run). */
export async function withFiles(clients: Clients, inputs: Inputs, files: readonly string[]): Promise<Inputs> {
  const out: Inputs = {
    vrf: [...inputs.vrf],
    layer2: [...inputs.layer2],
    routingTable: [...inputs.routingTable],
    bgpPeering: [...(inputs.bgpPeering ?? [])],
    agentConfiguration: [...(inputs.agentConfiguration ?? [])],
  };
  for (const { file, obj } of readInputFiles(files)) {
    const section = SECTION[obj.kind];
    const stored = await dryRunApply(clients[section] as unknown as ResourceClient<InputObject>, obj, file);
    const list = out[section]! as InputObject[];
    const i = list.findIndex((o) => o.metadata.name === obj.metadata.name);
    if (i >= 0) list[i] = stored;
    else list.push(stored);
  }
  return out;
}

async function dryRunApply(
  rc: ResourceClient<InputObject>,
  obj: InputObject,
  file: string,
): Promise<InputObject> {
  const query = { dryRun: 'All', fieldValidation: 'Strict', fieldManager: 'kubectl-nodenet' };
  const body = { ...obj, apiVersion: obj.apiVersion, kind: obj.kind };
  try {
    let existing: InputObject | undefined;
    try {
      existing = await rc.get(obj.metadata.name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    return existing
      ? await rc.client.request<InputObject>('PUT', rc.objectPath(obj.metadata.name), {
          body: {
            ...body,
            metadata: {
              ...existing.metadata,
              ...obj.metadata,
              resourceVersion: existing.metadata.resourceVersion,
            },
          },
          query,
        })
      : await rc.client.request<InputObject>('POST', rc.collectionPath(), { body, query });
  } catch (err) {
    if (err instanceof KubeApiError && (err.statusCode === 422 || err.statusCode === 400))
      throw new CliError(
        `-f ${file}: ${obj.kind} ${obj.metadata.name}: ${err.serverMessage}`,
        EXIT.attention,
      );
    throw asCliError(err);
  }
}
