import type { ServerResponse } from 'node:http';
import type { SandboxChange } from '../core/changes.js';
import {
  attachmentView,
  callSummary,
  deliveryView,
  faultsView,
  incidentSummary,
  inspectorCounts,
  inspectorState,
} from '../core/inspector-view.js';
import type { SandboxCore } from '../core/sandbox-core.js';

/** Pages watching at once; more are answered 503. */
export const MAX_WATCHERS = 16;
/** Changes are sent together, at most this often. */
const FLUSH_MS = 100;
/** A keep-alive comment this often, so proxies and the browser keep the stream open. */
const PING_MS = 15_000;
/** A watcher that lets this much pile up unread is dropped (it will reconnect and start afresh). */
const MAX_BACKLOG_BYTES = 4 * 1024 * 1024;

/**
 * The inspector's live feed (server-sent events): `state` with everything on connecting (and
 * after a reset), then `changes` batches of what changed, every secret redacted.
 */
export class InspectorEvents {
  readonly #watchers = new Set<ServerResponse>();
  readonly #pending = new Map<string, SandboxChange>();
  #timer: NodeJS.Timeout | undefined;
  readonly #ping: NodeJS.Timeout;
  readonly #stop: () => void;

  constructor(private readonly core: SandboxCore) {
    this.#stop = core.onChange((change) => this.#queue(change));
    this.#ping = setInterval(() => this.#write(': ping\n\n'), PING_MS);
    this.#ping.unref();
  }

  /** Starts a feed on `res` (a `GET /_sandbox/events`). */
  attach(res: ServerResponse, extraHeaders: Record<string, string>): void {
    if (this.#watchers.size >= MAX_WATCHERS) {
      res.writeHead(503, {
        ...extraHeaders,
        'content-type': 'text/plain; charset=utf-8',
        'retry-after': '5',
      });
      res.end(`At most ${MAX_WATCHERS} pages may watch at once`);
      return;
    }
    res.writeHead(200, {
      ...extraHeaders,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    this.#watchers.add(res);
    res.on('close', () => this.#watchers.delete(res));
    res.write(`retry: 1000\n${message('state', inspectorState(this.core))}`);
  }

  /** Ends every feed and stops listening. */
  close(): void {
    this.#stop();
    clearInterval(this.#ping);
    clearTimeout(this.#timer);
    for (const res of this.#watchers) res.destroy();
    this.#watchers.clear();
  }

  #queue(change: SandboxChange): void {
    if (this.#watchers.size === 0) return;
    this.#pending.set(`${change.kind}:${'id' in change ? change.id : ''}`, change);
    this.#timer ??= setTimeout(() => this.#flush(), FLUSH_MS);
  }

  #flush(): void {
    this.#timer = undefined;
    const changes = [...this.#pending.values()];
    this.#pending.clear();
    if (changes.some((c) => c.kind === 'reset')) {
      this.#write(message('state', inspectorState(this.core)));
      return;
    }
    const { core } = this;
    const batch = {
      counts: inspectorCounts(core),
      calls: changes.flatMap((c) => {
        const call = c.kind === 'call' ? core.call(c.id) : undefined;
        return call ? [callSummary(call)] : [];
      }),
      incidents: changes.flatMap((c) => {
        const incident = c.kind === 'incident' ? core.incident(c.id) : undefined;
        return incident ? [incidentSummary(core, incident)] : [];
      }),
      attachments: changes.flatMap((c) =>
        c.kind === 'attachment' ? [attachmentView(core, core.attachment(c.id), c.id)] : [],
      ),
      deliveries: changes.flatMap((c) =>
        c.kind === 'delivery'
          ? core.deliveries.filter((d) => d.deliveryId === c.id).map((d) => deliveryView(core, d))
          : [],
      ),
      faults: changes.some((c) => c.kind === 'faults') ? faultsView(core) : undefined,
    };
    this.#write(message('changes', batch));
  }

  #write(text: string): void {
    for (const res of this.#watchers) {
      if (res.writableLength > MAX_BACKLOG_BYTES) res.destroy();
      else res.write(text);
    }
  }
}

function message(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
