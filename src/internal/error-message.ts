/** The message of anything thrown: an `Error`'s `message`, else the value as a string. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
