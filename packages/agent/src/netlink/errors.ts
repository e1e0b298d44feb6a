/**
 * Errors of the netlink driver. Each names what an operator needs to act on it: the field and value
 * of a bad input, the device, the operation and the kernel's answer of a failed change, the kernel
 * option behind a missing device type.
 */

import { NodenetError } from '@nodenet/api';

/** Base class of the netlink driver's errors (`code` stable, message for people). */
export class NetlinkDriverError extends NodenetError {}

/** The desired state can't be built: bad setting, name clash, too long a name, exhausted table range. */
export class DesiredStateError extends NetlinkDriverError {
  constructor(
    readonly field: string,
    readonly value: unknown,
    reason: string,
  ) {
    super('InvalidDesiredState', `${field}=${JSON.stringify(value)}: ${reason}`);
  }
}

/** The kernel refused (or never answered) one operation. */
export class NetlinkOperationError extends NetlinkDriverError {
  constructor(
    readonly device: string,
    readonly operation: string,
    /** errno name of the kernel's answer, e.g. EEXIST, EOPNOTSUPP; undefined when none came. */
    readonly errno: string | undefined,
    readonly kernelMessage: string,
    options?: { cause?: unknown },
  ) {
    super(
      'NetlinkOperationFailed',
      `${operation}: device ${device}: kernel answered ${kernelMessage}`,
      options,
    );
  }
}

/** The running kernel lacks a device type the desired state needs. */
export class KernelSupportError extends NetlinkDriverError {
  constructor(readonly missing: { kind: string; config: string }[]) {
    super(
      'KernelSupportMissing',
      missing.map((m) => `kernel lacks ${m.kind} devices (${m.config})`).join('; '),
    );
  }
}

/** Reading the host state failed. */
export class NetlinkReadError extends NetlinkDriverError {
  constructor(what: string, options?: { cause?: unknown }) {
    super(
      'NetlinkReadFailed',
      `reading ${what} over netlink failed: ${causeMessage(options?.cause)}`,
      options,
    );
  }
}

export function causeMessage(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
