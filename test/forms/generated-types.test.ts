/**
 * The generated module, compiled by tsc against the BUILT package (test/forms/built-package.ts):
 * made from the sandbox's own metadata and from odd forms (test/forms/odd-forms.ts). Valid uses
 * compile; every mistake the run-time check catches but a too-long value fails to compile
 * (`@ts-expect-error` lines: an unused one is itself an error, TS2578), with the message an
 * editor shows; the editor offers the identifiers and the listed values. Then the module runs.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalSnapshot } from '../../src/forms/canonical.js';
import { generateFormsModule } from '../../src/forms/generate.js';
import { pullForms } from '../../src/forms/pull.js';
import { ClaimsClient, type FormSnapshot } from '../../src/index.js';
import { createSandbox } from '../../src/testing/index.js';
import { type BuiltProject, builtProject } from './built-package.js';
import { ID, MANY, oddSnapshot } from './odd-forms.js';

let project: BuiltProject;
let sandboxSnapshot: FormSnapshot;

const STRICTEST: ts.CompilerOptions = {
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  noPropertyAccessFromIndexSignature: true,
  noImplicitOverride: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  isolatedModules: true,
  verbatimModuleSyntax: true,
  isolatedDeclarations: true,
  declaration: true,
  noEmit: true,
  // The package's own .d.ts files are checked by the smoke test (skipLibCheck false there).
  skipLibCheck: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  types: ['node'],
};
const BUNDLER: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  types: ['node'],
};

beforeAll(async () => {
  project = await builtProject();
  const sandbox = await createSandbox();
  const client = new ClaimsClient({ baseUrl: sandbox.url, accessToken: sandbox.token });
  try {
    sandboxSnapshot = (await pullForms(client, { all: true, source: sandbox.url })).snapshot;
  } finally {
    await client.close();
    await sandbox.close();
  }
  writeFileSync(join(project.dir, 'sandbox-forms.ts'), generateFormsModule(sandboxSnapshot));
  writeFileSync(join(project.dir, 'odd-forms.ts'), generateFormsModule(oddSnapshot()));
}, 180_000);
afterAll(() => project?.remove());

/** Every diagnostic of the files, as `file:line: TSnnnn message`. */
function compile(files: string[], options: ts.CompilerOptions): string[] {
  const program = ts.createProgram(
    files.map((f) => join(project.dir, f)),
    options,
  );
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file
      ? `${d.file.fileName.slice(project.dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}`
      : '';
    return `${where}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

const SANDBOX_USES = `import { ClaimsClient, type ExtendedFieldValue, type IncidentCreate } from 'claims-notification-sdk';
import { type FormKey, type FormValues, forms, snapshot } from './sandbox-forms.js';

const motor = forms['PRG-MOTOR/MOTOR-COMP/GB'];
export const fields: ExtendedFieldValue[] = motor.extendedFields({
  'motor_claim:Vehicle_Registration': 'AB12CDE',
  'motor_claim:Incident_Type': 'Theft',
  'motor_claim:Third_Party_Involved': 'No',
});
export const body: IncidentCreate = {
  programmeCode: motor.programmeCode,
  policyTypeCode: motor.policyTypeCode,
  policyCountry: motor.countryCode,
  incidentDate: '2026-11-02',
  description: 'Rear-ended at a junction',
  extendedFields: fields,
};
export const client: ClaimsClient = new ClaimsClient({
  baseUrl: 'https://claims.example',
  accessToken: 't',
  formSnapshot: snapshot,
  formSnapshotOnly: true,
});
export const key: FormKey = 'PRG-HOME/HOME-STD/GB';
export const incidentType: FormValues['PRG-MOTOR/MOTOR-COMP/GB']['motor_claim:Incident_Type'] = 'Collision';
export const home: ExtendedFieldValue[] = forms['PRG-HOME/HOME-STD/GB'].extendedFields({});
export const travel: ExtendedFieldValue[] = forms['PRG-TRAVEL/TRAVEL-SINGLE/ES'].extendedFields({ 'travel_claim:Claim_Type': 'Delay' });

// @ts-expect-error: a misspelt identifier
motor.extendedFields({ 'motor_claim:Vehicle_Registration': 'AB12CDE', 'motor_claim:Incident_Type': 'Theft', 'motor_claim:Driver_Nmae': 'x' });
// @ts-expect-error: a value outside the list (values match exactly)
motor.extendedFields({ 'motor_claim:Vehicle_Registration': 'AB12CDE', 'motor_claim:Incident_Type': 'theft' });
// @ts-expect-error: a required field missing
motor.extendedFields({ 'motor_claim:Incident_Type': 'Theft' });
// @ts-expect-error: a form that was not pulled
void forms['PRG-MOTOR/MOTOR-COMP/XX'];
// @ts-expect-error: a field of another form
forms['PRG-HOME/HOME-STD/GB'].extendedFields({ 'motor_claim:Driver_Name': 'x' });
// @ts-expect-error: values are strings
forms['PRG-HOME/HOME-STD/GB'].extendedFields({ 'claim_form:Notes': 3 });
// A too-long value compiles: maxLength is checked at run time.
motor.extendedFields({ 'motor_claim:Vehicle_Registration': 'MUCH TOO LONG FOR TEN', 'motor_claim:Incident_Type': 'Fire' });
`;

/** The same mistakes without `@ts-expect-error`: each line must fail with what the editor says. */
const SANDBOX_MISTAKES = `import { forms } from './sandbox-forms.js';

const motor = forms['PRG-MOTOR/MOTOR-COMP/GB'];
motor.extendedFields({ 'motor_claim:Vehicle_Registration': 'AB12CDE', 'motor_claim:Incident_Type': 'Theft', 'motor_claim:Driver_Nmae': 'x' });
motor.extendedFields({ 'motor_claim:Vehicle_Registration': 'AB12CDE', 'motor_claim:Incident_Type': 'theft' });
motor.extendedFields({ 'motor_claim:Incident_Type': 'Theft' });
`;

const ODD_USES = `import type { ExtendedFieldValue } from 'claims-notification-sdk';
import { forms } from './odd-forms.js';

const odd = forms['ODD/T 1/GB'];
export const all: ExtendedFieldValue[] = odd.extendedFields({
  ${JSON.stringify(ID.required)}: 'abc',
  ${JSON.stringify(ID.requiredList)}: 'One',
  ${JSON.stringify(ID.spaces)}: 'five!',
  ${JSON.stringify(ID.quotes)}: "c'd",
  ${JSON.stringify(ID.unicode)}: '𝒜',
  ${JSON.stringify(ID.colons)}: 'free text: the first descriptor wins',
  ${JSON.stringify(ID.comment)}: '*/',
  ${JSON.stringify(ID.keywords)}: 'class',
  ${JSON.stringify(ID.blank)}: '',
  ${JSON.stringify(ID.many)}: ${JSON.stringify(MANY[499])},
  ${JSON.stringify(ID.backslash)}: 'x',
  ${JSON.stringify(ID.template)}: 'y',
  ${JSON.stringify(ID.separators)}: '\\u2028',
  'extra:Fields': '2026-11-02',
});
export const keywords: ExtendedFieldValue[] = odd.extendedFields({
  ${JSON.stringify(ID.required)}: 'a',
  ${JSON.stringify(ID.requiredList)}: 'Two',
  ${JSON.stringify(ID.keywords)}: 'undefined',
});
export const optional: ExtendedFieldValue[] = forms['ALLOPT/T/GB'].extendedFields({});
export const none: ExtendedFieldValue[] = forms['EMPTY/T/GB'].extendedFields({});
export const elsewhere: ExtendedFieldValue[] = forms['ELSE/T/GB'].extendedFields({});

// @ts-expect-error: not one of the 500 entries
odd.extendedFields({ ${JSON.stringify(ID.required)}: 'a', ${JSON.stringify(ID.requiredList)}: 'One', ${JSON.stringify(ID.many)}: 'Value 500' });
// @ts-expect-error: an empty listSource allows no value
odd.extendedFields({ ${JSON.stringify(ID.required)}: 'a', ${JSON.stringify(ID.requiredList)}: 'One', ${JSON.stringify(ID.empty)}: '' });
// @ts-expect-error: a field that maps elsewhere is not an extended field
odd.extendedFields({ ${JSON.stringify(ID.required)}: 'a', ${JSON.stringify(ID.requiredList)}: 'One', ${JSON.stringify(ID.elsewhere)}: 'x' });
// @ts-expect-error: a keyword that is not listed
odd.extendedFields({ ${JSON.stringify(ID.required)}: 'a', ${JSON.stringify(ID.requiredList)}: 'One', ${JSON.stringify(ID.keywords)}: 'let' });
// @ts-expect-error: a required list field missing
odd.extendedFields({ ${JSON.stringify(ID.required)}: 'a' });
// @ts-expect-error: a form with no field takes none
forms['EMPTY/T/GB'].extendedFields({ 'opt:A': 'x' });
// @ts-expect-error: all optional, still only its own fields and values
forms['ALLOPT/T/GB'].extendedFields({ 'opt:A': 'z' });
`;

describe('the generated module, compiled against the built package', () => {
  beforeAll(() => {
    writeFileSync(join(project.dir, 'sandbox-uses.ts'), SANDBOX_USES);
    writeFileSync(join(project.dir, 'sandbox-mistakes.ts'), SANDBOX_MISTAKES);
    writeFileSync(join(project.dir, 'odd-uses.ts'), ODD_USES);
    writeFileSync(
      join(project.dir, 'broken.ts'),
      `import { forms } from './sandbox-forms.js';\n// @ts-expect-error: nothing is wrong here\nexport const f: object = forms['PRG-HOME/HOME-STD/GB'];\n`,
    );
  });

  it('was checked against the built types', () => {
    expect(['dist', 'tsup build']).toContain(project.label);
  });

  it('compiles, with every expected error found, under the strictest settings', () => {
    const diagnostics = compile(
      [
        'sandbox-forms.ts',
        'sandbox-uses.ts',
        'odd-forms.ts',
        'odd-uses.ts',
        'broken.ts',
        'sandbox-mistakes.ts',
      ],
      STRICTEST,
    );
    // Only the two files written to fail do: a `@ts-expect-error` with nothing to expect is
    // itself an error (so the type tests above are checked), and each mistake fails with what
    // an editor shows: the allowed names, the value meant, the field missing.
    expect(diagnostics).toHaveLength(4);
    expect(diagnostics[0]).toMatch(/^broken\.ts:2: TS2578 Unused '@ts-expect-error' directive/);
    expect(diagnostics[1]).toMatch(
      /^sandbox-mistakes\.ts:4: TS2353 .*'motor_claim:Driver_Nmae'.* does not exist in type .*"motor_claim:Driver_Name"\?: string/s,
    );
    expect(diagnostics[2]).toMatch(
      /^sandbox-mistakes\.ts:5: TS2820 Type '"theft"' is not assignable to type .*Did you mean '"Theft"'\?/s,
    );
    expect(diagnostics[3]).toMatch(
      /^sandbox-mistakes\.ts:6: TS2345 .*Property '"motor_claim:Vehicle_Registration"' is missing/s,
    );
  }, 180_000);

  it('compiles under bundler resolution with plain strict settings', () => {
    expect(compile(['sandbox-forms.ts', 'sandbox-uses.ts', 'odd-forms.ts', 'odd-uses.ts'], BUNDLER)).toEqual(
      [],
    );
  }, 180_000);
});

