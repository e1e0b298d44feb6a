/**
 * The site's part of the peering guards (issue #37, @nodenet/api underlay-guards.ts): the underlay's
 * prefixes and whether peerings may use the default VRF or import the default route there anywhere.
 * Flags, not an object: who deploys the configurator owns the underlay; no input's writer can
 * change them. The nodes' own addresses come from their Node status, not from here.
 */
import type { Command } from 'commander';
import { siteUnderlayOf } from '@nodenet/api';
import type { SiteUnderlay } from '../build/index.js';

export type { SiteUnderlay };

export interface RawUnderlayOptions {
  underlayCidr?: string;
  allowDefaultVrfPeering?: boolean;
  allowDefaultRouteImport?: boolean;
}

export function withUnderlayOptions(program: Command): Command {
  return program
    .option(
      '--underlay-cidr <cidr,...>',
      'prefixes of the underlay (node and fabric addresses): a BGPPeering in the default VRF may not listen on or import routes over them',
    )
    .option(
      '--allow-default-vrf-peering',
      'BGPPeerings may use the default VRF (the underlay) site-wide; without it, only on Layer-2 networks whose spec.peering.defaultVrf allows it',
    )
    .option(
      '--allow-default-route-import',
      'BGPPeerings in the default VRF may import the default route site-wide; without it, only on networks whose spec.peering.defaultRoute allows it',
    );
}

export function siteUnderlay(raw: RawUnderlayOptions): SiteUnderlay {
  return siteUnderlayOf(raw);
}
