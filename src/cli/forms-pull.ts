import { pullToFiles } from '../forms/files.js';
import { sourceOf } from '../forms/pull.js';
import { DEFAULT_SNAPSHOT_FILE } from '../forms/snapshot-file.js';
import type { IncidentFieldsQuery } from '../schemas/metadata.js';
import { clientFromEnv } from './client-from-env.js';
import { EXIT, UsageError } from './exit-codes.js';
import { printResult } from './output.js';

/** The options of `claims forms pull`, as commander parses them. */
export interface FormsPullOptions {
  programme?: string[];
  policyType?: string[];
  country?: string[];
  all?: boolean;
  snapshot?: string;
  out?: string;
  jsonSchema?: string;
  json?: boolean;
}

/** `claims forms pull [--programme P --policy-type T --country C]... [--all] [--snapshot FILE] [--out FILE.ts] [--json-schema DIR]`. */
export async function formsPull(options: FormsPullOptions): Promise<number> {
  const forms = namedForms(options);
  if (forms.length > 0 && options.all)
    throw new UsageError('give --all or name forms with --programme/--policy-type/--country, not both');
  // Closed by runCli when the command ends (closeClients).
  const client = clientFromEnv();
  const report = await pullToFiles(client, {
    forms,
    all: options.all === true,
    snapshotFile: options.snapshot ?? DEFAULT_SNAPSHOT_FILE,
    out: options.out,
    jsonSchemaDir: options.jsonSchema,
    source: sourceOf(process.env.CLAIMS_BASE_URL as string),
  });
  const { snapshot, ...summary } = report;
  if (options.json) printResult({ ...summary, forms: Object.keys(snapshot.forms) }, true);
  else {
    const lines = [
      `claims: pulled ${Object.keys(snapshot.forms).length} form(s): ${report.changed.length} new or changed, ${report.unchanged.length} unchanged${report.dropped.length ? `, ${report.dropped.length} dropped (${report.dropped.join(', ')})` : ''}`,
      `claims: ${options.snapshot ?? DEFAULT_SNAPSHOT_FILE} ${report.snapshotFile}`,
    ];
    if (report.module) lines.push(`claims: ${options.out} ${report.module}`);
    if (report.schemas) {
      const s = report.schemas;
      lines.push(
        `claims: ${options.jsonSchema}: ${s.written.length} schema(s) written, ${s.unchanged.length} unchanged, ${s.removed.length} removed`,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return EXIT.ok;
}

/** `--programme`, `--policy-type` and `--country` given as many times each, paired in order. */
function namedForms(options: FormsPullOptions): IncidentFieldsQuery[] {
  const programmes = options.programme ?? [];
  const types = options.policyType ?? [];
  const countries = options.country ?? [];
  if (programmes.length !== types.length || types.length !== countries.length) {
    throw new UsageError(
      `name each form with all three of --programme, --policy-type and --country (got ${programmes.length}, ${types.length} and ${countries.length})`,
    );
  }
  return programmes.map((programmeCode, i) => ({
    programmeCode,
    policyTypeCode: types[i] as string,
    countryCode: countries[i] as string,
  }));
}
