/**
 * The netlink host driver the agent pipeline calls: plan / apply a NodeConfig spec, read the owned
 * host state. It binds its netlink socket in the network namespace of the calling process.
 *
 * A plan reads the host, splits it into owned and unowned devices (ownership.ts: adopting, once,
 * what an older agent made), refuses a desired name an unowned device holds (before any change),
 * diffs, and holds the L3 VNI devices that would come up down (l3vni.ts) for the agent to bring up
 * once FRR knows their VNI (`bringUp`).
 */
import { readFile } from 'node:fs/promises';
import { deviceNames, type NodeConfigSpec } from '@nodenet/api';
import netlink from 'netlink';
import type { RtNetlinkSocket } from 'netlink';
import { applyOperations } from './apply.js';
import { writeFileDurably } from '../durable-file.js';
import { allocateVrfTables, checkUnderlayMtu, desiredModel, rememberedTables } from './desired.js';
import { diff } from './diff.js';
import { DesiredStateError, NetlinkDriverError } from './errors.js';
import { holdL3Vnis, l3Vnis, type L3VniGate } from './l3vni.js';
import type { HostModel, HostSettings, Operation, TableAllocation } from './model.js';
import { assertNoConflicts, resolveOwnership } from './ownership.js';
import { readHost, readLinks, type HostSnapshot } from './read.js';
import { assertKernelSupport, type ProbedKind } from './support.js';

const { createRtNetlink } = netlink;

/** The parts of a NodeConfig spec the host devices depend on. */
export type NetlinkSpec = Pick<NodeConfigSpec, 'vrf' | 'layer2' | 'routingTable'>;

export interface NetlinkDriverOptions {
  settings: HostSettings;
  /**
   * JSON file keeping the VRF table allocation across restarts (e.g. /var/lib/nodenet/vrf-tables.json).
   * Without it, a VRF keeps its table as long as its device exists.
   */
  tableStatePath?: string;
  /**
   * The spec of the applied checkpoint (upgrade path): while no device on the host carries the
   * ownership mark, unmarked devices matching its devices exactly are adopted. Asked only then.
   */
  adoptable?: () => Promise<NetlinkSpec | undefined>;
}

export interface NetlinkPlan {
  /** Ordered operations `apply` would carry out now; empty when the host is converged. */
  operations: Operation[];
  desired: HostModel;
  /** The owned devices (including those this plan adopts). */
  current: HostModel;
  /** Unowned devices with nodenet-looking names: left alone. */
  unowned: HostModel;
  tables: TableAllocation;
  /** L3 VNI devices `apply` leaves down, to be brought up once FRR shows their VNI as L3. */
  gates: L3VniGate[];
}

export interface NetlinkApplyResult {
  /** Number of operations carried out (0: the host already matched). */
  operations: number;
  applied: Operation[];
  tables: TableAllocation;
  /** L3 VNI devices left down: bring them up with `bringUp` once FRR shows their VNI as L3. */
  gates: L3VniGate[];
  durationMs: number;
}

export interface NetlinkDriver {
  /** Reads the host and computes the operations, changing nothing. */
  plan(spec: NetlinkSpec): Promise<NetlinkPlan>;
  /**
   * Makes the owned devices match the spec. Throws DeviceOwnershipError or KernelSupportError before
   * any change, NetlinkOperationError on a refused change.
   */
  apply(spec: NetlinkSpec): Promise<NetlinkApplyResult>;
  /** Sets owned devices up (the L3 VNI devices an apply held down). */
  bringUp(devices: readonly string[]): Promise<void>;
  /** The owned devices as they are now. */
  read(): Promise<HostModel>;
  /** Closes the netlink socket. */
  close(): void;
}

export const EMPTY_SPEC: NetlinkSpec = { vrf: [], layer2: [], routingTable: [] };

