/**
 * Reads a `node --cpu-prof` profile of one cold first call and sums self time by what was
 * running: which package, and whether it was loading (module compile and top-level code)
 * or running (the call itself). Data for deciding what to make lazy or lighter; the split is
 * by call stack, so it is approximate at package boundaries (compiling a package's first
 * file counts for the package that imported it).
 */
import { readFile } from 'node:fs/promises';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface Contributor {
  what: string;
  ms: number;
  /** Share of the profile's busy (non-idle) time, in %. */
  percent: number;
}

export interface ProfileSummary {
  busyMs: number;
  idleMs: number;
  top: Contributor[];
}

const NODE_UNDICI = 'node:internal/deps/undici/';

/** The package a frame's script belongs to, or undefined for Node's own and native code. */
function packageOf(url: string, childScript: string): string | undefined {
  if (url === '') return undefined;
  if (url.endsWith(childScript)) return 'the bench script';
  if (url.startsWith(NODE_UNDICI)) return "Node's bundled undici (behind global fetch)";
  if (url.startsWith('wasm://')) return 'undici';
  const found = [...url.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)].at(-1);
  if (found?.[1]) return found[1];
  if (url.includes('/dist/')) return 'claims-notification-sdk';
  return undefined;
}

function isLoader(frame: CallFrame): boolean {
  return (
    frame.url.startsWith('node:internal/modules/') ||
    frame.functionName === 'compileForInternalLoader' ||
    frame.functionName === 'requireBuiltin'
  );
}

/** A module's top-level code: the anonymous function at line 0 (CJS wrapper or ES module body). */
function isModuleBody(frame: CallFrame, childScript: string): boolean {
  return (
    frame.functionName === '' &&
    frame.lineNumber === 0 &&
    packageOf(frame.url, childScript) !== undefined &&
    !frame.url.endsWith(childScript)
  );
}

/** A public built-in's top-level code (`node:crypto`, not `node:internal/...`): its first load. */
function isBuiltinBody(frame: CallFrame): boolean {
  return (
    frame.functionName === '' &&
    frame.lineNumber === 0 &&
    frame.url.startsWith('node:') &&
    !frame.url.startsWith('node:internal/')
  );
}

/** What one sample's stack (leaf first) was doing. */
function classify(stack: CallFrame[], childScript: string): string {
  const leaf = stack[0];
  if (!leaf) return 'unknown';
  if (leaf.functionName === '(garbage collector)') return 'V8 garbage collection';
  if (leaf.functionName === '(program)') return 'V8/native, no JS on the stack';
  if (stack.some((f) => f.functionName === 'lazyllhttp')) return 'undici: llhttp wasm compile';
  if (leaf.url.startsWith('wasm://')) return 'undici: llhttp (wasm) parsing the answer';
  // The module whose top-level code is running, nearest the leaf: an import in progress.
  const body = stack.find((f) => isModuleBody(f, childScript) || isBuiltinBody(f));
  if (body && isBuiltinBody(body)) return `Node built-in ${body.url}: first load`;
  if (body) return `${packageOf(body.url, childScript)}: import (compile + top-level code)`;
  const ownerIndex = stack.findIndex((f) => packageOf(f.url, childScript) !== undefined);
  const owner = ownerIndex >= 0 ? stack[ownerIndex] : undefined;
  const loading = stack.slice(0, ownerIndex >= 0 ? ownerIndex : stack.length).some(isLoader);
  if (!owner || owner.url.endsWith(childScript)) {
    if (stack.some((f) => f.url.startsWith('node:internal/modules/esm/')))
      return "Node ESM loader: resolve, read, compile ES modules (the SDK's chunks, zod's files when loaded)";
    if (loading) return 'Node module loader (CommonJS, built-ins)';
    return 'Node internals (net, http, streams, timers)';
  }
  const name = packageOf(owner.url, childScript) as string;
  if (loading) return `${name}: import (resolve, read, compile)`;
  if (name === 'zod') return 'zod: first validation (parse, schema JIT)';
  return `${name}: first call`;
}

/** Self time by contributor, largest first; idle time (waiting on the network) left out. */
export async function summariseProfile(file: string, childScript: string, top = 10): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const stackCache = new Map<number, string>();
  const totals = new Map<string, number>();
  let idleUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i] as number;
    const us = profile.timeDeltas[i + 1] ?? 0;
    let what = stackCache.get(id);
    if (what === undefined) {
      const stack: CallFrame[] = [];
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const node = byId.get(at);
        if (node) stack.push(node.callFrame);
      }
      what = stack[0]?.functionName === '(idle)' ? '(idle)' : classify(stack, childScript);
      stackCache.set(id, what);
    }
    if (what === '(idle)') idleUs += us;
    else totals.set(what, (totals.get(what) ?? 0) + us);
  }
  const busyUs = [...totals.values()].reduce((a, b) => a + b, 0);
  return {
    busyMs: busyUs / 1000,
    idleMs: idleUs / 1000,
    top: [...totals]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([what, us]) => ({ what, ms: us / 1000, percent: (100 * us) / busyUs })),
  };
}
