/** One public entry point of the package (see entry-points.mjs). */
export interface EntryPoint {
  subpath: string;
  importName: string;
  source: string;
  types: string;
  slug: string;
}
export const ROOT: string;
export function entryPoints(root?: string): EntryPoint[];
