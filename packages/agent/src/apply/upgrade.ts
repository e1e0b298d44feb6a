/**
 * Agent upgrades are confirmed like any change (issue #36, invariant 14). The checkpoint keeps what
 * the agent put on the host for the applied spec (its FRR file and netlink model). The first time a
 * process resyncs the applied spec it renders it again: when this binary renders it differently from
 * what its predecessor recorded (or, with a checkpoint of an older agent, from the FRR file on the
 * host), the difference is applied through the confirm window, not as drift repair. When the window
 * holds, the new rendering is recorded. When it fails, the previous rendering is put back, the
 * report says `AgentUpgradeFailed` with the difference, and the agent stays not ready (readiness
 * names the cause), so a DaemonSet rolling update stops at this node; drift repair then keeps the
 * previous rendering, until a new revision is applied.
 *
 * A difference between the host and the recorded rendering that this binary does not cause (a hand
 * edit) is drift: the renderings agree, and `resync` repairs it as before.
 */
import { canonicalJson, shortHash } from '@nodenet/api';
import { describeCause } from '../errors.js';
import { judge } from '../health/index.js';
import type { AppliedCheckpoint, HostRendering } from './checkpoint.js';
import { confirmApplied } from './confirm-applied.js';
import { runStep, STEP_LABEL, StepError, type DesiredConfig, type ReconcileOutcome } from './contract.js';
import type { PipelineState, Stepped } from './decide.js';
import type { ApplyPorts } from './ports.js';

/** What this binary renders differently from the rendering on the host. */
interface Upgrade {
  applied: AppliedCheckpoint;
  before: { frr: string | null; netlink?: unknown[] };
  after: HostRendering;
  /** The lines and devices that differ, as a person reads them. */
  difference: string;
}

/** Lines of `a` not in `b`, each once, quoted, at most `max` of them. */
function linesOnlyIn(a: string, b: string, max = 5): string[] {
  const other = new Set(b.split('\n'));
  const only = [...new Set(a.split('\n').filter((l) => !other.has(l) && l.trim() !== ''))];
  return [
    ...only.slice(0, max).map((l) => JSON.stringify(l)),
    ...(only.length > max ? [`(+${only.length - max} more)`] : []),
  ];
}

/** The difference of two renderings: FRR lines removed and added, managed devices that differ. */
export function renderingDifference(
  before: { frr: string | null; netlink?: unknown[] },
  after: HostRendering,
): string {
  const parts: string[] = [];
  if (before.frr !== null && before.frr !== after.frr) {
    const removed = linesOnlyIn(before.frr, after.frr);
    const added = linesOnlyIn(after.frr, before.frr);
    const sides = [
      removed.length ? `- ${removed.join(' ')}` : '',
      added.length ? `+ ${added.join(' ')}` : '',
    ];
    parts.push(`frr.conf: ${sides.filter(Boolean).join('; ') || 'line order'}`);
  }
  if (before.netlink && canonicalJson(before.netlink) !== canonicalJson(after.netlink)) {
    const json = (xs: unknown[]): Map<string, string> =>
      new Map(xs.map((d) => [String((d as { name?: unknown }).name), canonicalJson(d)]));
    const [a, b] = [json(before.netlink), json(after.netlink)];
    const names = [...new Set([...a.keys(), ...b.keys()])].filter((n) => a.get(n) !== b.get(n)).sort();
    parts.push(
      `devices: ${names.slice(0, 10).join(', ')}${names.length > 10 ? ` (+${names.length - 10} more)` : ''}`,
    );
  }
  return parts.join('; ');
}

/** What this binary renders for the applied spec, and whether it differs from what is on the host. */
async function findUpgrade(
  ports: ApplyPorts,
  applied: AppliedCheckpoint,
): Promise<Upgrade | 'same' | undefined> {
  const { frr, netlink } = ports.drivers;
  if (!frr.render || !frr.onHost || !netlink.rendering) return undefined;
  // The applied spec's BGP passwords (issue 41), so that it renders: from the book, else their Secrets.
  await frr.prepare?.(applied.spec);
  const after: HostRendering = {
    frr: frr.render(applied.spec),
    netlink: await netlink.rendering(applied.spec),
  };
  // A checkpoint of an older agent records nothing: its FRR file on the host is what it rendered.
  const before = applied.rendered ?? { frr: await frr.onHost() };
  const difference = renderingDifference(before, after);
  return difference === '' ? 'same' : { applied, before, after, difference };
}

/**
 * Once per process, before the first resync of the applied spec: apply what this binary renders
 * differently through the confirm window (see the module comment). Returns undefined when there is
 * nothing to upgrade (the caller resyncs as usual).
 */
export async function upgradeOnce(
  ports: ApplyPorts,
  state: PipelineState,
  desired: DesiredConfig,
): Promise<Stepped<ReconcileOutcome> | { state: PipelineState; outcome?: undefined }> {
  const checked = { ...state, upgradeChecked: true };
  const applied = state.applied;
  if (state.upgradeChecked || !applied) return { state: checked };
  let found: Upgrade | 'same' | undefined;
  try {
    found = await findUpgrade(ports, applied);
  } catch (err) {
    ports.log.warn(
      { err: describeCause(err) },
      'cannot render the applied config to compare; resyncing as usual',
    );
    return { state: checked };
  }
  if (found === undefined) return { state: checked };
  if (found === 'same') {
    if (applied.rendered) return { state: checked };
    // A checkpoint of an older agent: record the rendering, so the next binary can compare with it.
    const rendering = {
      frr: ports.drivers.frr.render!(applied.spec),
      netlink: await ports.drivers.netlink.rendering!(applied.spec),
    };
    const saved = await ports.checkpoints.saveApplied(applied.spec, rendering).catch(() => applied);
    return { state: { ...checked, applied: saved } };
  }
  return confirmUpgrade(ports, checked, desired, found);
}

