import { readFileSync } from 'node:fs';

/** Top-level modules a program imports (`import a.b as c`, `from a.b import c`), standard library included. */
export function importedModules(source: string): string[] {
  const found = new Set<string>();
  for (const match of source.matchAll(
    /^[ \t]*(?:from[ \t]+([A-Za-z_][\w.]*)[ \t]+import\b|import[ \t]+([^\n#]+))/gm,
  )) {
    if (match[1]) found.add(match[1].split('.')[0]!);
    else
      for (const part of match[2]!.split(',')) {
        const name = part.trim().split(/\s+/)[0]?.split('.')[0];
        if (name && /^[A-Za-z_]\w*$/.test(name)) found.add(name);
      }
  }
  return [...found].sort();
}

/**
 * Tasks that download a data set when they run (seaborn's `load_dataset`, scikit-learn's
 * `fetch_*`): sandboxes have no network, so they cannot pass anywhere in Analyst.
 */
export function networkNeed(codeContext: string): string | undefined {
  if (/\bload_dataset\(/.test(codeContext)) return 'seaborn.load_dataset downloads its data set';
  const fetch = /\bfetch_[a-z0-9_]+\(/.exec(codeContext);
  if (fetch) return `${fetch[0].slice(0, -1)} downloads its data set`;
  return undefined;
}

/** What to tell about a library the image lacks. */
export function missingModuleReason(modules: readonly string[]): string {
  const names = modules.join(', ');
  const hints: string[] = [];
  if (modules.some((m) => m === 'tensorflow' || m === 'keras'))
    hints.push('Debian has no TensorFlow package, so no Analyst image built from Debian has it');
  if (modules.some((m) => m === 'torch' || m === 'gensim' || m === 'torchvision'))
    hints.push(
      '`analyst sandbox build --profile full` builds analyst-sandbox:full with it (use PYTHON_SANDBOX_IMAGE)',
    );
  return `needs ${names}, which the sandbox image lacks${hints.length ? ` (${hints.join('; ')})` : ''}`;
}

/** The probe program: prints which of `modules` the image can import. */
export function probeProgram(modules: readonly string[]): string {
  const body = readFileSync(new URL('./probe.py', import.meta.url), 'utf8');
  return `MODULES = ${JSON.stringify(modules)}\n${body}`;
}
