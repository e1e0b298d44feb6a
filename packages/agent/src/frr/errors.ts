import { redactPasswords } from './text/index.js';

/**
 * Typed errors of the FRR driver. Each one carries the context a person needs to act: the field and
 * value the renderer refused, the placeholder the template got wrong, or the step of an apply that
 * failed together with FRR's own message.
 */

/** The renderer refused a value outside its grammar (defence in depth behind upstream validation). */
export class FrrRenderError extends Error {
  override readonly name = 'FrrRenderError';
  constructor(
    /** Path of the offending field, e.g. `vrf[2].export[0].cidr` or `settings.asn`. */
    readonly field: string,
    /** The refused value, as received. */
    readonly value: unknown,
    readonly reason: string,
  ) {
    super(`${field}: ${JSON.stringify(value)} ${reason}`);
  }
}

/** The operator's base template is malformed (unknown, misplaced, duplicated or missing placeholder). */
export class FrrTemplateError extends Error {
  override readonly name = 'FrrTemplateError';
  constructor(
    readonly reason: string,
    /** 1-based line of the template, when the problem is on one line. */
    readonly line?: number,
  ) {
    super(line !== undefined ? `FRR template line ${line}: ${reason}` : `FRR template: ${reason}`);
  }
}

/** Where an apply failed. */
export type FrrApplyStep = 'write' | 'check' | 'prepare' | 'reload' | 'verify' | 'restore';

/** An apply or restore failed; `frrMessage` quotes what FRR (vtysh / frr-reload.py) said. */
export class FrrApplyError extends Error {
  override readonly name = 'FrrApplyError';
  /** FRR's own output explaining the failure (trimmed; BGP passwords redacted). */
  readonly frrMessage: string;
  constructor(
    readonly step: FrrApplyStep,
    frrMessage: string,
    /** After a failed reload: whether the previous file was put back and reloaded successfully. */
    readonly restored?: boolean,
    options?: { cause?: unknown },
  ) {
    frrMessage = redactPasswords(frrMessage);
    super(
      `FRR ${step} failed: ${frrMessage || '(no output)'}` +
        (restored === undefined ? '' : restored ? ' (previous configuration restored)' : ' (restore FAILED)'),
      options,
    );
    this.frrMessage = frrMessage;
  }
}
