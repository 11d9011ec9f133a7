import { readFile } from 'node:fs/promises';
import { UsageError } from './exit-codes.js';

/** A JSON argument: inline JSON, `@path` to read it from a file, or `-` for standard input. */
export async function jsonArgument(arg: string, name: string): Promise<unknown> {
  let text: string;
  if (arg === '-') text = await readStdin();
  else if (arg.startsWith('@')) {
    try {
      text = await readFile(arg.slice(1), 'utf8');
    } catch (error) {
      throw new UsageError(
        `cannot read ${name} from ${arg.slice(1)}: ${(error as NodeJS.ErrnoException).code}`,
      );
    }
  } else text = arg;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${name} is not valid JSON: ${(error as Error).message}`);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
