/** Re-chunks the ESM files of `entries` (names such as `index`, `batch/index`) in `dist`; see merge-chunks.mjs. */
export function mergeChunks(dist: string, entries?: string[]): Promise<string[]>;
