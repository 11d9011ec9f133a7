/** Re-chunks the ESM files of each group of entries (names such as `index`, `batch/index`) in `dist`; see merge-chunks.mjs. */
export function mergeChunks(dist: string, groups?: string[][]): Promise<string[]>;
