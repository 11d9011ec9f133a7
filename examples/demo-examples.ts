// The examples `npm run demo` runs, in order. Kept apart from run-demo.ts (which runs them when
// imported) so the docs test can check that the guide lists exactly these.
export const DEMO_EXAMPLES = [
  '01-notify-incident.ts',
  '02-event-url-attachment.ts',
  '03-webhook-subscription.ts',
  '04-serverless-handler.ts',
  '05-oauth-client-credentials.ts',
] as const;
