/**
 * `npm run bench -- <suite>`: prints one JSON object per line, each measured side by side
 * with its peers in the same run (machines here are noisy; only same-run ratios mean much).
 */
const suites: Record<string, () => Promise<void>> = {
  sandbox: async () => (await import('./sandbox.ts')).runSandboxBench(),
  agent: async () => (await import('./agent.ts')).runAgentBench(),
  api: async () => (await import('./api.ts')).runApiBench(),
  scale: async () => (await import('./scale.ts')).runScaleBench(),
  eval: async () => (await import('./eval.ts')).runEvalBench(),
  ui: async () => (await import('./ui.ts')).runUiBench(),
  grounding: async () => (await import('./grounding.ts')).runGroundingBench(),
  soak: async () => {
    await (await import('./soak.ts')).runSoakBench();
    await (await import('./soak-attacks.ts')).runAttackSoakBench();
  },
  'soak-attacks': async () => (await import('./soak-attacks.ts')).runAttackSoakBench(),
  data: async () => (await import('./data.ts')).runDataBench(),
  'new-thread': async () => (await import('./new-thread.ts')).runNewThreadBench(),
  'health-attacks': async () => (await import('./health-attacks.ts')).runHealthAttacksBench(),
};

const name = process.argv[2];
const suite = name ? suites[name] : undefined;
if (!suite) {
  process.stderr.write(`usage: npm run bench -- <${Object.keys(suites).join('|')}>\n`);
  process.exit(2);
}
await suite();