describe('what an editor offers', () => {
  /** Completions at the `|` in `source` (a file beside the generated module). */
  function completionsAt(source: string): string[] {
    const file = join(project.dir, 'editing.ts');
    const text = source.replace('|', '');
    const files = new Map([[file, text]]);
    const host: ts.LanguageServiceHost = {
      getScriptFileNames: () => [file, join(project.dir, 'sandbox-forms.ts')],
      getScriptVersion: () => '1',
      getScriptSnapshot: (name) => {
        const content = files.get(name) ?? ts.sys.readFile(name);
        return content === undefined ? undefined : ts.ScriptSnapshot.fromString(content);
      },
      getCurrentDirectory: () => project.dir,
      getCompilationSettings: () => STRICTEST,
      getDefaultLibFileName: ts.getDefaultLibFilePath,
      fileExists: (name) => files.has(name) || ts.sys.fileExists(name),
      readFile: (name) => files.get(name) ?? ts.sys.readFile(name),
      readDirectory: ts.sys.readDirectory,
      directoryExists: ts.sys.directoryExists,
      getDirectories: ts.sys.getDirectories,
    };
    const service = ts.createLanguageService(host);
    const found = service.getCompletionsAtPosition(file, source.indexOf('|'), {});
    return (found?.entries ?? []).map((e) => e.name);
  }

  it('the form keys, the identifiers of a form and the values of a list field', () => {
    const head = `import { forms } from './sandbox-forms.js';\n`;
    expect(completionsAt(`${head}forms['|']`)).toEqual(
      expect.arrayContaining(Object.keys(sandboxSnapshot.forms)),
    );
    expect(completionsAt(`${head}forms['PRG-MOTOR/MOTOR-COMP/GB'].extendedFields({ '|' });`).sort()).toEqual([
      'motor_claim:Driver_Name',
      'motor_claim:Incident_Type',
      'motor_claim:Third_Party_Involved',
      'motor_claim:Vehicle_Registration',
    ]);
    expect(
      completionsAt(
        `${head}forms['PRG-MOTOR/MOTOR-COMP/GB'].extendedFields({ 'motor_claim:Incident_Type': '|' });`,
      ),
    ).toEqual(['Collision', 'Theft', 'Fire', 'Windscreen', 'Vandalism']);
  }, 60_000);
});

