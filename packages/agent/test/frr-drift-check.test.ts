/**
 * The resync's drift check remembered between resyncs (frr/drift.ts, `DriftCheck`): a running
 * config already judged is not compared again, and the memory never hides a drift that appears later.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DriftCheck, renderFrrConfig, type ConfigDrift } from '@nodenet/agent';
import { goldenCases, settings } from './frr-fixtures.js';

const template = readFileSync(new URL('./golden/frr/base.conf.tpl', import.meta.url), 'utf8');
const file = renderFrrConfig(goldenCases['several-vrfs']!, settings, template);
const removed = /^ip prefix-list .*$/m.exec(file)![0];
/** FRR's running config after `no ip prefix-list …` by hand. */
const handChanged = file.replace(`${removed}\n`, '');
/** As FRR shows the file, with a line it shows its own way (what `--test` does not count). */
const shownOwnWay = file.replace(/^ip prefix-list (.*)$/m, 'ip prefix-list  $1 ');
const ownWay = `${file}route-map extra permit 10\n`;

describe('drift check remembered between resyncs', () => {
  it('finds a hand-made change after the same file matched, and matches again once repaired', () => {
    const check = new DriftCheck();
    expect(check.judge(file, file)).toBe('match');
    expect(check.judge(file, file)).toBe('match');
    expect(check.judge(handChanged, file)).toEqual({ toAdd: [removed], toDelete: [] });
    // Not repaired: found again at the next resync.
    expect(check.judge(handChanged, file)).toEqual({ toAdd: [removed], toDelete: [] });
    expect(check.judge(file, file)).toBe('match');
  });

  it('judges whitespace as the comparison does: a re-spaced running text still matches', () => {
    const check = new DriftCheck();
    expect(shownOwnWay).not.toBe(file);
    expect(check.judge(shownOwnWay, file)).toBe('match');
  });

  it('remembers a difference --test did not count for its file only, and not a further one', () => {
    const check = new DriftCheck();
    const local = check.judge(ownWay, file);
    expect(local).toEqual({ toAdd: [], toDelete: ['no route-map extra permit 10'] });
    check.confirmBenign(ownWay, file, local as Exclude<typeof local, 'match'>);
    expect(check.judge(ownWay, file)).toBe('match');
    // Another running text with the same difference: still not drift.
    expect(check.judge(`${ownWay}!\n`, file)).toBe('match');
    // The same difference plus a hand-made change: drift, both listed.
    expect(check.judge(ownWay.replace(`${removed}\n`, ''), file)).toEqual({
      toAdd: [removed],
      toDelete: ['no route-map extra permit 10'],
    });
    // Another file: the confirmation was for the old one.
    const other = `${file}ip prefix-list zz seq 5 permit 10.9.0.0/16\n`;
    expect(check.judge(`${ownWay}ip prefix-list zz seq 5 permit 10.9.0.0/16\n`, other)).toEqual({
      toAdd: [],
      toDelete: ['no route-map extra permit 10'],
    });
  });
});

/** Reads of a fake FRR: what the daemons and vtysh show, and what was asked. */
function fakeFrr(running: string, daemons: string | undefined) {
  const frr = {
    running,
    daemons,
    /** Texts the daemons show on the following reads, one per read, before `daemons` again. */
    daemonsNext: [] as string[],
    asked: [] as string[],
    confirmed: { toAdd: [], toDelete: [] } as ConfigDrift,
    reads: {
      running: () => (frr.asked.push('running'), Promise.resolve(frr.running)),
      daemons: () => (frr.asked.push('daemons'), Promise.resolve(frr.daemonsNext.shift() ?? frr.daemons)),
      confirm: () => (frr.asked.push('confirm'), Promise.resolve(frr.confirmed)),
    },
  };
  return frr;
}

describe("drift check: the daemons' own texts first", () => {
  it('skips vtysh while the daemons show what they showed when FRR matched, and reads it on a change', async () => {
    const check = new DriftCheck();
    const frr = fakeFrr(file, 'zebra A\nbgpd A');
    expect(await check.check(file, frr.reads)).toEqual({ toAdd: [], toDelete: [] });
    expect(frr.asked).toEqual(['daemons', 'running', 'daemons']);
    frr.asked = [];
    expect(await check.check(file, frr.reads)).toEqual({ toAdd: [], toDelete: [] });
    expect(frr.asked).toEqual(['daemons']);
    // A hand-made change: the daemons' texts change, vtysh shows it, --test confirms it.
    Object.assign(frr, { running: handChanged, daemons: 'zebra A\nbgpd B', asked: [] });
    frr.confirmed = { toAdd: [removed], toDelete: [] };
    expect(await check.check(file, frr.reads)).toEqual({ toAdd: [removed], toDelete: [] });
    expect(frr.asked).toEqual(['daemons', 'running', 'confirm']);
    // Not repaired: found again, the daemons' texts are not taken as matching.
    frr.asked = [];
    expect(await check.check(file, frr.reads)).toEqual({ toAdd: [removed], toDelete: [] });
    expect(frr.asked).toEqual(['daemons', 'running', 'confirm']);
    // Another file: what the daemons showed matched the old one only.
    Object.assign(frr, { running: file, daemons: 'zebra A\nbgpd A', asked: [] });
    await check.check(`${file}!\n`, frr.reads);
    expect(frr.asked).toEqual(['daemons', 'running', 'daemons']);
  });

  it('does not remember what the daemons showed when it changed across the vtysh read', async () => {
    const check = new DriftCheck();
    const frr = fakeFrr(file, 'zebra A');
    frr.daemonsNext = ['zebra A', 'zebra B'];
    expect(await check.check(file, frr.reads)).toEqual({ toAdd: [], toDelete: [] });
    frr.asked = [];
    await check.check(file, frr.reads);
    expect(frr.asked).toEqual(['daemons', 'running', 'daemons']);
  });

  it('reads vtysh every time when the sockets cannot be used', async () => {
    const check = new DriftCheck();
    const frr = fakeFrr(file, undefined);
    await check.check(file, frr.reads);
    await check.check(file, frr.reads);
    expect(frr.asked).toEqual(['daemons', 'running', 'daemons', 'running']);
  });
});
