/**
 * The names of the devices a spec needs, without the agent's settings: what a restore uses to tell
 * what a later change added when the full host view of the restored spec cannot be built (a
 * missing VTEP interface, apply/restore.ts). Pure.
 */
import { desiredModel, type DesiredInput } from './desired.js';
import type { HostSettings } from './model.js';

/** Settings that make any spec's model: only the device names of such a model are used. */
const NAMES_ONLY_SETTINGS: HostSettings = { vtepAddress: '0.0.0.0' };

/**
 * The names of the devices `spec` needs. They depend on the spec alone (desired.ts, its layout), not on
 * the agent's settings (VTEP interface and address, VXLAN port, table range) nor on the table
 * allocation, so a restore can tell what a change added even when the agent's settings are broken.
 * Throws DesiredStateError for a spec no model can be made of (a name clash, a name too long).
 */
export function specDeviceNames(spec: DesiredInput['spec']): Set<string> {
  const tables = new Map(spec.vrf.map((v, i) => [v.vrf, i + 1]));
  return new Set(desiredModel({ spec, settings: NAMES_ONLY_SETTINGS, tables }).keys());
}
