/**
 * The pure parts of the FRR fast path and of the in-process drift check: parsing config text into
 * contexts, the difference of two rendered files as vtysh commands (or "cannot express"), splitting
 * one vtysh run's answers, and drift between a running config and the file.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  configDrift,
  diffConfigs,
  editTopLevel,
  fastPathPlan,
  parseConfig,
  perDaemonJson,
  readBackFor,
  renderFrrConfig,
  splitEchoed,
  touchedMismatches,
} from '@nodenet/agent';
import { goldenCases, settings, vrf, type FrrSpec } from './frr-fixtures.js';

const template = readFileSync(new URL('./golden/frr/base.conf.tpl', import.meta.url), 'utf8');
const render = (spec: FrrSpec): string => renderFrrConfig(spec, settings, template);
const several = goldenCases['several-vrfs']!;

describe('config text: contexts as frr-reload.py sees them', () => {
  it('keys nested blocks by their headers, keeps top-level commands as their own context', () => {
    const p = parseConfig(
      [
        'ip prefix-list a seq 5 permit 10.0.0.0/8',
        'route-map m permit 10',
        ' match ip address prefix-list a',
        'exit',
        '!',
        'router bgp 1',
        ' neighbor x  interface remote-as internal',
        ' !',
        ' address-family ipv4 unicast',
        '  redistribute connected',
        ' exit-address-family',
        'exit',
      ].join('\n'),
    );
    expect([...p.values()].map((c) => [c.keys, c.lines])).toEqual([
      [['ip prefix-list a seq 5 permit 10.0.0.0/8'], []],
      [['route-map m permit 10'], ['match ip address prefix-list a']],
      [['router bgp 1'], ['neighbor x interface remote-as internal']],
      [['router bgp 1', 'address-family ipv4 unicast'], ['redistribute connected']],
    ]);
  });

  it('closes a block without `exit` where the indentation goes back', () => {
    const p = parseConfig('route-map m permit 10\n set tag 1\nip prefix-list a seq 1 permit 10.0.0.0/8\n');
    expect([...p.keys()]).toEqual(['route-map m permit 10', 'ip prefix-list a seq 1 permit 10.0.0.0/8']);
  });

  it('ignores the order of lines inside a block', () => {
    const a = parseConfig('router bgp 1\n neighbor a remote-as 1\n neighbor b remote-as 2\nexit\n');
    const b = parseConfig('router bgp 1\n neighbor b remote-as 2\n neighbor a remote-as 1\nexit\n');
    expect(diffConfigs(a, b)).toEqual({ toAdd: [], toDelete: [] });
  });
});

describe('config text: the parse of an edit from the parse before it', () => {
  /** A small deterministic generator (mulberry32): the same cases on every run. */
  const random = (seed: number) => (): number => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const base = render(several);
  /** Random edits of the rendered file: lines replaced, added, removed, repeated or indented. */
  const edits = (n: number): string[] => {
    const next = random(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    const out: string[] = [];
    for (let k = 0; k < n; k++) {
      const lines = base.split('\n');
      for (let e = 1 + Math.floor(next() * 3); e > 0; e--) {
        // Most edits where a change of prefix items makes them: at a prefix-list line.
        const lists = lines.flatMap((l, i) => (l.startsWith('ip') ? [i] : []));
        const at = next() < 0.7 ? pick(lists) : Math.floor(next() * lines.length);
        const line = lines[at]!;
        const kind = pick(['flip', 'add', 'drop', 'repeat', 'indent', 'space', 'new-list'] as const);
        if (kind === 'flip')
          lines[at] = line.includes('permit')
            ? line.replace('permit', 'deny')
            : line.replace('deny', 'permit');
        if (kind === 'add') lines.splice(at, 0, `ip prefix-list pl_x${k} seq ${e} permit 10.${e}.0.0/16`);
        if (kind === 'drop') lines.splice(at, 1);
        if (kind === 'repeat') lines.splice(at, 0, line);
        if (kind === 'indent') lines[at] = ` ${line}`;
        if (kind === 'space') lines[at] = line.replace(' ', '  ');
        if (kind === 'new-list')
          lines.splice(at, 0, pick(lines.filter((l) => l.startsWith('ip prefix-list'))));
      }
      out.push(lines.join('\n'));
    }
    return out;
  };

  it('equals a whole parse and diff, contexts in order, whenever it answers, and so does the edit back', () => {
    const from = parseConfig(base);
    let answered = 0;
    for (const text of edits(400)) {
      const edit = editTopLevel(base, from, text);
      if (!edit) continue;
      answered++;
      const whole = parseConfig(text);
      expect([...edit.parsed.entries()]).toEqual([...whole.entries()]);
      expect(edit.diff).toEqual(diffConfigs(from, whole));
      // And back, from the parse it made (as the driver's next change starts from it).
      const back = editTopLevel(text, edit.parsed, base);
      expect([...back!.parsed.entries()]).toEqual([...from.entries()]);
      expect(back!.diff).toEqual(diffConfigs(whole, from));
    }
    expect(answered).toBeGreaterThan(50);
  });

  it('answers for a changed prefix item, leaves a line inside a block or a repeated line to the whole parse', () => {
    const flipped = base.replace(/^(ip prefix-list \S+ seq \d+) permit/m, '$1 deny');
    expect(editTopLevel(base, parseConfig(base), flipped)?.diff.toAdd).toHaveLength(1);
    const community = base.replace(/^( set community \S+)/m, '$1 65000:9');
    expect(community).not.toBe(base);
    expect(editTopLevel(base, parseConfig(base), community)).toBeUndefined();
    const line = /^ip prefix-list .*$/m.exec(base)![0];
    expect(editTopLevel(base, parseConfig(base), base.replace(line, `${line}\n${line}`))).toBeUndefined();
  });
});

