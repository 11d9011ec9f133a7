import type { ClaimsClientBase as ClaimsClient } from '../client.js';
import type { UploadedAttachment } from '../schemas/attachments.js';
import type { UploadProgress } from '../uploads/index.js';

/**
 * `claims attachments upload`: the files in one request, with a bar per byte sent on a
 * terminal (cli-progress, loaded only then); nothing extra when not a terminal.
 */
export async function uploadWithProgress(
  client: ClaimsClient,
  files: string[],
  stream: NodeJS.WriteStream = process.stderr,
): Promise<UploadedAttachment[]> {
  if (!stream.isTTY) return client.attachments.upload(files);
  const { default: cliProgress } = await import('cli-progress');
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: '{bar} {percentage}% | {sent}/{size} MiB | file {file}/{files} {filename}',
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  const mib = (bytes: number) => (bytes / 1048576).toFixed(1);
  let started = false;
  const onProgress = (p: UploadProgress) => {
    const total = p.total ?? p.bytes;
    const payload = {
      sent: mib(p.bytes),
      size: p.total === undefined ? '?' : mib(total),
      file: p.index + 1,
      files: files.length,
      filename: p.filename,
    };
    if (!started) {
      bar.start(Math.max(total, 1), p.bytes, payload);
      started = true;
    } else {
      bar.setTotal(Math.max(total, 1));
      bar.update(p.bytes, payload);
    }
  };
  try {
    return await client.attachments.upload(files, { onProgress });
  } finally {
    if (started) bar.stop();
  }
}
