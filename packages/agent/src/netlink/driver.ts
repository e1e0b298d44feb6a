/**
 * The netlink host driver the agent pipeline calls: plan / apply a NodeConfig spec, read the owned
 * host state. It binds its netlink socket in the network namespace of the calling process.
 *
 * A plan reads the host, splits it into owned and unowned devices (ownership.ts: adopting, once,
 * what an older agent made), refuses a desired name an unowned device holds (before any change),
 * diffs, and holds the L3 VNI devices that would come up down (l3vni.ts) for the agent to bring up
 * once FRR knows their VNI (`bringUp`). The host is dumped again only when the kernel reported a
 * change since the last read (host-reader.ts), so a converged re-apply costs one small request.
 */
import { deviceNames, type NodeConfigSpec } from '@nodenet/api';
import netlink from 'netlink';
import type { RtNetlinkSocket } from 'netlink';
import { applyOperations } from './apply.js';
import { allocateVrfTables, checkUnderlayMtu, desiredModel } from './desired.js';
import { specDeviceNames } from './device-names.js';
import { diff } from './diff.js';
import { DesiredStateError } from './errors.js';
import { HostReader } from './host-reader.js';
import { holdL3Vnis, l3Vnis, type L3VniGate } from './l3vni.js';
import type { HostModel, HostSettings, Operation, TableAllocation } from './model.js';
import { assertNoConflicts, resolveOwnership } from './ownership.js';
import { readHost, readLinks, type HostSnapshot } from './read.js';
import { TableStateFile } from './table-state.js';
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
  /** The model the spec rendered to (what the checkpoint records, apply/upgrade.ts). */
  desired: HostModel;
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
  /**
   * Deletes the owned devices `spec` does not name (what a later change added), and nothing else.
   * Needs the spec alone, not the agent's settings (desired.ts `specDeviceNames`): the part of a
   * restore that still works when the full `apply` is refused (a missing VTEP interface). Returns
   * the devices deleted. Throws NetlinkOperationError on a refused delete.
   */
  removeAdded(spec: NetlinkSpec): Promise<string[]>;
  /**
   * Makes the owned devices match `model` (a rendering an earlier agent binary recorded in the
   * checkpoint): the restore of a failed agent upgrade (apply/upgrade.ts). Devices only; tables as
   * the model says.
   */
  applyModel(model: HostModel): Promise<{ operations: number }>;
  /** Sets owned devices up (the L3 VNI devices an apply held down). */
  bringUp(devices: readonly string[]): Promise<void>;
  /** The owned devices as they are now. */
  read(): Promise<HostModel>;
  /** Closes the netlink socket. */
  close(): void;
}

export const EMPTY_SPEC: NetlinkSpec = { vrf: [], layer2: [], routingTable: [] };

export function createNetlinkDriver(options: NetlinkDriverOptions): NetlinkDriver {
  return new NetlinkHostDriver(options);
}

/** A plan with what `apply` needs besides: the link indexes it read, the allocation the file held. */
type FullPlan = NetlinkPlan & { indexByName: Map<string, number>; previousTables?: TableAllocation };

class NetlinkHostDriver implements NetlinkDriver {
  private readonly sockets = new DriverSockets();
  private readonly reader = new HostReader(() => this.sockets.dumps);
  private readonly tableState: TableStateFile;
  private readonly supported = new Set<ProbedKind>();

  constructor(private readonly options: NetlinkDriverOptions) {
    this.tableState = new TableStateFile(options.tableStatePath);
  }

  async plan(spec: NetlinkSpec): Promise<NetlinkPlan> {
    const { indexByName: _unused, previousTables: _previous, ...p } = await this.fullPlan(spec);
    return p;
  }