async function confirmUpgrade(
  ports: ApplyPorts,
  state: PipelineState,
  desired: DesiredConfig,
  upgrade: Upgrade,
): Promise<Stepped<ReconcileOutcome>> {
  const { spec } = upgrade.applied;
  const revision = spec.revision;
  const { frr, netlink } = ports.drivers;
  ports.log.warn(
    { revision, difference: upgrade.difference },
    'this agent renders the applied revision differently from the agent before it; applying the difference through the confirm window',
  );
  const progress = {
    configStatus: 'provisioned' as const,
    revision,
    lastAppliedRevision: revision,
    observedGeneration: desired.generation,
  };
  ports.selectHealth(spec);
  const baseline = await ports.runHealth();
  try {
    const netlinkChanged =
      upgrade.before.netlink !== undefined &&
      canonicalJson(upgrade.before.netlink) !== canonicalJson(upgrade.after.netlink);
    if (netlinkChanged) await runStep('netlink', () => netlink.apply(spec));
    await runStep('frr', () => frr.applyText!(upgrade.after.frr));
    const verdict = judge(await ports.runHealth(), baseline);
    if (!verdict.ok) throw new StepError('health', verdict.summary);
    await confirmApplied(ports, progress, baseline);
    const saved = await runStep('checkpoint', () => ports.checkpoints.saveApplied(spec, upgrade.after));
    const message = `revision ${shortHash(revision)} applied; agent upgrade confirmed (${upgrade.difference})`;
    ports.status.report({ ...progress, reason: 'Provisioned', message });
    ports.log.info({ revision, difference: upgrade.difference }, 'agent upgrade confirmed');
    return {
      state: { ...state, applied: saved, upgradeFailed: undefined },
      outcome: { kind: 'unchanged', revision, driftOperations: 0, frrChanged: true },
    };
  } catch (err) {
    return failUpgrade(ports, state, { desired, upgrade, err });
  }
}

/** `<step> failed: <why>`, as an apply's report says it. */
const failureText = (err: unknown): string =>
  err instanceof StepError ? `${STEP_LABEL[err.step]} failed: ${err.message}` : describeCause(err);

/** Put the previous rendering back, say so, and stay not ready. */
async function failUpgrade(
  ports: ApplyPorts,
  state: PipelineState,
  failed: { desired: DesiredConfig; upgrade: Upgrade; err: unknown },
): Promise<Stepped<ReconcileOutcome>> {
  const { desired, upgrade, err } = failed;
  const revision = upgrade.applied.revision;
  const { frr, netlink } = ports.drivers;
  let restored = 'the previous rendering is back on the host';
  try {
    if (upgrade.before.netlink && netlink.applyRendering)
      await netlink.applyRendering(upgrade.before.netlink);
    if (upgrade.before.frr !== null) await frr.applyText!(upgrade.before.frr, { repair: true });
  } catch (restoreErr) {
    restored = `restoring the previous rendering failed too: ${describeCause(restoreErr)}`;
  }
  const message = `AgentUpgradeFailed: this agent renders revision ${shortHash(revision)} differently from the agent before it (${upgrade.difference}); ${failureText(err)}; ${restored}`;
  ports.log.error({ revision, difference: upgrade.difference, err: describeCause(err) }, message);
  ports.metrics.failures.inc({ step: err instanceof StepError ? err.step : 'confirm' });
  ports.status.report({
    configStatus: 'provisioned',
    revision,
    lastAppliedRevision: revision,
    reason: 'AgentUpgradeFailed',
    message,
    observedGeneration: desired.generation,
  });
  return {
    state: { ...state, upgradeFailed: { message, rendering: upgrade.before } },
    outcome: { kind: 'unchanged', revision, driftOperations: 0, frrChanged: true, error: message },
  };
}

/**
 * Drift repair after a failed upgrade: towards the previous rendering, which stays on the host
 * (this binary's would be the change that failed). No status change.
 */
export async function holdPrevious(
  ports: ApplyPorts,
  state: PipelineState & { upgradeFailed: NonNullable<PipelineState['upgradeFailed']> },
  desired: DesiredConfig,
): Promise<Stepped<ReconcileOutcome>> {
  const { rendering, message } = state.upgradeFailed;
  const { frr, netlink } = ports.drivers;
  let operations = 0;
  let changed = false;
  try {
    if (rendering.netlink && netlink.applyRendering)
      operations = (await netlink.applyRendering(rendering.netlink)).operations;
    if (rendering.frr !== null) changed = (await frr.syncText!(rendering.frr)).changed;
  } catch (err) {
    ports.log.error({ err: describeCause(err) }, 'drift repair towards the previous rendering failed');
  }
  return {
    state,
    outcome: {
      kind: 'unchanged',
      revision: desired.spec.revision,
      driftOperations: operations,
      frrChanged: changed,
      error: message,
    },
  };
}
