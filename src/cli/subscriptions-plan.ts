import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { errorMessage } from '../internal/error-message.js';
import type { DesiredSubscriptions } from '../resources/desired-subscriptions.js';
import type { SubscriptionPlan } from '../resources/subscription-plan.js';
import { clientFromEnv } from './client-from-env.js';
import { EXIT, UsageError } from './exit-codes.js';
import { reportError } from './output.js';
import { changeLines, planText } from './subscriptions-plan-text.js';

type Run = (action: () => Promise<number>) => Promise<void>;

/** Terraform's `-detailed-exitcode`: 0 nothing to do, 1 any error, 2 changes planned. */
const DETAILED = { noChanges: 0, error: 1, changes: 2 } as const;

interface PlanOptions {
  webhook: string;
  file: string;
  out?: string;
  detailedExitcode?: boolean;
  json?: boolean;
  includeUnnamed?: boolean;
}

interface ApplyOptions {
  webhook?: string;
  file?: string;
  json?: boolean;
  includeUnnamed?: boolean;
}

/** Adds `subscriptions plan` and `subscriptions apply` to the `subscriptions` command. */
export function addSubscriptionsAsCode(program: Command, run: Run): void {
  const subscriptions =
    program.commands.find((c) => c.name() === 'subscriptions') ?? program.command('subscriptions');
  subscriptions
    .command('plan')
    .description('what makes the live subscriptions match a file (read only), like terraform plan')
    .requiredOption('--webhook <id>', 'the webhook whose subscriptions are planned')
    .requiredOption(
      '-f, --file <file.json>',
      'the desired subscriptions: an array, or { "webhook"?, "subscriptions" }',
    )
    .option('--out <plan.json>', 'save the plan, for `claims subscriptions apply <plan.json>`')
    .option('--include-unnamed', 'also disable active subscriptions without a name')
    .option('--detailed-exitcode', 'exit 0 nothing to do, 2 changes planned, 1 any error')
    .option('--json', 'print { verdict, plan } as JSON only')
    .action((o: PlanOptions) => run(() => planCommand(o)));
  subscriptions
    .command('apply')
    .description('make the live subscriptions match a file (plan and apply), or apply a saved plan')
    .argument('[plan.json]', 'a plan saved by `plan --out`; refused if the subscriptions changed since')
    .option('--webhook <id>', 'with -f: the webhook to apply the file to')
    .option('-f, --file <file.json>', 'the desired subscriptions (plans, prints the plan, then applies it)')
    .option('--include-unnamed', 'also disable active subscriptions without a name')
    .option('--json', 'print the result as JSON only')
    .action((planFile: string | undefined, o: ApplyOptions) => run(() => applyCommand(planFile, o)));
}

/**
 * The exit code of bad usage (an unknown flag, a missing one) of `argv`: 1 under
 * `--detailed-exitcode` (Terraform's convention: 2 means "changes"), else 2. With `--json` the
 * verdict is printed as JSON too.
 */
export function usageExitCode(argv: readonly string[], message: string): number {
  if (argv[0] !== 'subscriptions' || argv[1] !== 'plan') return EXIT.usage;
  if (argv.includes('--json')) printJson({ verdict: 'error', error: { name: 'UsageError', message } });
  return argv.includes('--detailed-exitcode') ? DETAILED.error : EXIT.usage;
}

async function planCommand(o: PlanOptions): Promise<number> {
  try {
    const plan = await clientFromEnv().subscriptions.plan(o.webhook, await readDesired(o.file), {
      includeUnnamed: o.includeUnnamed === true,
    });
    if (o.out !== undefined) await writeFile(o.out, `${JSON.stringify(plan, null, 2)}\n`, { mode: 0o600 });
    const verdict = plan.changes.length > 0 ? 'changes' : 'no_changes';
    if (o.json) printJson({ verdict, plan });
    else {
      process.stdout.write(planText(plan));
      if (o.out !== undefined && plan.changes.length > 0) {
        process.stdout.write(
          `Saved the plan to ${o.out}; apply it with: claims subscriptions apply ${o.out}\n`,
        );
      }
    }
    if (!o.detailedExitcode) return EXIT.ok;
    return verdict === 'changes' ? DETAILED.changes : DETAILED.noChanges;
  } catch (error) {
    // The verdict in the JSON too: under --detailed-exitcode a script cannot tell 1 from 2 by
    // the code alone when the shell mangles it (terraform #23542). The words go to stderr.
    if (o.json) printJson({ verdict: 'error', error: describe(error) });
    const code = reportError(error);
    return o.detailedExitcode ? DETAILED.error : code;
  }
}

async function applyCommand(planFile: string | undefined, o: ApplyOptions): Promise<number> {
  const fromFile = o.file !== undefined || o.webhook !== undefined;
  if (
    (planFile === undefined) === !fromFile ||
    (fromFile && (o.file === undefined || o.webhook === undefined))
  ) {
    throw new UsageError('give either a saved plan (apply plan.json) or --webhook <id> -f <file.json>');
  }
  const client = clientFromEnv();
  let plan: SubscriptionPlan;
  if (planFile !== undefined) plan = (await readJson(planFile, 'the plan')) as SubscriptionPlan;
  else {
    plan = await client.subscriptions.plan(o.webhook as string, await readDesired(o.file as string), {
      includeUnnamed: o.includeUnnamed === true,
    });
    if (!o.json) process.stdout.write(planText(plan));
  }
  const result = await client.subscriptions.apply(plan, {
    onChange: (change) => {
      if (!o.json) process.stdout.write(`${changeLines(change)[0]?.trimStart()}: done\n`);
    },
  });
  if (o.json) printJson(result);
  else {
    const set = result.webhookUpdated ? ` Webhook ${result.webhookId}'s settings were set.` : '';
    process.stdout.write(`Apply complete: ${result.applied.length} change(s) made.${set}\n`);
  }
  return EXIT.ok;
}

async function readDesired(file: string): Promise<DesiredSubscriptions> {
  return (await readJson(file, 'the desired subscriptions')) as DesiredSubscriptions;
}

async function readJson(file: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${what} from ${file}: ${(error as NodeJS.ErrnoException).code}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what} in ${file} is not valid JSON: ${(error as Error).message}`);
  }
}

function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

function describe(error: unknown): Record<string, unknown> {
  if (error instanceof Error && typeof (error as { toJSON?: unknown }).toJSON === 'function') {
    return (error as unknown as { toJSON(): Record<string, unknown> }).toJSON();
  }
  return { name: error instanceof Error ? error.name : 'Error', message: errorMessage(error) };
}
