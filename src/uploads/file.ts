/** The byte size of the regular file at `path`, or `undefined` after reporting why it cannot be sent. */
export async function statFile(
  path: string,
  problem: (message: string) => void,
): Promise<number | undefined> {
  // Loaded here, not at the top: the main entry must not pull in node:fs (serverless cold start).
  const { open } = await import('node:fs/promises');
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    // Opening (not just stat) proves the file is readable by this process, ACLs included.
    handle = await open(path, 'r');
    const stat = await handle.stat();
    if (stat.isDirectory()) problem(`${JSON.stringify(path)} is a directory, not a file`);
    else if (!stat.isFile()) problem(`${JSON.stringify(path)} is not a regular file`);
    else return stat.size;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT') problem(`no such file: ${JSON.stringify(path)}`);
    else if (code === 'EACCES' || code === 'EPERM')
      problem(`cannot read ${JSON.stringify(path)}: permission denied`);
    else if (code === 'EISDIR') problem(`${JSON.stringify(path)} is a directory, not a file`);
    else
      problem(
        `cannot read ${JSON.stringify(path)}: ${error instanceof Error ? error.message : String(error)}`,
      );
  } finally {
    await handle?.close();
  }
  return undefined;
}

/** A stream of the file at `path`, opened when first read. */
export async function fileStreamOpener(): Promise<(path: string) => import('node:stream').Readable> {
  const { createReadStream } = await import('node:fs');
  return (path) => createReadStream(path, { highWaterMark: 256 * 1024 });
}
