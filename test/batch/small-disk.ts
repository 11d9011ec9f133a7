import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A small tmpfs of our own: a full disk (ENOSPC) and a read-only mount for tests. */
export interface SmallDisk {
  dir: string;
  /** Makes the mount read-only (EROFS on any write). */
  readOnly(): void;
  unmount(): void;
}

/**
 * Mounts a tmpfs of `kib` KiB in a new temporary folder, or says why it cannot (not root, no
 * mount permission in this container): the tests that need it are then skipped, saying so.
 */
export function mountSmallDisk(kib: number): SmallDisk | string {
  const dir = mkdtempSync(join(tmpdir(), 'small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${kib}k`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return `no tmpfs could be mounted here (${String((error as Error).message).split('\n')[0]})`;
  }
  return {
    dir,
    readOnly: () => execFileSync('mount', ['-o', 'remount,ro', dir], { stdio: 'pipe' }),
    unmount: () => {
      try {
        execFileSync('umount', [dir], { stdio: 'pipe' });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