  async apply(spec: NetlinkSpec): Promise<NetlinkApplyResult> {
    const started = performance.now();
    const p = await this.fullPlan(spec);
    if (p.operations.length > 0) await this.checkKernelSupport(p.operations);
    const applied: Operation[] = [];
    try {
      if (p.operations.length > 0) {
        this.reader.forget();
        await applyOperations(p.operations, {
          socket: this.sockets.requests,
          indexByName: p.indexByName,
          onDone: (op) => applied.push(op),
        });
      }
    } finally {
      // Saved even after a failure: devices created so far carry these tables.
      if (p.tables.size > 0 || this.tableState.kept) await this.tableState.save(p.tables, p.previousTables);
    }
    return {
      operations: applied.length,
      applied,
      tables: p.tables,
      gates: p.gates,
      desired: p.desired,
      durationMs: performance.now() - started,
    };
  }

  async removeAdded(spec: NetlinkSpec): Promise<string[]> {
    const keep = specDeviceNames(spec);
    this.reader.forget();
    const host = await this.reader.read();
    const added: HostModel = new Map([...host.devices].filter(([name]) => !keep.has(name)));
    // A diff to nothing: deletes only, ports before their masters.
    const operations = diff(added, new Map());
    if (operations.length === 0) return [];
    this.reader.forget();
    const removed: string[] = [];
    await applyOperations(operations, {
      socket: this.sockets.requests,
      indexByName: new Map(host.indexByName),
      onDone: (op) => removed.push(op.op === 'delete' ? op.device : ''),
    });
    return removed.filter((name) => name !== '');
  }

  async applyModel(model: HostModel): Promise<{ operations: number }> {
    this.reader.forget();
    const host = await this.reader.read();
    const operations = diff(host.devices, model);
    if (operations.length === 0) return { operations: 0 };
    await this.checkKernelSupport(operations);
    this.reader.forget();
    await applyOperations(operations, {
      socket: this.sockets.requests,
      indexByName: new Map(host.indexByName),
    });
    return { operations: operations.length };
  }

  async bringUp(devices: readonly string[]): Promise<void> {
    if (devices.length === 0) return;
    this.reader.forget();
    const { table } = await readLinks(this.sockets.dumps);
    await applyOperations(
      devices.map((device) => ({ op: 'up', device })),
      { socket: this.sockets.requests, indexByName: table.indexByName },
    );
  }

  async read(): Promise<HostModel> {
    return (await readHost(this.sockets.dumps)).devices;
  }

  close(): void {
    this.reader.close();
    this.sockets.close();
  }

  private async fullPlan(spec: NetlinkSpec): Promise<FullPlan> {
    const host = await this.reader.read();
    try {
      return await this.planOn(host, spec);
    } catch (err) {
      // What made the plan fail (a device not nodenet's, a missing underlay) is fixed by hand, maybe
      // in a way the kernel does not announce: the next plan reads the host again.
      this.reader.forget();
      throw err;
    }
  }

  private async planOn(host: HostSnapshot, spec: NetlinkSpec): Promise<FullPlan> {
    const previous = await this.tableState.load();
    const modelOf = (s: NetlinkSpec, devices: HostModel) =>
      specModel(s, { devices, previous, settings: this.options.settings });
    const first = modelOf(spec, host.devices);
    const ownership = resolveOwnership({
      owned: host.devices,
      unowned: host.unowned,
      allNames: host.indexByName,
      desired: first.model,
      adoptable: await this.adoptableModel(host, (s) => modelOf(s, host.unowned).model),
    });
    assertNoConflicts(ownership);
    // Adopted VRF devices count as the host's: their tables are kept.
    const { tables, model: desired } = ownership.adopt.length > 0 ? modelOf(spec, ownership.owned) : first;
    checkUnderlay(spec, host, this.options.settings);
    const held = holdL3Vnis(diff(ownership.owned, desired), l3Vnis(spec.vrf));
    return {
      operations: [...ownership.adopt, ...held.operations],
      desired,
      current: ownership.owned,
      unowned: new Map([...host.unowned].filter(([n]) => !ownership.owned.has(n))),
      tables,
      gates: held.gates,
      // applyOperations updates the map: the snapshot's own stays as read.
      indexByName: new Map(host.indexByName),
      previousTables: previous,
    };
  }

