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

/** What a refused operation was and what the kernel said. */
export interface OperationFailure {
  device: string;
  operation: string;
  /** errno name of the kernel's answer, e.g. EEXIST, EOPNOTSUPP; undefined when none came. */
  errno: string | undefined;
  kernelMessage: string;
}

/** The kernel refused (or never answered) one operation. */
export class NetlinkOperationError extends NetlinkDriverError {
  readonly device: string;
  readonly operation: string;
  readonly errno: string | undefined;
  readonly kernelMessage: string;

  constructor(failure: OperationFailure, options?: { cause?: unknown }) {
    super(
      'NetlinkOperationFailed',
      `${failure.operation}: device ${failure.device}: kernel answered ${failure.kernelMessage}`,
      options,
    );
    this.device = failure.device;
    this.operation = failure.operation;
    this.errno = failure.errno;
    this.kernelMessage = failure.kernelMessage;
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

/**
 * The desired state needs device names that devices nodenet does not own hold (they lack the
 * `nodenet` interface alias). Raised before any change: nodenet never changes or deletes such a device.
 */
export class DeviceOwnershipError extends NetlinkDriverError {
  constructor(readonly devices: { name: string; kind: string }[]) {
    const list = devices.map((d) => `${d.name} (${d.kind})`).join(', ');
    const first = devices[0]?.name ?? '<name>';
    super(
      'DeviceNotOwned',
      `device${devices.length > 1 ? 's' : ''} ${list} ${devices.length > 1 ? 'exist' : 'exists'} but ` +
        `${devices.length > 1 ? 'were' : 'was'} not made by nodenet (no interface alias "nodenet"), and the ` +
        `desired state needs ${devices.length > 1 ? 'these names' : 'this name'}; nodenet changes nothing. ` +
        `Remove or rename ${devices.length > 1 ? 'them' : 'it'} (ip link del ${first}), or hand ` +
        `${devices.length > 1 ? 'them' : 'it'} over to nodenet (ip link set ${first} alias nodenet)`,
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
