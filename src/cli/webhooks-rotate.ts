import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { ClaimsValidationError } from '../errors.js';
import { errorMessage } from '../internal/error-message.js';
import { generateHeaderValue } from '../webhooks/header-value.js';
import { clientFromEnv } from './client-from-env.js';
import { EXIT, UsageError } from './exit-codes.js';

type Run = (action: () => Promise<number>) => Promise<void>;

interface RotateOptions {
  prepare?: string;
  commit?: string;
}

/** Adds `webhooks rotate-header <id> --prepare FILE | --commit FILE` to the `webhooks` command. */
export function addRotateHeader(program: Command, run: Run): void {
  const webhooks = program.commands.find((c) => c.name() === 'webhooks') ?? program.command('webhooks');
  webhooks
    .command('rotate-header')
    .description("change a webhook's header value without refusing a delivery, in two steps")
    .argument('<webhookId>')
    .option('--prepare <file>', 'write a new value to <file> (mode 0600, never printed) and print the steps')
    .option(
      '--commit <file>',
      'after your receiver accepts both values: PATCH the webhook with the value in <file>',
    )
    .action((webhookId: string, o: RotateOptions) => run(() => rotateHeader(webhookId, o)));
}

async function rotateHeader(webhookId: string, o: RotateOptions): Promise<number> {
  if ((o.prepare === undefined) === (o.commit === undefined)) {
    throw new UsageError('give exactly one of --prepare <file> or --commit <file>');
  }
  if (!/^\d+$/.test(webhookId))
    throw new UsageError(`the webhook id must be digits, got ${JSON.stringify(webhookId)}`);
  return o.prepare !== undefined ? prepare(webhookId, o.prepare) : commit(webhookId, o.commit as string);
}

async function prepare(webhookId: string, file: string): Promise<number> {
  try {
    // 'wx': never overwrite: the value in an existing file may already be deployed.
    await writeFile(file, `${generateHeaderValue()}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'EEXIST'
        ? `${file} exists; its value may already be in use: choose a new file (or delete it first)`
        : `cannot write ${file}: ${code}`,
    );
  }
  process.stdout.write(
    [
      `claims: wrote a new header value for webhook ${webhookId} to ${file} (mode 0600; it is not printed).`,
      'Rotate it in this order, and no delivery is refused:',
      `  1. Make your receiver accept the current value and the one in ${file}, and deploy it:`,
      '       headerValue: [currentValue, nextValue]',
      `  2. claims webhooks rotate-header ${webhookId} --commit ${file}`,
      '     (from then on the claims system sends the new value)',
      '  3. Once no delivery with the old value can still arrive, make the new value the only one.',
      '',
    ].join('\n'),
  );
  return EXIT.ok;
}

async function commit(webhookId: string, file: string): Promise<number> {
  let value: string;
  try {
    value = (await readFile(file, 'utf8')).replace(/\r?\n$/, '');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code}`);
  }
  if (value.trim() === '') throw new UsageError(`${file} holds no header value`);
  try {
    await clientFromEnv().webhooks.update(webhookId, { headerValue: value });
  } catch (error) {
    // The issues of a refused value name the rule, never the value; an answer from the server
    // might quote it back, so its message is printed with the value cut out.
    if (error instanceof ClaimsValidationError || error instanceof UsageError) throw error;
    const scrubbed = new Error(errorMessage(error).split(value).join('[header value]'));
    scrubbed.name = error instanceof Error ? error.name : 'Error';
    throw scrubbed;
  }
  process.stdout.write(
    `claims: webhook ${webhookId} now sends the header value in ${file} (not printed). ` +
      'Once no delivery with the old value can still arrive, drop the old value from your receiver.\n',
  );
  return EXIT.ok;
}
