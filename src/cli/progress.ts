import type { BatchProgress } from '../batch/result.js';

/** Shows a batch's progress: a bar on a terminal, a plain line every few seconds otherwise. */
export interface ProgressView {
  update(progress: BatchProgress): void;
  /** A line of its own (a warning), printed without breaking the bar. */
  note(line: string): void;
  stop(): void;
}

const PLAIN_EVERY_MS = 2_000;

function counts(p: BatchProgress): string {
  return `filed ${p.counts.filed}, rejected ${p.counts.rejected}, unknown ${p.counts.unknown}, not sent ${p.counts.not_sent}`;
}

/** A cli-progress bar on stderr (loaded only when a terminal shows it). */
export async function progressView(
  total: number,
  stream: NodeJS.WriteStream = process.stderr,
): Promise<ProgressView> {
  if (!stream.isTTY) return plainView(stream);
  const { default: cliProgress } = await import('cli-progress');
  const started = Date.now();
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format:
        '{bar} {value}/{total} | {rate}/s | ETA {eta_formatted} | filed {filed} rejected {rejected} unknown {unknown} not sent {not_sent}',
      hideCursor: true,
      etaBuffer: 200,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { rate: '0.0', filed: 0, rejected: 0, unknown: 0, not_sent: 0 });
  return {
    update(p) {
      const seconds = (Date.now() - started) / 1000;
      bar.update(p.done, { rate: seconds > 0 ? (p.done / seconds).toFixed(1) : '0.0', ...p.counts });
    },
    note(line) {
      bar.stop();
      stream.write(`${line}\n`);
      bar.start(total, 0);
    },
    stop() {
      bar.stop();
    },
  };
}

function plainView(stream: NodeJS.WriteStream): ProgressView {
  const started = Date.now();
  let last: BatchProgress | undefined;
  let printed = 0;
  const print = () => {
    if (!last || last.done === printed) return;
    printed = last.done;
    const seconds = (Date.now() - started) / 1000;
    const rate = seconds > 0 ? last.done / seconds : 0;
    const eta = rate > 0 ? Math.round((last.total - last.done) / rate) : undefined;
    stream.write(
      `claims: ${last.done}/${last.total} done, ${rate.toFixed(1)}/s${eta === undefined ? '' : `, ETA ${eta} s`} (${counts(last)})\n`,
    );
  };
  const timer = setInterval(print, PLAIN_EVERY_MS);
  timer.unref();
  return {
    update(p) {
      last = p;
    },
    note(line) {
      stream.write(`${line}\n`);
    },
    stop() {
      clearInterval(timer);
      print();
    },
  };
}
