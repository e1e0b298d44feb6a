/**
 * Which kernel notifications make the driver's host snapshot stale (notification.ts): a change to
 * what was read does, the kernel's own follow-ups that the host model leaves out do not.
 */
import netlink from 'netlink';
import { describe, expect, it } from 'vitest';
import { changesSnapshot, encodeLinkInfo, type HostSnapshot } from '@nodenet/agent';

const { AttrStream, rt } = netlink;
const RTM_NEWLINK = 16;
const RTM_DELLINK = 17;
const RTM_NEWADDR = 20;
const RTM_DELADDR = 21;

function snapshot(): HostSnapshot {
  return {
    devices: new Map([
      ['l2.100', { name: 'l2.100', kind: 'bridge', up: true, addresses: ['10.1.0.1/24'], mtu: 1500 }],
    ]),
    unowned: new Map(),
    indexByName: new Map([
      ['lo', 1],
      ['eth0', 2],
      ['l2.100', 7],
    ]),
    nameByIndex: new Map([
      [1, 'lo'],
      [2, 'eth0'],
      [7, 'l2.100'],
    ]),
    mtuByName: new Map([
      ['lo', 65536],
      ['eth0', 9000],
      ['l2.100', 1500],
    ]),
  };
}

interface LinkFields {
  index: number;
  name: string;
  mtu: number;
  up?: boolean;
  alias?: string;
  kind?: 'bridge';
  family?: number;
}

function link(type: number, f: LinkFields): { type: number; data: Buffer } {
  const out = new AttrStream();
  rt.formatLinkMessage(
    {
      kind: 'link',
      data: { family: f.family ?? 0, index: f.index, flags: f.up === false ? {} : { up: true } },
      attrs: {
        ifname: f.name,
        mtu: f.mtu,
        ...(f.alias !== undefined ? { ifalias: f.alias } : {}),
        ...(f.kind ? { linkinfo: encodeLinkInfo({ kind: f.kind }) } : {}),
      },
    },
    out,
  );
  return { type, data: Buffer.concat(out.bufs) };
}

function address(type: number, index: number, cidr: string): { type: number; data: Buffer } {
  const [addr, len] = cidr.split('/') as [string, string];
  const v6 = addr.includes(':');
  const bytes = v6 ? ipv6Bytes(addr) : Buffer.from(addr.split('.').map(Number));
  const out = new AttrStream();
  rt.formatAddressMessage(
    {
      kind: 'address',
      data: { family: v6 ? 10 : 2, prefixlen: Number(len), index },
      attrs: { local: bytes, address: bytes },
    },
    out,
  );
  return { type, data: Buffer.concat(out.bufs) };
}

/** fe80::1 and 2001:db8::1 only: enough for these cases. */
const ipv6Bytes = (addr: string): Buffer => {
  const b = Buffer.alloc(16);
  b.writeUInt16BE(Number.parseInt(addr.split(':')[0]!, 16), 0);
  if (addr.startsWith('2001:db8')) b.writeUInt16BE(0xdb8, 2);
  b[15] = 1;
  return b;
};

const owned = { index: 7, name: 'l2.100', mtu: 1500, alias: 'nodenet', kind: 'bridge' as const };

describe('changesSnapshot', () => {
  it('ignores a link notification that shows an owned device as read', () => {
    expect(changesSnapshot(link(RTM_NEWLINK, owned), snapshot())).toBe(false);
  });

  it('counts a modelled change of an owned device: MTU, link state, its deletion', () => {
    expect(changesSnapshot(link(RTM_NEWLINK, { ...owned, mtu: 1400 }), snapshot())).toBe(true);
    expect(changesSnapshot(link(RTM_NEWLINK, { ...owned, up: false }), snapshot())).toBe(true);
    expect(changesSnapshot(link(RTM_DELLINK, owned), snapshot())).toBe(true);
  });

  it('counts a device newly marked as nodenet, a new or renamed link and a changed underlay MTU', () => {
    expect(
      changesSnapshot(link(RTM_NEWLINK, { index: 2, name: 'eth0', mtu: 9000, alias: 'nodenet' }), snapshot()),
    ).toBe(true);
    expect(changesSnapshot(link(RTM_NEWLINK, { index: 9, name: 'eth1', mtu: 1500 }), snapshot())).toBe(true);
    expect(changesSnapshot(link(RTM_NEWLINK, { index: 2, name: 'uplink', mtu: 9000 }), snapshot())).toBe(
      true,
    );
    expect(changesSnapshot(link(RTM_NEWLINK, { index: 2, name: 'eth0', mtu: 1500 }), snapshot())).toBe(true);
  });

  it("ignores an unmanaged link as read and IPv6's per-link state", () => {
    expect(changesSnapshot(link(RTM_NEWLINK, { index: 2, name: 'eth0', mtu: 9000 }), snapshot())).toBe(false);
    expect(changesSnapshot(link(RTM_NEWLINK, { ...owned, family: 10 }), snapshot())).toBe(false);
  });

  it('counts an address added to or removed from a modelled device, and no other', () => {
    expect(changesSnapshot(address(RTM_NEWADDR, 7, '10.1.0.1/24'), snapshot())).toBe(false);
    expect(changesSnapshot(address(RTM_NEWADDR, 7, '10.2.0.1/24'), snapshot())).toBe(true);
    expect(changesSnapshot(address(RTM_DELADDR, 7, '10.1.0.1/24'), snapshot())).toBe(true);
    expect(changesSnapshot(address(RTM_NEWADDR, 7, 'fe80::1/64'), snapshot())).toBe(false);
    expect(changesSnapshot(address(RTM_NEWADDR, 7, '2001:db8::1/64'), snapshot())).toBe(true);
    expect(changesSnapshot(address(RTM_NEWADDR, 2, '192.0.2.1/24'), snapshot())).toBe(false);
  });
});
