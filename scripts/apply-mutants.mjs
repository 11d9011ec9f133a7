// Applies each mutant a Stryker JSON report left Survived or NoCoverage to its file, runs the
// given vitest files against it, restores the file, and prints which mutants the tests kill.
//
// Why: Stryker's vitest runner cannot switch module-level (static) mutants, so with
// `--ignoreStatic` they are left out and without it they show as survivors whatever the tests
// do. Applying them one at a time by hand is the only way to know (see docs/development.md,
// "Mutation testing").
//
//   node scripts/apply-mutants.mjs reports/mutation-focus/mutation.json 'test/a.test.ts test/b.test.ts' [path filter]
//   ONLY_MUTATORS=StringLiteral,Regex node scripts/apply-mutants.mjs ...
//
// The file is restored after each mutant, and also when the process is interrupted; check
// `git diff src/` afterwards all the same.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const [report, tests, filter] = process.argv.slice(2);
if (!report || !tests) {
  console.error("usage: node scripts/apply-mutants.mjs REPORT.json 'TEST FILES' [PATH FILTER]");
  process.exit(2);
}
const only = process.env.ONLY_MUTATORS?.split(',');
const { files } = JSON.parse(readFileSync(report, 'utf8'));
let restore;
process.on('SIGINT', () => {
  restore?.();
  process.exit(130);
});

let killed = 0;
let alive = 0;
for (const [file, { mutants }] of Object.entries(files)) {
  if (filter && !file.includes(filter)) continue;
  const original = readFileSync(file, 'utf8');
  const lines = original.split('\n');
  const offset = (at) =>
    lines.slice(0, at.line - 1).reduce((n, line) => n + line.length + 1, 0) + at.column - 1;
  restore = () => writeFileSync(file, original);
  for (const mutant of mutants) {
    if (mutant.status !== 'Survived' && mutant.status !== 'NoCoverage') continue;
    if (only && !only.includes(mutant.mutatorName)) continue;
    const start = offset(mutant.location.start);
    const end = offset(mutant.location.end);
    writeFileSync(file, original.slice(0, start) + mutant.replacement + original.slice(end));
    const run = spawnSync('npx', ['vitest', 'run', '--typecheck.enabled=false', ...tests.split(/\s+/)], {
      encoding: 'utf8',
      env: { ...process.env, CI: '1' },
    });
    restore();
    const dead = run.status !== 0;
    if (dead) killed++;
    else alive++;
    const where = `${file} ${mutant.location.start.line}:${mutant.location.start.column}`;
    console.log(
      dead ? 'KILLED' : 'ALIVE ',
      where,
      mutant.mutatorName,
      JSON.stringify(mutant.replacement).slice(0, 70),
    );
  }
}
console.log('killed', killed, 'alive', alive);
