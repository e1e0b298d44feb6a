import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { crdFiles } from '../scripts/crd-files.js';

const dir = fileURLToPath(new URL('../../../crds/', import.meta.url));

describe('crds/', () => {
  const files = crdFiles();

  it('is exactly what npm run generate writes', () => {
    const onDisk = readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .sort();
    expect(onDisk).toEqual([...files.keys()].sort());
    for (const [name, text] of files) {
      expect(readFileSync(`${dir}${name}`, 'utf8'), `crds/${name} is stale: run npm run generate`).toBe(text);
    }
  });

  it('bounds every list (maxItems), map (maxProperties) and string (maxLength or enum)', () => {
    const unbounded: string[] = [];
    const walk = (n: Record<string, any> | undefined, path: string): void => {
      if (!n) return;
      if (n.type === 'string' && n.maxLength === undefined && !n.enum) unbounded.push(`${path} (string)`);
      if (n.type === 'array' && n.maxItems === undefined) unbounded.push(`${path} (list)`);
      if (n.type === 'object' && n.additionalProperties && n.maxProperties === undefined)
        unbounded.push(`${path} (map)`);
      for (const [k, v] of Object.entries(n.properties ?? {})) walk(v as Record<string, any>, `${path}.${k}`);
      if (n.items) walk(n.items, `${path}[]`);
      if (typeof n.additionalProperties === 'object') walk(n.additionalProperties, `${path}{}`);
    };
    for (const text of files.values()) {
      const crd = parse(text);
      const root = crd.spec.versions[0].schema.openAPIV3Schema;
      walk(root.properties.spec, `${crd.spec.names.kind}.spec`);
      walk(root.properties.status, `${crd.spec.names.kind}.status`);
    }
    expect(unbounded).toEqual([]);
  });

  it('defines eight cluster-scoped kinds with status, category nodenet and printer columns', () => {
    const crds = [...files.values()].map((t) => parse(t));
    expect(crds.map((c) => c.spec.names.kind).sort()).toEqual([
      'AgentConfiguration',
      'BGPPeering',
      'Layer2NetworkConfiguration',
      'NetworkConfigRevision',
      'NodeConfig',
      'RolloutPolicy',
      'RoutingTable',
      'VRFRouteConfiguration',
    ]);
    for (const crd of crds) {
      expect(crd.spec.scope).toBe('Cluster');
      expect(crd.spec.group).toBe('network.nodenet.io');
      expect(crd.spec.names.categories).toEqual(['nodenet']);
      const version = crd.spec.versions[0];
      expect(version.name).toBe('v1alpha1');
      expect(version.subresources).toEqual({ status: {} });
      expect(version.additionalPrinterColumns.length).toBeGreaterThan(1);
    }
  });

  it('is structural: no anyOf/const/patternProperties, and no additionalProperties beside properties', () => {
    const walk = (node: unknown, path: string): void => {
      if (!node || typeof node !== 'object') return;
      const n = node as Record<string, unknown>;
      for (const bad of ['anyOf', 'oneOf', 'const', 'patternProperties', '$id']) {
        expect(n[bad], `${path}.${bad}`).toBeUndefined();
      }
      if (n.properties) expect(n.additionalProperties, path).toBeUndefined();
      for (const [k, v] of Object.entries(n)) walk(v, `${path}.${k}`);
    };
    for (const text of files.values()) walk(parse(text).spec.versions[0].schema, 'schema');
  });

  it('carries the ranges, patterns and defaults users rely on', () => {
    const schemaOf = (plural: string) =>
      parse(files.get(`${plural}.yaml`)!).spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
    const l2 = schemaOf('layer2networkconfigurations');
    expect([l2.id.minimum, l2.id.maximum]).toEqual([1, 4094]);
    expect([l2.vni.minimum, l2.vni.maximum]).toEqual([1, 16777215]);
    expect([l2.mtu.minimum, l2.mtu.maximum]).toEqual([1000, 9000]);
    expect(l2.anycastMac.pattern).toBeDefined();
    const vrf = schemaOf('vrfrouteconfigurations');
    expect(vrf.mtu.default).toBe(9000);
    expect([vrf.seq.minimum, vrf.seq.maximum]).toEqual([1, 65534]);
    expect(vrf.vrf.maxLength).toBe(12);
    expect(vrf.import.items.properties.action.enum).toEqual(['permit', 'deny']);
    expect([vrf.import.items.properties.ge.minimum, vrf.import.items.properties.ge.maximum]).toEqual([
      0, 128,
    ]);
    expect(vrf.import.items.properties.seq.minimum).toBe(1);
    expect(vrf.community.pattern).toBeDefined();
    expect(vrf.routeTarget.pattern).toBeDefined();
  });
});
