import type { Command } from 'commander';
import { formsCheck } from './forms-check.js';
import { formsPull } from './forms-pull.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Registers `claims forms pull` and `claims forms check`. */
export function addFormsCommands(
  program: Command,
  run: (action: () => Promise<number>) => Promise<void>,
): void {
  const forms = program
    .command('forms')
    .description('incident forms as code: pull them into a snapshot and types, check them for drift');
  forms
    .command('pull')
    .description(
      "read the forms' metadata; write the snapshot and, as asked, a TypeScript module and JSON Schemas",
    )
    .option(
      '--programme <code>',
      'programme code of a form (repeat, with --policy-type and --country)',
      collect,
    )
    .option('--policy-type <code>', 'policy type code of a form (repeat)', collect)
    .option('--country <code>', '2-letter country code of a form (repeat)', collect)
    .option('--all', 'every form the programmes operation lists')
    .option(
      '--snapshot <file>',
      'the snapshot to write (default: claims-forms.json); without forms named, its forms are pulled again',
    )
    .option('--out <file.ts>', 'write a generated TypeScript module')
    .option('--json-schema <dir>', 'write one JSON Schema (2020-12) per form')
    .option('--json', 'print what was done as JSON')
    .action((o: Parameters<typeof formsPull>[0]) => run(() => formsPull(o)));
  forms
    .command('check')
    .description(
      'compare the snapshot with the live forms; exit 0 no change, 1 breaking, 3 compatible only, 4 could not compare',
    )
    .option('--snapshot <file>', 'the snapshot (default: claims-forms.json)')
    .option('--json', 'print the changes as a JSON array')
    .action((o: Parameters<typeof formsCheck>[0]) => run(() => formsCheck(o)));
}
