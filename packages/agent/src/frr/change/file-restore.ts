/**
 * FRR's file from before an attempt, put back without rendering anything: the part of a restore
 * that still works when the agent cannot render the restored spec (a template vtysh refuses, apply/
 * restore.ts). Which file is right is told by content, never by time: pending.json keeps the sha256
 * of frr.conf as the attempt found it. frr.conf still that file: the attempt never wrote it, FRR
 * runs it (an apply writes the file before it reloads). The file the last apply replaced
 * (`frr.conf.nodenet-previous`) that file: the attempt wrote frr.conf, and that one goes back.
 * Neither: the restore cannot tell which file FRR should run, and says so.
 */
import { sha256Hex } from '@nodenet/api';
import type { FrrDriver } from './driver.js';
import { FrrApplyError } from '../errors.js';
import { readIfExists } from './files.js';

/** sha256 of the managed frr.conf; undefined when there is none. */
export async function configFileHash(driver: Pick<FrrDriver, 'instance'>): Promise<string | undefined> {
  const text = await readIfExists(driver.instance.configFile);
  return text === null ? undefined : sha256Hex(text);
}

/**
 * Makes FRR run the file whose sha256 is `before` (see the module comment): 'untouched' when
 * frr.conf is that file, 'restored' when the previous file was and is back and reloaded. Throws
 * FrrApplyError('restore') when neither is, or the reload fails.
 */
export async function restoreFileBefore(
  driver: Pick<FrrDriver, 'instance' | 'restore'>,
  before: string,
): Promise<'untouched' | 'restored'> {
  if ((await configFileHash(driver)) === before) return 'untouched';
  const previous = await readIfExists(driver.instance.previousFile);
  if (previous === null || sha256Hex(previous) !== before)
    throw new FrrApplyError(
      'restore',
      `neither ${driver.instance.configFile} nor ${driver.instance.previousFile} is the file FRR ran before the change`,
    );
  await driver.restore();
  return 'restored';
}
