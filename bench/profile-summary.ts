import { readFileSync } from 'node:fs';

/**
 * `node --import tsx bench/profile-summary.ts FILE.cpuprofile [TOP]`: where a recorded
 * section's main-thread time went: self time by function and by module (a package of
 * node_modules, a file of src/, node's internals), the time inclusive of callees for our own
 * files, and the longest stretches with no idle sample (event-loop turns that kept
 * everything else waiting) with what ran in them.
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node --import tsx bench/profile-summary.ts FILE.cpuprofile [TOP]\n');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

function moduleOf(url: string): string {
  if (!url) return '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const ours = /\/((?:src|bench)\/.*)$/.exec(url);
  if (ours) return ours[1]!;
  if (url.startsWith('node:')) return url;
  return url.split('/').slice(-2).join('/');
}
const label = (node: ProfileNode) =>
  `${node.callFrame.functionName || '(anonymous)'} ${moduleOf(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
const special = (node: ProfileNode) =>
  /^\((idle|program|garbage collector|root)\)$/.test(node.callFrame.functionName);

const selfMs = new Map<string, number>();
const moduleMs = new Map<string, number>();
const inclusiveMs = new Map<string, number>();
const inclusiveFunctionMs = new Map<string, number>();
const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);
let totalMs = 0;
let idleMs = 0;
// Busy stretches: consecutive samples that are not idle.
const stretches: Array<{ ms: number; self: Map<string, number> }> = [];
let current: { ms: number; self: Map<string, number> } | undefined;
for (let i = 0; i < profile.samples.length; i++) {
  const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000; // the time until the next sample
  const node = byId.get(profile.samples[i]!)!;
  totalMs += ms;
  if (node.callFrame.functionName === '(idle)') {
    idleMs += ms;
    if (current) stretches.push(current);
    current = undefined;
    continue;
  }
  current ??= { ms: 0, self: new Map() };
  current.ms += ms;
  const name = special(node) ? node.callFrame.functionName : label(node);
  add(current.self, name, ms);
  add(selfMs, name, ms);
  add(moduleMs, special(node) ? name : moduleOf(node.callFrame.url), ms);
  // Inclusive time of our own files: each src/ file once per sample, however deep.
  const seen = new Set<string>();
  for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
    const frame = byId.get(id)!;
    const module = moduleOf(frame.callFrame.url);
    if (!module.startsWith('src/')) continue;
    if (!seen.has(module)) {
      seen.add(module);
      add(inclusiveMs, module, ms);
    }
    const name = label(frame);
    if (!seen.has(name)) {
      seen.add(name);
      add(inclusiveFunctionMs, name, ms);
    }
  }
}
if (current) stretches.push(current);

const table = (title: string, map: Map<string, number>, n = top) => {
  process.stdout.write(`\n${title}\n`);
  for (const [key, ms] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n))
    process.stdout.write(`${ms.toFixed(1).padStart(9)} ms  ${key}\n`);
};
process.stdout.write(
  `${file}: ${totalMs.toFixed(0)} ms recorded, ${(totalMs - idleMs).toFixed(0)} ms busy, ${idleMs.toFixed(0)} ms idle\n`,
);
table('self time by function', selfMs);
table('self time by module', moduleMs);
table('time inclusive of callees, our files', inclusiveMs);
table('time inclusive of callees, our functions', inclusiveFunctionMs);
process.stdout.write('\nlongest busy stretches (no idle sample between)\n');
for (const stretch of [...stretches].sort((a, b) => b.ms - a.ms).slice(0, 5)) {
  const parts = [...stretch.self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([key, ms]) => `${key} ${ms.toFixed(0)}`)
    .join(', ');
  process.stdout.write(`${stretch.ms.toFixed(1).padStart(9)} ms  ${parts}\n`);
}

// `TREE=<regex>`: the call tree below the functions whose label matches, merged by label.
const treeOf = process.env.TREE ? new RegExp(process.env.TREE) : undefined;
if (treeOf) {
  const sampleMs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    sampleMs.set(id, (sampleMs.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0) / 1000);
  }
  const inclusive = new Map<number, number>();
  const total = (id: number): number => {
    const known = inclusive.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id)!;
    const ms = (sampleMs.get(id) ?? 0) + (node.children ?? []).reduce((sum, child) => sum + total(child), 0);
    inclusive.set(id, ms);
    return ms;
  };
  interface Merged {
    ms: number;
    children: Map<string, Merged>;
  }
  const root: Merged = { ms: 0, children: new Map() };
  const merge = (into: Merged, id: number, depth: number) => {
    const node = byId.get(id)!;
    const key = label(node);
    const slot = into.children.get(key) ?? { ms: 0, children: new Map() };
    into.children.set(key, slot);
    slot.ms += total(id);
    if (depth < 6) for (const child of node.children ?? []) merge(slot, child, depth + 1);
  };
  const visit = (id: number, inside: boolean) => {
    const node = byId.get(id)!;
    if (!inside && treeOf.test(label(node))) {
      merge(root, id, 0);
      return;
    }
    for (const child of node.children ?? []) visit(child, inside);
  };
  visit(profile.nodes[0]!.id, false);
  const print = (merged: Merged, indent: string) => {
    for (const [key, child] of [...merged.children].sort((a, b) => b[1].ms - a[1].ms)) {
      if (child.ms < 2) continue;
      process.stdout.write(`${child.ms.toFixed(1).padStart(8)} ms ${indent}${key}\n`);
      print(child, `${indent}  `);
    }
  };
  process.stdout.write(`\ncall tree below ${treeOf}\n`);
  print(root, '');
}
