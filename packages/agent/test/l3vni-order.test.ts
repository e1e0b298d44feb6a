/**
 * The L3 VNI bring-up order's decisions: what FRR's `show vrf vni json` says, when a held VNI counts
 * as L3, and the bounded wait on an injected monotonic clock.
 */
import { describe, expect, it } from 'vitest';
import {
  bringUpL3Vnis,
  L3VniNotReadyError,
  l3VniReady,
  parseVrfVni,
  type FrrL3Vni,
  type L3VniGate,
} from '@nodenet/agent';

const blue: L3VniGate = {
  vrf: 'blue',
  vrfDevice: 'vr.blue',
  vni: 5000,
  vxlan: 'vx.blue',
  devices: ['br.blue', 'vx.blue'],
};
const red: L3VniGate = { vrf: 'red', vrfDevice: 'vr.red', vni: 5001, vxlan: 'vx.red', devices: ['vx.red'] };

describe('show vrf vni json', () => {
  it('reads zebra\'s VRF list, treating "None" as no device', () => {
    const json = JSON.stringify({
      vrfs: [
        {
          vrf: 'vr.blue',
          vni: 5000,
          vxlanIntf: 'vx.blue',
          sviIntf: 'br.blue',
          state: 'Down',
          routerMac: 'None',
        },
        { vrf: 'vr.red', vni: 5001, vxlanIntf: 'None', sviIntf: 'None', state: 'Down', routerMac: 'None' },
      ],
    });
    expect(parseVrfVni(json)).toEqual([
      { vrf: 'vr.blue', vni: 5000, vxlanIntf: 'vx.blue', sviIntf: 'br.blue', state: 'Down' },
      { vrf: 'vr.red', vni: 5001, state: 'Down' },
    ]);
    expect(parseVrfVni('')).toEqual([]);
    expect(parseVrfVni('{}')).toEqual([]);
    expect(() => parseVrfVni('{"vrfs": 3}')).toThrow(/"vrfs" is not a list/);
  });

  it("counts a VNI as L3 only for its own VRF, and only when bound to that VRF's VXLAN if bound at all", () => {
    const shown: FrrL3Vni[] = [{ vrf: 'vr.blue', vni: 5000, vxlanIntf: 'vx.blue' }];
    expect(l3VniReady(shown, blue)).toBe(true);
    expect(l3VniReady([{ vrf: 'vr.blue', vni: 5000 }], blue)).toBe(true);
    expect(l3VniReady([{ vrf: 'vr.blue', vni: 5000, vxlanIntf: 'vx.other' }], blue)).toBe(false);
    expect(l3VniReady([{ vrf: 'vr.green', vni: 5000, vxlanIntf: 'vx.blue' }], blue)).toBe(false);
    expect(l3VniReady([{ vrf: 'vr.blue', vni: 4999, vxlanIntf: 'vx.blue' }], blue)).toBe(false);
  });
});

/** A fake clock: `sleep` advances it, nothing waits for real. */
function clock() {
  let t = 1000;
  return { monotonicMs: () => t, sleep: async (ms: number) => void (t += ms), at: () => t };
}

describe('bringUpL3Vnis', () => {
  it('brings each VRF up as soon as FRR shows its VNI as L3, and never before', async () => {
    const c = clock();
    const answers: FrrL3Vni[][] = [
      [],
      [{ vrf: 'vr.red', vni: 5001, vxlanIntf: 'vx.red' }],
      [
        { vrf: 'vr.red', vni: 5001, vxlanIntf: 'vx.red' },
        { vrf: 'vr.blue', vni: 5000, vxlanIntf: 'vx.blue' },
      ],
    ];
    const events: string[] = [];
    let round = 0;
    await bringUpL3Vnis(
      [blue, red],
      {
        query: async () => {
          events.push(`query ${round}`);
          return answers[Math.min(round++, answers.length - 1)]!;
        },
        bringUp: async (devices) => void events.push(`up ${devices.join(' ')}`),
        ...c,
      },
      { timeoutMs: 10_000, pollMs: 500 },
    );
    expect(events).toEqual(['query 0', 'query 1', 'up vx.red', 'query 2', 'up br.blue vx.blue']);
  });

  it('fails after the bound naming the VRF, its VNI and what FRR showed; the devices stay down', async () => {
    const c = clock();
    const up: string[] = [];
    const err = await bringUpL3Vnis(
      [blue],
      {
        query: async () => [{ vrf: 'vr.blue', vni: 4000, vxlanIntf: 'vx.old', state: 'Down' }],
        bringUp: async (d) => void up.push(...d),
        ...c,
      },
      { timeoutMs: 3000, pollMs: 1000 },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(L3VniNotReadyError);
    expect((err as Error).message).toBe(
      "FRR did not show the L3 VNI of VRF blue (VNI 5000, FRR VRF vr.blue) within 3 s (vtysh -c 'show vrf vni': vr.blue has " +
        'VNI 4000 on vx.old (Down)); br.blue, vx.blue left down so zebra cannot take the VNI for an L2 VNI',
    );
    expect(up).toEqual([]);
    expect(c.at() - 1000).toBe(3000);
  });

  it('keeps asking while vtysh fails, and quotes the failure when time runs out', async () => {
    const c = clock();
    let calls = 0;
    await expect(
      bringUpL3Vnis(
        [red],
        {
          query: async () => {
            calls++;
            throw new Error('zebra is not running');
          },
          bringUp: async () => undefined,
          ...c,
        },
        { timeoutMs: 2000, pollMs: 500 },
      ),
    ).rejects.toThrow(
      /VRF red \(VNI 5001, FRR VRF vr\.red\) within 2 s \(vtysh -c 'show vrf vni': zebra is not running\)/,
    );
    expect(calls).toBe(5);
  });

  it('does not ask FRR at all when nothing is held', async () => {
    await bringUpL3Vnis([], {
      query: () => Promise.reject(new Error('must not be called')),
      bringUp: () => Promise.reject(new Error('must not be called')),
    });
  });
});