describe('fast path: the difference of two rendered files as vtysh commands', () => {
  const changed = (f: (s: FrrSpec) => void): FrrSpec => {
    const s = structuredClone(several);
    f(s);
    return s;
  };

  it('an unchanged file needs no command', () => {
    expect(fastPathPlan(render(several), render(several))).toEqual({ commands: [], touched: new Set() });
  });

  it('replaces a prefix-list line in place (same seq) without deleting it afterwards', () => {
    const next = changed((s) => {
      s.vrf[0]!.export[0]!.action = s.vrf[0]!.export[0]!.action === 'deny' ? 'permit' : 'deny';
    });
    const plan = fastPathPlan(render(several), render(next))!;
    expect(plan.commands).toHaveLength(1);
    expect(plan.commands[0]).toMatch(/^ip prefix-list pl_\S+ seq \d+ (permit|deny) /);
    expect(plan.touched.size).toBe(2);
  });

  it('edits a route-map entry: `no` for the line that went, then the new line, inside the entry', () => {
    const next = changed((s) => {
      s.vrf[0]!.community = '65000:999';
    });
    const plan = fastPathPlan(render(several), render(next))!;
    const enter = plan.commands.findIndex((c) => /^route-map rm4_\S+_export permit \d+$/.test(c));
    expect(enter).toBeGreaterThanOrEqual(0);
    const body = plan.commands.slice(enter + 1, enter + 4);
    expect(body[0]).toMatch(/^no set (large-)?community .* additive$/);
    expect(body[1]).toBe('set community 65000:999 additive');
    expect(body[2]).toBe('exit');
  });

  it('adds a new entry before it removes the deny-all entry it replaces', () => {
    const from: FrrSpec = { vrf: [vrf({ vrf: 'red', vni: 5 })], routingTable: [] };
    const to: FrrSpec = {
      vrf: [vrf({ vrf: 'red', vni: 5, export: [{ cidr: '10.1.0.0/16', seq: 1, action: 'permit' }] })],
      routingTable: [],
    };
    const plan = fastPathPlan(render(from), render(to))!;
    const add = plan.commands.indexOf('route-map rm4_red_export permit 10');
    const remove = plan.commands.indexOf('no route-map rm4_red_export deny 65535');
    expect(add).toBeGreaterThanOrEqual(0);
    expect(remove).toBeGreaterThan(add);
    expect(plan.commands).toContain('ip prefix-list pl_red_export_10 seq 1 permit 10.1.0.0/16');
  });

  it('changes route targets and aggregates inside a VRF instance that stays', () => {
    const next = changed((s) => {
      s.vrf[0]!.routeTarget = '65000:4242';
      s.vrf[0]!.aggregate = ['10.99.0.0/16'];
    });
    const plan = fastPathPlan(render(several), render(next));
    expect(plan).toBeDefined();
    expect(
      plan!.commands.filter((c) => /^(no )?route-target (import|export) /.test(c)).length,
    ).toBeGreaterThan(0);
    expect(plan!.commands.some((c) => c === 'aggregate-address 10.99.0.0/16')).toBe(true);
  });

  it('cannot express a new VRF, a removed one, or a template change: undefined (frr-reload.py)', () => {
    const added = changed((s) => s.vrf.push(vrf({ vrf: 'zz', vni: 4999 })));
    expect(fastPathPlan(render(several), render(added))).toBeUndefined();
    expect(fastPathPlan(render(added), render(several))).toBeUndefined();
    const tpl = render(several).replace('redistribute connected\n', 'redistribute static\n');
    expect(fastPathPlan(render(several), tpl)).toBeUndefined();
  });

  it('leaves a static route change to frr-reload.py: it is inside a vrf block (undefined)', () => {
    const routed = changed(
      (s) => (s.vrf[0]!.staticRoutes = [{ prefix: '10.99.0.0/16', nextHop: '10.98.0.1' }]),
    );
    expect(render(routed)).toContain(' ip route 10.99.0.0/16 10.98.0.1\n');
    expect(fastPathPlan(render(several), render(routed))).toBeUndefined();
    expect(fastPathPlan(render(routed), render(several))).toBeUndefined();
  });

  it('the read-back compares only what the commands touched', () => {
    const next = changed((s) => {
      s.vrf[0]!.community = '65000:999';
    });
    const plan = fastPathPlan(render(several), render(next))!;
    const expected = parseConfig(render(next));
    // FRR running the old file: the touched entry differs; the untouched rest is not looked at.
    expect(touchedMismatches(parseConfig(render(several)), expected, plan.touched).length).toBeGreaterThan(0);
    expect(touchedMismatches(expected, expected, plan.touched)).toEqual([]);
  });
});

