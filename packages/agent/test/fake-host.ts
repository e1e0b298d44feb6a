/**
 * In-memory stand-ins for the host boundary (netlink + FRR drivers, health checks), for tests of the
 * pipeline's decisions and of the watch/status layer. They are not drivers: the real ones are
 * exercised by test/agent host tests.
 */
import type { NodeConfigSpec } from '@nodenet/api';
import type { CheckResult, HostDrivers } from '@nodenet/agent';

/** In-memory host: what each driver last put on it, with switchable failures. */
export class FakeHost implements HostDrivers {
  netlinkState: string | null = null; // revision of the spec whose devices are on the host
  frrState: string | null = null;
  /** The FRR file the last changing apply replaced (FrrDriver's frr.conf.nodenet-previous). */
  frrPrevious: string | null = null;
  /** Set by a test to simulate a device deleted by hand: the next netlink apply repairs it. */
  drifted = false;
  failNetlink = new Set<string>();
  failFrr = new Set<string>();
  failRemoveAll = false;
  calls: string[] = [];
  /** What a spec puts on the host; by default its revision (every revision changes the host). */
  contentOf: (spec: NodeConfigSpec) => string = (spec) => spec.revision;
  /** Awaited at the start of every netlink apply: lets a test hold an apply mid-way. */
  beforeNetlinkApply?: (spec: NodeConfigSpec) => Promise<void>;

  netlink = {
    apply: async (spec: NodeConfigSpec) => {
      this.calls.push(`netlink.apply ${spec.revision.slice(0, 4)}`);
      await this.beforeNetlinkApply?.(spec);
      if (this.failNetlink.has(spec.revision)) {
        this.netlinkState = `half-${spec.revision}`;
        throw new Error('RTNETLINK answers: File exists (vx.1002)');
      }
      const operations = this.netlinkState === this.contentOf(spec) && !this.drifted ? 0 : 3;
      this.netlinkState = this.contentOf(spec);
      this.drifted = false;
      return { operations };
    },
    removeAdded: async (spec: NodeConfigSpec) => {
      this.calls.push(`netlink.removeAdded ${spec.revision.slice(0, 4)}`);
      const removed =
        this.netlinkState === null || this.netlinkState === this.contentOf(spec) ? [] : ['added'];
      if (removed.length > 0) this.netlinkState = `kept-${this.contentOf(spec)}`;
      return { removed };
    },
    removeAll: async () => {
      this.calls.push('netlink.removeAll');
      if (this.failRemoveAll) throw new Error('EBUSY');
      const operations = this.netlinkState === null ? 0 : 5;
      this.netlinkState = null;
      return { operations };
    },
  };

  frr = {
    apply: async (spec: NodeConfigSpec) => {
      this.calls.push(`frr.apply ${spec.revision.slice(0, 4)}`);
      if (this.failFrr.has(spec.revision)) throw new Error('vtysh -C: line 12: % Unknown command');
      const changed = this.frrState !== this.contentOf(spec);
      if (changed) this.frrPrevious = this.frrState;
      this.frrState = this.contentOf(spec);
      return { changed };
    },
    sync: async (spec: NodeConfigSpec) => {
      this.calls.push(`frr.sync ${spec.revision.slice(0, 4)}`);
      const changed = this.frrState !== this.contentOf(spec);
      this.frrState = this.contentOf(spec);
      return { changed };
    },
    fileHash: async () => (this.frrState === null ? undefined : `file-${this.frrState}`),
    restoreFile: async (before: string): Promise<'untouched' | 'restored'> => {
      this.calls.push(`frr.restoreFile ${before.slice(5, 9)}`);
      if (`file-${this.frrState}` === before) return 'untouched';
      if (this.frrPrevious !== null && `file-${this.frrPrevious}` === before) {
        this.frrState = this.frrPrevious;
        return 'restored';
      }
      throw new Error('neither file is the one FRR ran before the change');
    },
    removeAll: async () => {
      this.calls.push('frr.removeAll');
      const changed = this.frrState !== null;
      this.frrState = null;
      return { changed };
    },
  };
}

/** Health that breaks while a given revision is on the host; `alwaysFailing` names checks failing regardless. */
export class FakeHealth {
  breaking = new Set<string>();
  alwaysFailing = new Set<string>();
  runs = 0;
  constructor(private readonly host: FakeHost) {}
  async run(): Promise<CheckResult[]> {
    this.runs++;
    const broken = this.host.netlinkState !== null && this.breaking.has(this.host.netlinkState);
    return [
      {
        name: 'tcp/spine-1',
        ok: !broken,
        detail: broken ? 'no answer within 3000 ms after 3 attempt(s)' : 'connected',
      },
      {
        name: 'dns',
        ok: !this.alwaysFailing.has('dns'),
        detail: this.alwaysFailing.has('dns') ? 'timeout' : 'ok',
      },
    ];
  }
}
