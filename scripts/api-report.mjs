// The API reports: api/<entry>.api.md, one per entry point of package.json "exports"
// (scripts/entry-points.mjs), made by API Extractor from the BUILT declarations (dist/, what
// users' editors read). `npm run api:check` fails while the built surface differs from the
// committed reports; `npm run api:update` rewrites them, to commit with the change.
// Run after `npm run build`.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';
import { entryPoints, ROOT } from './entry-points.mjs';

const update = process.argv.includes('--update');
const REPORTS = join(ROOT, 'api');

const off = { logLevel: 'none' };
const changed = [];
let failed = false;
for (const entry of entryPoints()) {
  const types = join(ROOT, entry.types);
  if (!existsSync(types)) {
    console.error(`api-report: ${entry.types} is missing: run \`npm run build\` first`);
    process.exit(1);
  }
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: ROOT,
      mainEntryPointFilePath: types,
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2022',
            lib: ['ES2023', 'DOM', 'DOM.Iterable'],
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            skipLibCheck: true,
            types: ['node'],
          },
          files: [types],
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: `${entry.slug}.api.md`,
        reportFolder: REPORTS,
        reportTempFolder: join(ROOT, '.api-tmp'),
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: 'warning' } },
        extractorMessageReporting: {
          default: { logLevel: 'warning' },
          // The package marks nothing @public/@beta: every export is public.
          'ae-missing-release-tag': off,
          // Noted in the report, not fatal: the other entries' declarations share chunks with the
          // root's, so `ClaimsError` in ./auth reads as "not exported" though the root exports it.
          // TypeDoc (npm run docs) fails on a type no entry exports.
          'ae-forgotten-export': { logLevel: 'none', addToApiReportFile: true },
          'ae-internal-missing-underscore': off,
          // test/docs/tsdoc.test.ts holds the doc comments to account (an override's `name` needs none).
          'ae-undocumented': off,
        },
        tsdocMessageReporting: { default: off },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(ROOT, 'package.json'),
  });
  const result = Extractor.invoke(config, {
    localBuild: update,
    messageCallback: (message) => {
      // The report's own news is said once, below, with the command that fixes it.
      if (
        message.messageId.startsWith('console-api-report-') ||
        message.text.startsWith('Analysis will use')
      ) {
        message.handled = true;
      } else if (message.logLevel === 'warning' || message.logLevel === 'error') failed = true;
    },
  });
  if (result.apiReportChanged) changed.push(`api/${entry.slug}.api.md (${entry.importName})`);
}

if (failed) {
  console.error('api-report: API Extractor reported problems (above)');
  process.exit(1);
}
if (changed.length > 0 && !update) {
  console.error(
    `The public API differs from the committed API report:\n  ${changed.join('\n  ')}\n` +
      'If the change is meant, run `npm run api:update` and commit the reports with it ' +
      '(a change that can break users is marked BREAKING in CHANGELOG.md). Differences: git diff api/ after updating.',
  );
  process.exit(1);
}
console.log(
  update && changed.length > 0
    ? `api-report: updated ${changed.join(', ')}`
    : 'api-report: the API reports match the built package',
);