describe('fast path read-back: each touched object, from every daemon that holds it', () => {
  const file = [
    'ip prefix-list pl_a seq 1 deny 10.0.0.0/24 le 32',
    'ip prefix-list pl_a seq 2 permit 10.1.0.0/16',
    'route-map rm_a permit 10',
    ' match ip address prefix-list pl_a',
    ' set community 65000:1 additive',
    'exit',
    'route-map rm_a deny 65535',
    'exit',
  ].join('\n');
  const expected = parseConfig(file);
  // The plan replaced seq 1 (permit → deny) and edited entry 10.
  const touched = new Set([
    'ip prefix-list pl_a seq 1 deny 10.0.0.0/24 le 32',
    'ip prefix-list pl_a seq 1 permit 10.0.0.0/24 le 32',
    'route-map rm_a permit 10',
  ]);
  type Entry = { sequenceNumber: number; type: string; prefix: string; maximumPrefixLength?: number };
  const e = (seq: number, type: string, prefix: string, le?: number): Entry => ({
    sequenceNumber: seq,
    type,
    prefix,
    ...(le !== undefined ? { maximumPrefixLength: le } : {}),
  });
  const list = (daemon: string, entries: Entry[]): string =>
    JSON.stringify({ [daemon]: { pl_a: { addressFamily: 'IPv4', entries } } }, null, 2);
  const good = [e(1, 'deny', '10.0.0.0/24', 32), e(2, 'permit', '10.1.0.0/16')];
  const rule = (seq: number, type: string, match: string[], set: string[]): object => ({
    sequenceNumber: seq,
    type,
    invoked: 0,
    matchClauses: match,
    setClauses: set,
    action: 'Exit routemap',
  });
  const map = (daemon: string, rules: object[]): string =>
    JSON.stringify({ [daemon]: rules.length ? { rm_a: { invoked: 0, rules } } : {} }, null, 2);
  const match = ['ip address prefix-list pl_a'];
  const zebraRules = [rule(10, 'permit', match, []), rule(65535, 'deny', [], [])];
  const bgpRules = [rule(10, 'permit', match, ['community 65000:1 additive']), rule(65535, 'deny', [], [])];
  const lists = (zebra: Entry[], bgp: Entry[]): string => `${list('ZEBRA', zebra)}\n${list('BGP', bgp)}`;
  const maps = (zebra: object[], bgp: object[]): string => `${map('ZEBRA', zebra)}\n${map('BGP', bgp)}`;
  const rb = readBackFor(expected, touched, parseConfig);

  it('asks for the touched list and map by name, not for the running config', () => {
    expect(rb.commands).toEqual(['show ip prefix-list pl_a json', 'show route-map rm_a json']);
  });

  it("finds nothing when every daemon holds the file's objects (the set clause in bgpd only)", () => {
    expect(rb.mismatches([lists(good, good), maps(zebraRules, bgpRules)])).toEqual([]);
  });

  it('finds the old line in one daemon, a line added by hand, and a list bgpd does not show', () => {
    const old = [e(1, 'permit', '10.0.0.0/24', 32), e(2, 'permit', '10.1.0.0/16')];
    expect(rb.mismatches([lists(good, old), maps(zebraRules, bgpRules)])).toEqual([
      expect.stringMatching(
        /^BGP runs ip prefix-list pl_a without \[.*seq 1 deny.*\], with \[.*seq 1 permit/,
      ),
    ]);
    const added = [...good, e(7, 'permit', '10.78.0.0/16')];
    expect(rb.mismatches([lists(added, good), maps(zebraRules, bgpRules)])).toHaveLength(1);
    expect(rb.mismatches([list('ZEBRA', good), maps(zebraRules, bgpRules)])).toEqual([
      'ip prefix-list pl_a: bgpd does not show it',
    ]);
  });

  it('finds a clause no daemon holds, a clause the file lacks, an entry the file lacks', () => {
    const noSet = [rule(10, 'permit', match, []), rule(65535, 'deny', [], [])];
    expect(rb.mismatches([lists(good, good), maps(zebraRules, noSet)])).toEqual([
      'route-map rm_a permit 10 lacks [set community 65000:1 additive]',
    ]);
    const extra = [rule(10, 'permit', match, ['local-preference 50']), rule(65535, 'deny', [], [])];
    expect(rb.mismatches([lists(good, good), maps(extra, bgpRules)])).toHaveLength(1);
    const more = [...bgpRules, rule(20, 'permit', [], [])];
    expect(rb.mismatches([lists(good, good), maps(zebraRules, more)])).toEqual([
      'BGP runs route-map rm_a permit 20, the file has no such entry',
    ]);
    expect(rb.mismatches([lists(good, good), maps(zebraRules, [])])[0]).toBe(
      'route-map rm_a: bgpd does not show it',
    );
  });

  it("reads the running config when a touched list goes away; bgpd's config for VRF instance lines", () => {
    const gone = readBackFor(
      expected,
      new Set(['ip prefix-list pl_b seq 1 permit 10.2.0.0/16']),
      parseConfig,
    );
    expect(gone.commands).toEqual(['show running-config']);
    expect(gone.mismatches([file])).toEqual([]);
    expect(gone.mismatches([`${file}\nip prefix-list pl_b seq 1 permit 10.2.0.0/16`])).toHaveLength(1);
    const af = 'router bgp 1 vrf red\naddress-family ipv4 unicast';
    const vrfLine = readBackFor(parseConfig(`${file}\n${AF_TEXT}`), new Set([af]), parseConfig);
    expect(vrfLine.commands).toEqual(['show running-config bgpd']);
    expect(vrfLine.mismatches([AF_TEXT])).toEqual([]);
    expect(vrfLine.mismatches([AF_TEXT.replace('10.9.0.0/16', '10.8.0.0/16')])).toHaveLength(2);
  });

  it('splits one JSON object per daemon, braces inside strings included', () => {
    const m = perDaemonJson('{\n  "ZEBRA":{"a":"}{"}\n}\n{\n  "BGP":{}\n}\n');
    expect([...m]).toEqual([
      ['ZEBRA', { a: '}{' }],
      ['BGP', {}],
    ]);
    expect(() => perDaemonJson('{"BGP":{')).toThrow();
  });
});

const AF_TEXT = [
  'router bgp 1 vrf red',
  ' address-family ipv4 unicast',
  '  aggregate-address 10.9.0.0/16',
  ' exit-address-family',
  'exit',
].join('\n');

describe('one vtysh run, several show commands', () => {
  const commands = ['show running-config', 'show vrf vni json', 'show evpn vni json'];
  it('splits at each echoed command, in order; an empty answer stays empty', () => {
    const out = [
      'node-1# show running-config',
      'frr version 8.4.4',
      'end',
      'node-1# show vrf vni json',
      '{"vrfs":[]}',
      'node-1# show evpn vni json',
    ].join('\n');
    expect(splitEchoed(out, commands)).toEqual(['frr version 8.4.4\nend', '{"vrfs":[]}', '']);
  });
  it('a command that never ran has no answer', () => {
    expect(splitEchoed('h# show running-config\n% bgpd is not running', commands)).toEqual([
      '% bgpd is not running',
      undefined,
      undefined,
    ]);
  });
});

describe('drift in-process: running config against the file', () => {
  it('finds what a hand-made change added and removed, in the items --test prints', () => {
    const file = render(several);
    const removed = /^ip prefix-list .*$/m.exec(file)![0];
    const running = file
      .replace(`${removed}\n`, '')
      .replace(/^( match ip address prefix-list \S+\n)/m, '$1 set local-preference 50\n');
    const d = configDrift(running, file);
    expect(d.toAdd).toEqual([removed]);
    expect(d.toDelete).toEqual([
      expect.stringMatching(/^route-map \S+ (permit|deny) \d+ \/ no set local-preference 50$/),
    ]);
  });

  it('does not count what FRR shows its own way: host name, version, empty address-family', () => {
    const shown = render(goldenCases.empty!);
    // The file has an address-family nothing fills; FRR leaves it out of its running config.
    const file = shown.replace(
      ' address-family l2vpn evpn\n',
      ' address-family ipv4 multicast\n exit-address-family\n !\n address-family l2vpn evpn\n',
    );
    expect(file).not.toBe(shown);
    const running = `frr version 8.4.4\n${shown.replace('hostname node-1', 'hostname other')}`;
    expect(configDrift(running, file)).toEqual({ toAdd: [], toDelete: [] });
  });
});
