import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A real small filesystem (tmpfs) for storage-fault tests: a full disk and a read-only mount
 * behave exactly as the kernel makes them, with no simulation in the store. Needs root (CI and
 * the development machines run as root); returns null where mounting is not permitted.
 */
export interface SmallDisk {
  root: string;
  remount(mode: 'ro' | 'rw'): void;
  unmount(): void;
}

export function mountSmallDisk(sizeMiB: number): SmallDisk | null {
  const root = mkdtempSync(path.join(tmpdir(), 'enrolla-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=0700`, 'tmpfs', root], { stdio: 'pipe' });
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    console.warn(`storage-fault tests skipped: cannot mount a tmpfs here (${(error as Error).message.split('\n')[0]})`);
    return null;
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
