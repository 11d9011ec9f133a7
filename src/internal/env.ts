/**
 * An environment variable, on any runtime: `undefined` where there is no `process` (workerd,
 * browsers) and where reading it is not allowed (Deno without `--allow-env` throws NotCapable),
 * so a client can be built under a runtime's tightest permissions.
 */
export function envVar(name: string): string | undefined {
  try {
    // Stryker disable next-line OptionalChaining: a process without env throws reading [name], and the catch gives the same undefined
    return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];
  } catch {
    // Deno without --allow-env throws NotCapable: the variable reads as unset.
  }
  return undefined;
}
