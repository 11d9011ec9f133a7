import type { Command } from 'commander';
import type { EventCreate } from '../schemas/events.js';
import type { IncidentCreate } from '../schemas/incidents.js';
import type { SubscriptionCreate, SubscriptionPatch } from '../schemas/subscriptions.js';
import type { WebhookPatch } from '../schemas/webhooks.js';
import { clientFromEnv } from './client-from-env.js';
import { EXIT } from './exit-codes.js';
import { jsonArgument } from './json-argument.js';
import { printResult } from './output.js';
import { uploadWithProgress } from './upload-command.js';

type Run = (action: () => Promise<number>) => Promise<void>;

const BODY_HELP = 'JSON, @file.json, or - for standard input';

/** One sub-command per API operation; each prints its result (`--json`: as JSON only). */
export function addOperations(program: Command, run: Run): void {
  const json = (cmd: Command) => cmd.option('--json', 'print the result as JSON only');

  const incidents = program.command('incidents').description('incidents (claims)');
  json(
    incidents
      .command('create')
      .description('notify one incident: POST /incidents')
      .argument('<body>', BODY_HELP),
  )
    .option('--no-check-extended-fields', 'do not check extendedFields against the form metadata first')
    .action((body: string, o: { json?: boolean; checkExtendedFields: boolean }) =>
      run(async () => {
        const incident = (await jsonArgument(body, 'the incident')) as IncidentCreate;
        const created = await clientFromEnv().incidents.create(incident, {
          checkExtendedFields: o.checkExtendedFields,
        });
        printResult(created, o.json === true, `claims: filed incident ${created.incidentId}`);
        return EXIT.ok;
      }),
    );

  const events = program.command('events').description('event-log entries of an incident');
  json(
    events
      .command('create')
      .description('add an event: POST /incidents/{incidentId}/events')
      .argument('<incidentId>')
      .argument('<body>', BODY_HELP),
  ).action((incidentId: string, body: string, o: { json?: boolean }) =>
    run(async () => {
      const event = (await jsonArgument(body, 'the event')) as EventCreate;
      const created = await clientFromEnv().events.create(incidentId, event);
      printResult(created, o.json === true, `claims: event added to ${incidentId}`);
      return EXIT.ok;
    }),
  );

  const attachments = program.command('attachments').description('file uploads');
  json(
    attachments
      .command('upload')
      .description('upload files in one request: POST /attachments (a progress bar on a terminal)')
      .argument('<files...>'),
  ).action((files: string[], o: { json?: boolean }) =>
    run(async () => {
      const uploaded = await uploadWithProgress(clientFromEnv(), files);
      printResult(uploaded, o.json === true, `claims: uploaded ${uploaded.length} file(s)`);
      return EXIT.ok;
    }),
  );

  const metadata = program.command('metadata').description('form and programme metadata');
  json(
    metadata
      .command('fields')
      .description('the fields of an incident form: GET /metadata/incidents')
      .requiredOption('--programme <programmeCode>')
      .requiredOption('--policy-type <policyTypeCode>')
      .requiredOption('--country <countryCode>'),
  ).action((o: { programme: string; policyType: string; country: string; json?: boolean }) =>
    run(async () => {
      const fields = await clientFromEnv().metadata.incidentFields({
        programmeCode: o.programme,
        policyTypeCode: o.policyType,
        countryCode: o.country,
      });
      printResult(fields, o.json === true, `claims: ${fields.length} field(s)`);
      return EXIT.ok;
    }),
  );
  json(
    metadata.command('programmes').description('programmes and policy types: GET /metadata/programmes'),
  ).action((o: { json?: boolean }) =>
    run(async () => {
      printResult(await clientFromEnv().metadata.programmes(), o.json === true);
      return EXIT.ok;
    }),
  );

  const webhooks = program.command('webhooks').description('webhooks');
  json(
    webhooks
      .command('update')
      .description('change a webhook: PATCH /webhooks/{webhookId}')
      .argument('<webhookId>')
      .argument('<patch>', BODY_HELP),
  ).action((webhookId: string, patch: string, o: { json?: boolean }) =>
    run(async () => {
      await clientFromEnv().webhooks.update(
        webhookId,
        (await jsonArgument(patch, 'the patch')) as WebhookPatch,
      );
      printResult(undefined, o.json === true, `claims: webhook ${webhookId} updated`);
      return EXIT.ok;
    }),
  );

  const subscriptions = program.command('subscriptions').description('webhook subscriptions');
  json(
    subscriptions
      .command('list')
      .description('GET /webhooks/{webhookId}/subscriptions')
      .argument('<webhookId>'),
  ).action((webhookId: string, o: { json?: boolean }) =>
    run(async () => {
      const list = await clientFromEnv().subscriptions.list(webhookId);
      printResult(list, o.json === true, `claims: ${list.length} subscription(s)`);
      return EXIT.ok;
    }),
  );
  json(
    subscriptions
      .command('create')
      .description('POST /webhooks/{webhookId}/subscriptions')
      .argument('<webhookId>')
      .argument('<body>', BODY_HELP),
  ).action((webhookId: string, body: string, o: { json?: boolean }) =>
    run(async () => {
      const created = await clientFromEnv().subscriptions.create(
        webhookId,
        (await jsonArgument(body, 'the subscription')) as SubscriptionCreate,
      );
      printResult(created, o.json === true, `claims: subscription ${created.subscriptionId} created`);
      return EXIT.ok;
    }),
  );
  json(
    subscriptions
      .command('update')
      .description('PATCH /webhooks/{webhookId}/subscriptions/{subscriptionId}')
      .argument('<webhookId>')
      .argument('<subscriptionId>')
      .argument('<patch>', BODY_HELP),
  ).action((webhookId: string, subscriptionId: string, patch: string, o: { json?: boolean }) =>
    run(async () => {
      await clientFromEnv().subscriptions.update(
        webhookId,
        subscriptionId,
        (await jsonArgument(patch, 'the patch')) as SubscriptionPatch,
      );
      printResult(undefined, o.json === true, `claims: subscription ${subscriptionId} updated`);
      return EXIT.ok;
    }),
  );
}
