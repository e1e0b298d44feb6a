/**
 * Live devices are changed in place, as a property over accepted configurations: for any two
 * accepted input sets A and B (a change from A to B on a node), the diff from A's applied devices
 * to B's never deletes or re-creates a bridge both need, re-creates a device only with a reason
 * naming a setting the kernel cannot change, and reaches B (a second diff is empty).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildConfig, nodeConfigSpec, validateInputs, type Inputs } from '@nodenet/api';
import {
  allocateVrfTables,
  desiredModel,
  diff,
  type Device,
  type HostModel,
  type Operation,
  type TableAllocation,
} from '@nodenet/agent';
import { inputSets, NODE_LABELS } from './arbitraries.js';

const RUNS = Number(process.env.NODENET_PROPERTY_RUNS ?? 200) / 2;
const settings = { vtepAddress: '10.50.0.11' };

function model(inputs: Inputs, previous?: TableAllocation): { model: HostModel; tables: TableAllocation } {
  const { config, hash } = buildConfig(inputs);
  const spec = nodeConfigSpec({ config, hash }, NODE_LABELS[0]!);
  // A running VRF keeps its table (what the driver does with the host's VRF devices).
  const tables = allocateVrfTables({
    vrfs: spec.vrf.map((v) => v.vrf),
    ...(previous ? { host: previous } : {}),
    reserved: spec.routingTable.map((r) => r.tableId),
  });
  return { model: desiredModel({ spec, settings, tables }), tables };
}

/** What the kernel shows after applying `m` (MTU/MAC filled in, ports with the options asked). */
function applied(m: HostModel): HostModel {
  const out: HostModel = new Map();
  for (const [n, d] of m) {
    const { veth, ...rest } = d;
    const cur: Device = { ...rest, mac: d.mac ?? '02:00:00:00:00:99', mtu: d.mtu ?? 65575 };
    if (veth) cur.veth = { peer: veth.peer };
    if (d.master !== undefined && m.get(d.master)?.kind === 'bridge' && !d.port)
      cur.port = { learning: true, neighSuppress: false, hairpin: false };
    out.set(n, cur);
  }
  return out;
}

/** The host after `ops` (the parts diff compares), for checking that the diff reaches its target. */
function after(cur: HostModel, want: HostModel, ops: readonly Operation[]): HostModel {
  const touched = new Set(
    ops.map((o) => (o.op === 'create' || o.op === 'recreate' ? o.device.name : o.device)),
  );
  const out: HostModel = new Map();
  for (const [n, d] of cur) if (want.has(n) && !touched.has(n)) out.set(n, d);
  for (const [n, d] of applied(want)) if (touched.has(n) || !cur.has(n)) out.set(n, d);
  return out;
}

const KERNEL_FIXED =
  /^(kind .* a device cannot change its kind|table .* VRF's table|(VNI|local|port|dev) .* VXLAN's|peer .*)/;

describe('changes keep live devices (property)', () => {
  it(`holds for ${RUNS} pairs of accepted configurations`, () => {
    const accepted = inputSets.filter((i) => validateInputs(i).length === 0);
    let bridgesKept = 0;
    fc.assert(
      fc.property(accepted, accepted, (a, b) => {
        const from = model(a);
        const to = model(b, from.tables);
        const cur = applied(from.model);
        const ops = diff(cur, to.model);
        for (const op of ops) {
          const name = op.op === 'create' || op.op === 'recreate' ? op.device.name : op.device;
          const stays = cur.get(name)?.kind === 'bridge' && to.model.get(name)?.kind === 'bridge';
          if (stays) {
            expect(op.op, `${name}: ${JSON.stringify(op)}`).not.toBe('delete');
            expect(op.op, `${name}: ${JSON.stringify(op)}`).not.toBe('recreate');
          }
          if (op.op === 'recreate') expect(op.reason).toMatch(KERNEL_FIXED);
          if (op.op === 'delete')
            expect(to.model.has(name) && !op.reason.startsWith('veth peer')).toBe(false);
        }
        bridgesKept += [...cur.keys()].filter((n) => cur.get(n)?.kind === 'bridge' && to.model.has(n)).length;
        expect(diff(after(cur, to.model, ops), to.model)).toEqual([]);
      }),
      { numRuns: RUNS },
    );
    // The property is not vacuous: bridges that both configurations need did occur.
    expect(bridgesKept).toBeGreaterThan(0);
  });
});