export function createNetlinkDriver(options: NetlinkDriverOptions): NetlinkDriver {
  // Two sockets: requests get small acks (the package peeks each one's size); dumps are read with a
  // 32 KiB buffer, which also makes the kernel fill 32 KiB per datagram instead of one page.
  let sockets: { requests: RtNetlinkSocket; dumps: RtNetlinkSocket } | undefined;
  const open = (): { requests: RtNetlinkSocket; dumps: RtNetlinkSocket } => {
    if (!sockets) {
      const requests = createRtNetlink();
      try {
        // Room for the acks of a pipelined window (capped by net.core.rmem_max).
        requests.socket.setRecvBufferSize(4 << 20);
      } catch {
        // the default buffer still fits the window
      }
      sockets = {
        requests,
        dumps: createRtNetlink({
          messagePeeking: false,
          msgBufferSize: 32 << 10,
          recvBufferSize: 4 << 20,
          sendBufferSize: 1 << 20,
        }),
      };
    }
    return sockets;
  };
  const sock = (): RtNetlinkSocket => open().requests;
  const supported = new Set<ProbedKind>();
  /** The table-state file's text as last read or written: an unchanged allocation is not rewritten. */
  let tableStateText: string | undefined;

  async function loadPrevious(): Promise<TableAllocation | undefined> {
    if (!options.tableStatePath) return undefined;
    let text: string;
    try {
      text = await readFile(options.tableStatePath, 'utf8');
      tableStateText = text;
    } catch (err) {
      tableStateText = undefined;
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new NetlinkDriverError(
        'TableStateUnreadable',
        `cannot read ${options.tableStatePath}: ${(err as Error).message}`,
        { cause: err },
      );
    }
    try {
      const parsed = JSON.parse(text) as { tables?: unknown };
      const tables = parsed.tables;
      if (typeof tables !== 'object' || tables === null) throw new Error('no "tables" object');
      return new Map(Object.entries(tables).filter((e): e is [string, number] => Number.isInteger(e[1])));
    } catch (err) {
      // A damaged file only loses the memory of removed VRFs' tables: running VRFs keep theirs from the host.
      console.warn(`netlink driver: ignoring ${options.tableStatePath}: ${(err as Error).message}`);
      return undefined;
    }
  }

  /**
   * Saves the allocation durably (like the checkpoints), keeping the tables of VRFs removed since:
   * a VRF that comes back gets its old table (and the routes other systems keyed to it) again.
   */
  async function saveTables(tables: TableAllocation, previous: TableAllocation | undefined): Promise<void> {
    const path = options.tableStatePath;
    if (!path) return;
    const text = `${JSON.stringify({ tables: Object.fromEntries(rememberedTables(previous, tables)) }, null, 2)}\n`;
    // A converged re-apply (every resync) would otherwise fsync the same bytes each time.
    if (text === tableStateText) return;
    await writeFileDurably(path, text);
    tableStateText = text;
  }

  async function plan(
    spec: NetlinkSpec,
  ): Promise<NetlinkPlan & { indexByName: Map<string, number>; previousTables?: TableAllocation }> {
    const host = await readHost(open().dumps);
    const previous = await loadPrevious();
    const modelOf = (s: NetlinkSpec, devices: HostModel) => {
      const hostTables = new Map<string, number>();
      for (const v of s.vrf) {
        const table = devices.get(deviceNames.vrf(v.vrf))?.vrf?.table;
        if (table !== undefined) hostTables.set(v.vrf, table);
      }
      const tables = allocateVrfTables({
        vrfs: s.vrf.map((v) => v.vrf),
        range: options.settings.vrfTableRange,
        host: hostTables,
        previous,
        reserved: s.routingTable.map((r) => r.tableId),
      });
      return { tables, model: desiredModel({ spec: s, settings: options.settings, tables }) };
    };
    const first = modelOf(spec, host.devices);
    const ownership = resolveOwnership({
      owned: host.devices,
      unowned: host.unowned,
      allNames: host.indexByName,
      desired: first.model,
      adoptable: await adoptableModel(host, (s) => modelOf(s, host.unowned).model),
    });
    assertNoConflicts(ownership);
    // Adopted VRF devices count as the host's: their tables are kept.
    const { tables, model: desired } = ownership.adopt.length > 0 ? modelOf(spec, ownership.owned) : first;
    const underlay = options.settings.vtepInterface;
    if (underlay && spec.vrf.length + spec.layer2.length > 0) {
      const mtu = host.mtuByName.get(underlay);
      if (!host.indexByName.has(underlay)) {
        throw new DesiredStateError('settings.vtepInterface', underlay, 'no such device on the host');
      }
      if (mtu !== undefined) {
        checkUnderlayMtu(spec, { name: underlay, mtu, vtepAddress: options.settings.vtepAddress });
      }
    }
    const held = holdL3Vnis(diff(ownership.owned, desired), l3Vnis(spec.vrf));
    return {
      operations: [...ownership.adopt, ...held.operations],
      desired,
      current: ownership.owned,
      unowned: new Map([...host.unowned].filter(([n]) => !ownership.owned.has(n))),
      tables,
      gates: held.gates,
      indexByName: host.indexByName,
      previousTables: previous,
    };
  }

  /** The applied checkpoint's model, when the host may still hold an older agent's unmarked devices. */
  async function adoptableModel(
    host: HostSnapshot,
    model: (spec: NetlinkSpec) => HostModel,
  ): Promise<HostModel | undefined> {
    if (!options.adoptable || host.devices.size > 0 || host.unowned.size === 0) return undefined;
    const spec = await options.adoptable();
    if (!spec) return undefined;
    try {
      return model(spec);
    } catch (err) {
      // A checkpoint this agent cannot model adopts nothing; its devices then count as unowned.
      console.warn(`netlink driver: not adopting devices: ${(err as Error).message}`);
      return undefined;
    }
  }

  return {
    async plan(spec) {
      const { indexByName: _unused, previousTables: _previous, ...p } = await plan(spec);
      return p;
    },
    async apply(spec) {
      const started = performance.now();
      const p = await plan(spec);
      if (p.operations.length > 0) {
        const kinds = new Set<ProbedKind>();
        for (const op of p.operations)
          if ((op.op === 'create' || op.op === 'recreate') && !supported.has(op.device.kind))
            kinds.add(op.device.kind);
        if (kinds.size > 0) {
          await assertKernelSupport(sock(), kinds);
          for (const k of kinds) supported.add(k);
        }
      }
      const applied: Operation[] = [];
      try {
        if (p.operations.length > 0) {
          await applyOperations(p.operations, {
            socket: sock(),
            indexByName: p.indexByName,
            onDone: (op) => applied.push(op),
          });
        }
      } finally {
        // Saved even after a failure: devices created so far carry these tables.
        if (p.tables.size > 0 || options.tableStatePath) await saveTables(p.tables, p.previousTables);
      }
      return {
        operations: applied.length,
        applied,
        tables: p.tables,
        gates: p.gates,
        durationMs: performance.now() - started,
      };
    },
    async bringUp(devices) {
      if (devices.length === 0) return;
      const { table } = await readLinks(open().dumps);
      await applyOperations(
        devices.map((device) => ({ op: 'up', device })),
        { socket: sock(), indexByName: table.indexByName },
      );
    },
    async read() {
      return (await readHost(open().dumps)).devices;
    },
    close() {
      sockets?.requests.socket.close();
      sockets?.dumps.socket.close();
      sockets = undefined;
    },
  };
}
