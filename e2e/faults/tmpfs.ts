import { expect } from 'vitest';
import type { OPERATIONS } from '../../common/api/operations.js';
import { expectEnvelope } from '../helpers/envelope.js';
import type { TestStation } from '../helpers/station.js';
import { faceTemplate } from '../helpers/templates.js';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A real small filesystem (tmpfs) for storage-fault tests: a full disk and a read-only mount
 * behave exactly as the kernel makes them, with no simulation in the store. Needs root with
 * mount permission (CI and the development machines run as root).
 */
export interface SmallDisk {
  root: string;
  remount(mode: 'ro' | 'rw'): void;
  unmount(): void;
}

export function mountSmallDisk(sizeMiB: number): SmallDisk {
  const root = mkdtempSync(path.join(tmpdir(), 'enrolla-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=0700`, 'tmpfs', root], { stdio: 'pipe' });
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return {
    root,
    remount: (mode) => execFileSync('mount', ['-o', `remount,${mode}`, root], { stdio: 'pipe' }),
    unmount: () => {
      execFileSync('umount', [root], { stdio: 'pipe' });
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Whether this machine lets the tests mount a tmpfs; where it does not, they are skipped with a warning. */
export function mountingPermitted(): boolean {
  try {
    mountSmallDisk(1).unmount();
    return true;
  } catch (error) {
    console.warn(`storage-fault tests skipped: cannot mount a tmpfs here (${(error as Error).message.split('\n')[0]})`);
    return false;
  }
}

type Post = (op: keyof typeof OPERATIONS, body: unknown) => ReturnType<TestStation['post']>;

/** Verification and identification still answer from what is stored (obama and kit enrolled). */
export async function expectMatchingStillAnswers(post: Post): Promise<void> {
  const verified = expectEnvelope(
    await post('verify', { idPersona: 'obama', template: await faceTemplate('fr-obama-test1.jpg') }),
    200,
  );
  expect(verified.data).toMatchObject({ status: 'CHECK_CONFIDENCE' });
  const found = expectEnvelope(await post('identify', { template: await faceTemplate('fr-kit_harington_test1.jpg') }), 200);
  expect(found.data).toMatchObject({ status: 'IDENTIFY_OK', candidates: [{ idPersona: 'kit' }] });
}