  /** Probes, once per kind, the kernel support of the kinds the operations create. */
  private async checkKernelSupport(operations: readonly Operation[]): Promise<void> {
    const kinds = new Set<ProbedKind>();
    for (const op of operations)
      if ((op.op === 'create' || op.op === 'recreate') && !this.supported.has(op.device.kind))
        kinds.add(op.device.kind);
    if (kinds.size === 0) return;
    await assertKernelSupport(this.sockets.requests, kinds);
    for (const k of kinds) this.supported.add(k);
  }

  /** The applied checkpoint's model, when the host may still hold an older agent's unmarked devices. */
  private async adoptableModel(
    host: HostSnapshot,
    model: (spec: NetlinkSpec) => HostModel,
  ): Promise<HostModel | undefined> {
    if (!this.options.adoptable || host.devices.size > 0 || host.unowned.size === 0) return undefined;
    const spec = await this.options.adoptable();
    if (!spec) return undefined;
    try {
      return model(spec);
    } catch (err) {
      // A checkpoint this agent cannot model adopts nothing; its devices then count as unowned.
      console.warn(`netlink driver: not adopting devices: ${(err as Error).message}`);
      return undefined;
    }
  }
}

/** The desired model of a spec, with the VRF tables allocated against the given devices and the remembered allocation. */
function specModel(
  spec: NetlinkSpec,
  ctx: { devices: HostModel; previous: TableAllocation | undefined; settings: HostSettings },
): { tables: TableAllocation; model: HostModel } {
  const hostTables = new Map<string, number>();
  for (const v of spec.vrf) {
    const table = ctx.devices.get(deviceNames.vrf(v.vrf))?.vrf?.table;
    if (table !== undefined) hostTables.set(v.vrf, table);
  }
  const tables = allocateVrfTables({
    vrfs: spec.vrf.map((v) => v.vrf),
    range: ctx.settings.vrfTableRange,
    host: hostTables,
    previous: ctx.previous,
    reserved: spec.routingTable.map((r) => r.tableId),
  });
  return { tables, model: desiredModel({ spec, settings: ctx.settings, tables }) };
}

/** The VXLAN underlay named in the settings exists and carries the spec's MTUs (checked before any change). */
function checkUnderlay(spec: NetlinkSpec, host: HostSnapshot, settings: HostSettings): void {
  const underlay = settings.vtepInterface;
  if (!underlay || spec.vrf.length + spec.layer2.length === 0) return;
  if (!host.indexByName.has(underlay)) {
    throw new DesiredStateError('settings.vtepInterface', underlay, 'no such device on the host');
  }
  const mtu = host.mtuByName.get(underlay);
  if (mtu !== undefined) checkUnderlayMtu(spec, { name: underlay, mtu, vtepAddress: settings.vtepAddress });
}

/**
 * The driver's two sockets, opened on first use. Requests get small acks (the package peeks each
 * one's size); dumps are read with a 32 KiB buffer, which also makes the kernel fill 32 KiB per
 * datagram instead of one page.
 */
class DriverSockets {
  private opened: { requests: RtNetlinkSocket; dumps: RtNetlinkSocket } | undefined;

  get requests(): RtNetlinkSocket {
    return this.open().requests;
  }

  get dumps(): RtNetlinkSocket {
    return this.open().dumps;
  }

  close(): void {
    this.opened?.requests.socket.close();
    this.opened?.dumps.socket.close();
    this.opened = undefined;
  }

  private open(): { requests: RtNetlinkSocket; dumps: RtNetlinkSocket } {
    if (this.opened) return this.opened;
    const requests = createRtNetlink();
    try {
      // Room for the acks of a pipelined window (capped by net.core.rmem_max).
      requests.socket.setRecvBufferSize(4 << 20);
    } catch {
      // the default buffer still fits the window
    }
    this.opened = {
      requests,
      dumps: createRtNetlink({
        messagePeeking: false,
        msgBufferSize: 32 << 10,
        recvBufferSize: 4 << 20,
        sendBufferSize: 1 << 20,
      }),
    };
    return this.opened;
  }
}
