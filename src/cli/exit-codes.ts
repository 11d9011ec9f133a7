/** Exit codes of the `claims` bin (see docs/cli.md). */
export const EXIT = {
  /** Everything asked was done (for `import`: every key is filed). */
  ok: 0,
  /** Something was not done: a refusal, an unknown outcome, a claim not sent, a network failure. */
  failed: 1,
  /** Bad usage or bad input (arguments, environment, a line of the batch); nothing was sent. */
  usage: 2,
  /** `forms check`: the forms changed, but only in ways a claim built from the snapshot still passes. */
  compatibleOnly: 3,
  /** `forms check`: the live forms could not be read (network, 401, 5xx), so nothing was compared. */
  couldNotCompare: 4,
  /** Stopped by a second Ctrl-C while claims were in flight. */
  interrupted: 130,
} as const;

/** Bad usage: printed without a stack, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
