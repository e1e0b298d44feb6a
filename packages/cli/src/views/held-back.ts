/**
 * Inputs that are not in force, as the configurator recorded on them (pure): refused generations
 * (`Accepted=False`: their previous generation stays in force), generations held back after a
 * failed rollout (`Applied=False RolledBack`), generations no revision carries yet because its
 * create failed (`Applied=False RevisionNotCreated`), and inputs whose node selector matches no
 * node (`Selected=False`).
 */
import { findCondition, type InputObject, type Inputs } from '@nodenet/api';

const HELD_REASONS = new Set(['RolledBack', 'Blocked', 'RevisionNotCreated', 'HeldBack']);
const firstLine = (s: string | undefined): string => (s ?? '').split('\n')[0] ?? '';

export function heldBack(inputs: Inputs): string[] {
  const all: InputObject[] = [
    ...inputs.vrf,
    ...inputs.layer2,
    ...inputs.routingTable,
    ...(inputs.bgpPeering ?? []),
  ];
  const out: string[] = [];
  for (const o of all) {
    const who = `${o.kind}/${o.metadata.name}`;
    const conditions = o.status?.conditions;
    const accepted = findCondition(conditions, 'Accepted');
    const applied = findCondition(conditions, 'Applied');
    const selected = findCondition(conditions, 'Selected');
    if (accepted?.status === 'False') out.push(`${who} rejected (held back): ${firstLine(accepted.message)}`);
    else if (applied?.status === 'False' && HELD_REASONS.has(applied.reason))
      out.push(`${who} not in force (${applied.reason}): ${firstLine(applied.message)}`);
    if (selected?.status === 'False')
      out.push(`${who} selects no node (${selected.reason}): ${firstLine(selected.message)}`);
  }
  return out;
}
