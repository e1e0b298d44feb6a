/**
 * What a preview away from the node uses for what the agent takes from its own flags (the plugin's
 * `diff --host`, the configurator's revision disruption): a template of nodenet's sections only, so
 * that the plan holds every line nodenet changes and none of the operator's, and the deploy
 * manifest's AS number. The router ids and the VTEP address (documentation range) show only in
 * blocks a plan adds whole; no class depends on them.
 */
import { parseTemplate, type FrrTemplate } from '../frr/render/index.js';
import type { HostPlanSettings } from './plan-types.js';

/** nodenet's sections in the shape of deploy/agent/frr.conf.tpl. */
export const SECTIONS_TEMPLATE_TEXT = `{{ vrfs }}
{{ prefix_lists }}
{{ route_maps }}
router bgp {{ asn }}
 {{ bgp_default }}
 address-family ipv4 unicast
  {{ bgp_default_ipv4 }}
 exit-address-family
 address-family ipv6 unicast
  {{ bgp_default_ipv6 }}
 exit-address-family
exit
{{ bgp_vrfs }}
`;

let parsed: FrrTemplate | undefined;

export const sectionsTemplate = (): FrrTemplate => (parsed ??= parseTemplate(SECTIONS_TEMPLATE_TEXT));

export const PREVIEW_SETTINGS: HostPlanSettings = {
  host: { vtepAddress: '192.0.2.1' },
  frr: { asn: 65000, routerId: '192.0.2.1', vrfRouterId: '192.0.2.2' },
};
