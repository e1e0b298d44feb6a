/**
 * Which daemons vtysh sends a command to, for the commands the fast path sends (fast-path.ts) and
 * the shows its read-back asks (read-back.ts), so that they can go straight to the daemons' vty
 * sockets (vty-apply.ts) and reach exactly the daemons vtysh would reach. vtysh decides by the
 * source file that defines a command (FRR 8.4's vtysh/extract.pl.in, the sets of vtysh/vtysh.h):
 *  - `ip[v6] prefix-list …` (lib/filter_cli.c): VTYSH_ACL;
 *  - `route-map NAME ACTION SEQ`, `no route-map …`, `match ip[v6] address prefix-list …`
 *    (lib/routemap_cli.c) and `show route-map` (lib/routemap.c): VTYSH_RMAP;
 *  - `set [large-]community …` (bgpd/bgp_routemap.c), `router bgp …` and what is inside it: bgpd;
 *  - `exit` leaves a node in the daemons that entered it (vtysh's `exit` of that node has their set);
 *  - `show ip[v6] prefix-list …` (lib/plist.c): its own set per family; `show running-config
 *    bgpd`: bgpd's own `show running-config`.
 * vtysh asks them in its client order (`vtysh_client[]`), skipping those not running. Any other
 * command is not known here: undefined, and the caller uses vtysh. Pure.
 */

/** vtysh's client order (FRR 8.4 `vtysh_client[]`): the order a command reaches the daemons. */
export const VTYSH_ORDER = [
  'zebra',
  'ripd',
  'ripngd',
  'ospfd',
  'ospf6d',
  'ldpd',
  'bgpd',
  'isisd',
  'pimd',
  'nhrpd',
  'eigrpd',
  'babeld',
  'sharpd',
  'fabricd',
  'watchfrr',
  'pbrd',
  'staticd',
  'bfdd',
  'vrrpd',
  'pathd',
  'pim6d',
] as const;

const ACL = new Set([
  'bfdd',
  'babeld',
  'bgpd',
  'eigrpd',
  'isisd',
  'fabricd',
  'ldpd',
  'nhrpd',
  'ospf6d',
  'ospfd',
  'pbrd',
  'pimd',
  'pim6d',
  'ripd',
  'ripngd',
  'vrrpd',
  'zebra',
]);
const RMAP = new Set([
  'zebra',
  'ripd',
  'ripngd',
  'ospfd',
  'ospf6d',
  'bgpd',
  'isisd',
  'pimd',
  'eigrpd',
  'fabricd',
]);
const BGPD = new Set(['bgpd']);
const SHOW_PLIST4 = new Set([
  'ripd',
  'ospfd',
  'bgpd',
  'zebra',
  'pimd',
  'eigrpd',
  'babeld',
  'isisd',
  'fabricd',
]);
const SHOW_PLIST6 = new Set(['ripngd', 'ospf6d', 'bgpd', 'zebra', 'pim6d', 'babeld', 'isisd', 'fabricd']);

/** A command and the daemons it goes to. */
export interface DaemonStep {
  command: string;
  daemons: ReadonlySet<string>;
}

const PREFIX_LIST = /^(no )?(ip|ipv6) prefix-list \S+ seq \d+ (permit|deny) \S+( (ge|le) \d+)*$/;
const ROUTE_MAP = /^(no )?route-map \S+ (permit|deny) \d+$/;
const MATCH_PLIST = /^(no )?match (ip|ipv6) address prefix-list \S+$/;
const SET_COMMUNITY = /^(no )?set (large-)?community \S+( \S+)*$/;
const ROUTER_BGP_VRF = /^router bgp \d+ vrf \S+$/;
const ADDRESS_FAMILY = /^address-family (ipv4 unicast|ipv6 unicast|l2vpn evpn)$/;
const BGP_LINE = /^(no )?(aggregate-address \S+( \S+)*|route-target (import|export) \S+)$/;

/** The daemons of a command at the top level of `configure`; a context it enters, or undefined. */
function topLevel(command: string): { daemons: ReadonlySet<string>; enters: boolean } | undefined {
  if (PREFIX_LIST.test(command)) return { daemons: ACL, enters: false };
  if (ROUTE_MAP.test(command)) return { daemons: RMAP, enters: !command.startsWith('no ') };
  if (ROUTER_BGP_VRF.test(command)) return { daemons: BGPD, enters: true };
  return undefined;
}

/** The daemons of a command inside the context entered by `context`, or undefined. */
function inside(context: readonly string[], command: string): ReadonlySet<string> | undefined {
  if (ROUTE_MAP.test(context[0]!) && context.length === 1) {
    if (MATCH_PLIST.test(command)) return RMAP;
    if (SET_COMMUNITY.test(command)) return BGPD;
    return undefined;
  }
  if (!ROUTER_BGP_VRF.test(context[0]!)) return undefined;
  if (context.length === 1 && ADDRESS_FAMILY.test(command)) return BGPD;
  if (context.length === 2 && BGP_LINE.test(command)) return BGPD;
  return undefined;
}

/**
 * The fast path's `configure` commands (from the top level, each context left by `exit`) with the
 * daemons of each, among `running`; undefined when a command is not one known here, a context is
 * left open, or a command would reach no running daemon (vtysh then says what it says).
 */
export function daemonSteps(
  commands: readonly string[],
  running: ReadonlySet<string>,
): DaemonStep[] | undefined {
  const steps: DaemonStep[] = [];
  const stack: { command: string; daemons: ReadonlySet<string> }[] = [];
  for (const command of commands) {
    let daemons: ReadonlySet<string> | undefined;
    if (command === 'exit') daemons = stack.pop()?.daemons;
    else if (stack.length === 0) {
      const top = topLevel(command);
      daemons = top?.daemons;
      if (top?.enters) stack.push({ command, daemons: top.daemons });
    } else {
      daemons = inside(
        stack.map((s) => s.command),
        command,
      );
      if (daemons && ADDRESS_FAMILY.test(command)) stack.push({ command, daemons });
    }
    const reached = daemons && new Set([...daemons].filter((d) => running.has(d)));
    if (!reached || reached.size === 0) return undefined;
    steps.push({ command, daemons: reached });
  }
  return stack.length === 0 ? steps : undefined;
}

/** `show running-config bgpd` is vtysh's name for bgpd's own `show running-config`. */
const OWN_CONFIG = 'show running-config bgpd';

/** What a read-back show (read-back.ts) is asked of each daemon. */
export const daemonCommand = (command: string): string =>
  command === OWN_CONFIG ? 'show running-config' : command;

/**
 * The daemons vtysh asks a read-back show, among `running`; undefined when unknown (the whole
 * `show running-config` among them: vtysh merges the daemons' texts its own way).
 */
export function showDaemons(command: string, running: ReadonlySet<string>): string[] | undefined {
  if (command === OWN_CONFIG) return running.has('bgpd') ? ['bgpd'] : undefined;
  const set = /^show ip prefix-list \S+ json$/.test(command)
    ? SHOW_PLIST4
    : /^show ipv6 prefix-list \S+ json$/.test(command)
      ? SHOW_PLIST6
      : /^show route-map \S+ json$/.test(command)
        ? RMAP
        : undefined;
  return set && inVtyshOrder([...set].filter((d) => running.has(d)));
}

/** `daemons` in vtysh's client order (unknown names last, by name). */
export function inVtyshOrder(daemons: Iterable<string>): string[] {
  const rank = (d: string): number => {
    const i = (VTYSH_ORDER as readonly string[]).indexOf(d);
    return i < 0 ? VTYSH_ORDER.length : i;
  };
  return [...daemons].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}
