// The package's public entry points, read from package.json "exports": adding an entry there
// (plus its build in tsup.config.ts) puts it in the API reference (npm run docs), the API
// reports (npm run api:check) and the TSDoc test, with no list of their own to update.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * @returns {{ subpath: string, importName: string, source: string, types: string, slug: string }[]}
 *   `subpath` as in exports ('.', './testing'), `importName` what a user imports, `source` the
 *   TypeScript file it is built from, `types` the built ESM declarations, `slug` a file name
 *   for it ('index', 'testing', 'batch-postgres').
 */
export function entryPoints(root = ROOT) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return Object.entries(pkg.exports)
    .filter(([subpath]) => subpath !== './package.json')
    .map(([subpath, conditions]) => {
      const rest = subpath.replace(/^\.\/?/, '');
      const candidates = rest === '' ? ['src/index.ts'] : [`src/${rest}/index.ts`, `src/${rest}.ts`];
      const source = candidates.find((file) => existsSync(join(root, file)));
      const types = conditions?.import?.types;
      if (!source || typeof types !== 'string')
        throw new Error(
          `package.json exports "${subpath}": no ${candidates.join(' or ')}, or no import.types`,
        );
      return {
        subpath,
        importName: rest === '' ? pkg.name : `${pkg.name}/${rest}`,
        source,
        types: types.replace(/^\.\//, ''),
        slug: rest === '' ? 'index' : rest.replaceAll('/', '-'),
      };
    });
}
