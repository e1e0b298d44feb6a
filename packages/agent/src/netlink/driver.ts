/**
 * The netlink host driver the agent pipeline calls: plan / apply a NodeConfig spec, read the managed
 * host state. It binds its netlink socket in the network namespace of the calling process.
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
import type { HostModel, HostSettings, Operation, TableAllocation } from './model.js';
import { readHost } from './read.js';
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
}

export interface NetlinkPlan {
  /** Ordered operations `apply` would carry out now; empty when the host is converged. */
  operations: Operation[];
  desired: HostModel;
  current: HostModel;
  tables: TableAllocation;
}

export interface NetlinkApplyResult {
  /** Number of operations carried out (0: the host already matched). */
  operations: number;
  applied: Operation[];
  tables: TableAllocation;
  durationMs: number;
}

export interface NetlinkDriver {
  /** Reads the host and computes the operations, changing nothing. */
  plan(spec: NetlinkSpec): Promise<NetlinkPlan>;
  /** Makes the managed devices match the spec. Throws KernelSupportError before any change, NetlinkOperationError on a refused change. */
  apply(spec: NetlinkSpec): Promise<NetlinkApplyResult>;
  /** The managed devices as they are now. */
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

  async function loadPrevious(): Promise<TableAllocation | undefined> {
    if (!options.tableStatePath) return undefined;
    let text: string;
    try {
      text = await readFile(options.tableStatePath, 'utf8');
    } catch (err) {
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
      return Object.fromEntries(
        Object.entries(tables).filter(([, t]) => Number.isInteger(t)),
      ) as TableAllocation;
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
    await writeFileDurably(
      path,
      `${JSON.stringify({ tables: rememberedTables(previous, tables) }, null, 2)}\n`,
    );
  }

  async function plan(
    spec: NetlinkSpec,
  ): Promise<NetlinkPlan & { indexByName: Map<string, number>; previousTables?: TableAllocation }> {
    const host = await readHost(open().dumps);
    const hostTables: TableAllocation = {};
    for (const v of spec.vrf) {
      const table = host.devices.get(deviceNames.vrf(v.vrf))?.vrf?.table;
      if (table !== undefined) hostTables[v.vrf] = table;
    }
    const previous = await loadPrevious();
    const tables = allocateVrfTables({
      vrfs: spec.vrf.map((v) => v.vrf),
      range: options.settings.vrfTableRange,
      host: hostTables,
      previous,
      reserved: spec.routingTable.map((r) => r.tableId),
    });
    const desired = desiredModel({ spec, settings: options.settings, tables });
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
    return {
      operations: diff(host.devices, desired),
      desired,
      current: host.devices,
      tables,
      indexByName: host.indexByName,
      previousTables: previous,
    };
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
          if (op.op === 'create' && !supported.has(op.device.kind)) kinds.add(op.device.kind);
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
        if (Object.keys(p.tables).length > 0 || options.tableStatePath)
          await saveTables(p.tables, p.previousTables);
      }
      return {
        operations: applied.length,
        applied,
        tables: p.tables,
        durationMs: performance.now() - started,
      };
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