describe('the generated module at run time', () => {
  async function load(name: string, source: string) {
    const js = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    const file = join(project.dir, `${name}.mjs`);
    writeFileSync(file, js);
    return (await import(pathToFileURL(file).href)) as {
      forms: Record<
        string,
        { programmeCode: string; descriptors: unknown[]; extendedFields(values: object): unknown }
      >;
      snapshot: FormSnapshot;
    };
  }

  it('its snapshot is the pulled one without dates or source, and a client accepts it', async () => {
    const module = await load('sandbox-forms-run', generateFormsModule(sandboxSnapshot));
    const expected = canonicalSnapshot(sandboxSnapshot);
    const withoutDates = Object.fromEntries(
      Object.entries(expected.forms).map(([key, { pulledAt: _p, source: _s, ...form }]) => [key, form]),
    );
    expect(module.snapshot).toEqual({ version: 1, all: true, forms: withoutDates });
    expect(
      () =>
        new ClaimsClient({ baseUrl: 'https://x.example', accessToken: 't', formSnapshot: module.snapshot }),
    ).not.toThrow();
    expect(
      module.forms['PRG-MOTOR/MOTOR-COMP/GB']?.extendedFields({
        'motor_claim:Incident_Type': 'Theft',
        'motor_claim:Driver_Name': undefined,
        'motor_claim:Vehicle_Registration': 'AB12CDE',
      }),
    ).toEqual([
      { identifier: 'motor_claim:Incident_Type', value: 'Theft' },
      { identifier: 'motor_claim:Vehicle_Registration', value: 'AB12CDE' },
    ]);
  });

  it('odd identifiers, values and extra descriptor fields (one named __proto__) come through byte for byte', async () => {
    const module = await load('odd-forms-run', generateFormsModule(oddSnapshot()));
    const odd = module.forms['ODD/T 1/GB'];
    const source = oddSnapshot().forms['ODD/T 1/GB'];
    expect(JSON.stringify(odd?.descriptors.map((d) => Object.keys(d as object).sort()))).toBe(
      JSON.stringify(source?.descriptors.map((d) => Object.keys(d).sort())),
    );
    expect(odd?.descriptors).toEqual(source?.descriptors);
    const extra = odd?.descriptors[17] as Record<string, unknown>;
    expect(Object.hasOwn(extra, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(extra)).toBe(Object.prototype);
    expect(odd?.extendedFields({ [ID.separators]: '\u2028', [ID.comment]: '*/' })).toEqual([
      { identifier: ID.separators, value: '\u2028' },
      { identifier: ID.comment, value: '*/' },
    ]);
  });
});
