/**
 * A node's loopback addresses in its VRF entry's export prefix-list: one `permit <address>/32`
 * (or `/128`) line each, numbered after the entry's own lines of that family, so the VRF's export
 * route-map (EVPN type-5 advertisement, with the entry's community) carries them. The VRF instance's
 * `redistribute connected` already brings the host route from the VRF device into BGP. Pure.
 */
import { MAX_PREFIX_SEQ, parsePrefix, type NodeLoopbackAddress } from '@nodenet/api';
import { FrrRenderError } from '../errors.js';
import type { Family } from './vocabulary.js';
import type { SeqLines } from './seq-lines.js';

/**
 * Appends the loopback lines to `perFamily` (the entry's export lines); throws FrrRenderError.
 * Validation keeps room for them (api `vrfLoopbackSeqRoom`), so this throws only on a spec no
 * configurator accepted.
 */
export function addLoopbackLines(
  at: string,
  addresses: readonly NodeLoopbackAddress[] | undefined,
  perFamily: Record<Family, SeqLines>,
): void {
  (addresses ?? []).forEach((l, j) => {
    const field = `${at}.loopbackAddresses[${j}].address`;
    const r =
      typeof l.address === 'string'
        ? parsePrefix(`${l.address}/${l.address.includes(':') ? 128 : 32}`)
        : undefined;
    if (!r?.ok) throw new FrrRenderError(field, l.address, r?.reason ?? 'must be a string');
    const { family, address, max } = r.prefix;
    const lines = perFamily[family];
    const seq = lines.max + 1;
    if (seq > MAX_PREFIX_SEQ)
      throw new FrrRenderError(
        field,
        l.address,
        `no prefix-list sequence number left after ${MAX_PREFIX_SEQ}`,
      );
    lines.add({ seq, action: 'permit' }, `${address}/${max}`);
  });
}
