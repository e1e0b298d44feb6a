/**
 * Server-side apply, approximated: each field manager's last applied configuration is kept, so fields
 * it applied before and leaves out now are removed (as with one manager on a real server); fields of
 * other writers are left alone. No managedFields, no conflicts. An apply becomes a create (object
 * absent) or a merge patch from the manager's previous configuration to its new one.
 */
import { badRequest } from '../objects/errors.js';
import type { WriteOptions } from './strategy.js';
import { clone, isObject, type KObject } from '../objects/types.js';

export type ApplyPlan =
  /** The object does not exist: create it from this body. */
  | { create: unknown; record: (uid: string | undefined) => void }
  /** The object exists: merge-patch it with this body. */
  | { mergePatch: unknown; record: (uid: string | undefined) => void };

/** An apply request: the object's name, the applied configuration, and the subresource applied to. */
export interface ApplyRequest {
  name: string;
  body: unknown;
  subresource: 'status' | undefined;
}

export class AppliedConfigs {
  /** Last applied configuration per object uid and field manager (`manager\0status` for the status). */
  private readonly byUid = new Map<string, Map<string, unknown>>();

  /**
   * Plans an apply of `body` to the object `existing` (undefined when absent); call `record` with the
   * written object's uid once the write succeeded.
   */
  plan(existing: KObject | undefined, request: ApplyRequest, opts: WriteOptions): ApplyPlan {
    const { name, body, subresource } = request;
    const manager = opts.fieldManager;
    if (!manager)
      throw badRequest('PATCH, application/apply-patch+yaml: fieldManager is required for apply requests');
    checkApplyDuplicates(opts);
    const slot = subresource ? `${manager}\0status` : manager;
    const applied = clone(body);
    const record = (uid: string | undefined): void => {
      if (!uid || opts.dryRun) return;
      let byManager = this.byUid.get(uid);
      if (!byManager) this.byUid.set(uid, (byManager = new Map<string, unknown>()));
      byManager.set(slot, applied);
    };
    if (!existing) {
      const create = isObject(body)
        ? { ...body, metadata: { ...(isObject(body.metadata) ? body.metadata : {}), name } }
        : body;
      return { create, record };
    }
    const previous = this.byUid.get(existing.metadata.uid ?? '')?.get(slot);
    return { mergePatch: previous === undefined ? body : appliedConfigPatch(previous, body), record };
  }

  /** Drops what was recorded for a deleted object. */
  forget(uid: string): void {
    this.byUid.delete(uid);
  }
}

/**
 * Merge patch turning a manager's previous applied configuration into its new one: fields it set
 * before and omits now become null (removed); everything else is the new configuration.
 */
export function appliedConfigPatch(previous: unknown, next: unknown): unknown {
  if (!isObject(previous) || !isObject(next)) return next;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(previous)) if (!(k in next)) out[k] = null;
  for (const [k, v] of Object.entries(next))
    out[k] = isObject(v) && isObject(previous[k]) ? appliedConfigPatch(previous[k], v) : v;
  return out;
}

/**
 * kube-apiserver's `applyPatcher` (handlers/patch.go) decodes an apply body leniently (the last of
 * repeated keys wins), applies it, then decodes it again strictly: under Strict a repeated key
 * refuses the apply with 400, under Warn each is a warning; nothing is checked under Ignore.
 */
function checkApplyDuplicates(opts: WriteOptions): void {
  const lines = opts.applyDuplicateKeys ?? [];
  if (!lines.length || opts.fieldValidation === 'Ignore') return;
  if (opts.fieldValidation === 'Strict')
    throw badRequest(
      `error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  ${lines.join('\n  ')}`,
    );
  opts.warnings?.push(...lines);
}
