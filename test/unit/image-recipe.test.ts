import assert from 'node:assert/strict';
import { test } from 'node:test';
import { splitImageName } from '../../src/sandbox/image/debian-rootfs.ts';
import {
  DEBIAN_PACKAGES,
  dockerfileText,
  MATPLOTLIBRC,
  PIP_PACKAGES,
  recipeHash,
} from '../../src/sandbox/image/recipe.ts';

test('both recipes install the same libraries, with CJK fonts and no code prelude', () => {
  for (const library of ['pandas', 'numpy', 'scipy', 'matplotlib', 'seaborn', 'statsmodels', 'openpyxl']) {
    assert.ok(DEBIAN_PACKAGES.includes(`python3-${library}`), `debian: ${library}`);
    assert.ok(PIP_PACKAGES.includes(library), `pip: ${library}`);
  }
  assert.ok(DEBIAN_PACKAGES.includes('python3-sklearn') && PIP_PACKAGES.includes('scikit-learn'));
  assert.ok(PIP_PACKAGES.includes('pyarrow'), 'pyarrow where available (PyPI has it; bookworm does not)');
  assert.ok(DEBIAN_PACKAGES.includes('fonts-noto-cjk'));
  assert.match(dockerfileText(), /^FROM python:3\.12-slim$/m);
  assert.match(dockerfileText(), /fonts-noto-cjk/);
  assert.match(dockerfileText(), /COPY matplotlibrc \/etc\/matplotlibrc/);
  assert.match(MATPLOTLIBRC, /^font\.family: DejaVu Sans, Noto Sans CJK JP$/m);
  assert.match(MATPLOTLIBRC, /^backend: Agg$/m);
});

test('the recipe hash is stable and changes with the recipe', () => {
  assert.equal(recipeHash('debian', 'bookworm'), recipeHash('debian', 'bookworm'));
  assert.notEqual(recipeHash('debian', 'bookworm'), recipeHash('debian', 'trixie'));
  assert.notEqual(recipeHash('debian', 'bookworm'), recipeHash('dockerfile', 'bookworm'));
  assert.match(recipeHash('debian', 'bookworm'), /^[0-9a-f]{24}$/);
});

test('image names split into repository and tag, registry ports included', () => {
  assert.deepEqual(splitImageName('analyst-sandbox:latest'), ['analyst-sandbox', 'latest']);
  assert.deepEqual(splitImageName('registry.local:5000/team/sandbox'), [
    'registry.local:5000/team/sandbox',
    undefined,
  ]);
  assert.deepEqual(splitImageName('registry.local:5000/sandbox:v2'), ['registry.local:5000/sandbox', 'v2']);
});

test('profiles: default adds the small libraries benchmarks import, full adds the heavy ones under its own hash', async () => {
  const { debianPackages, DEBIAN_FULL_PACKAGES } = await import('../../src/sandbox/image/recipe.ts');
  for (const name of ['python3-networkx', 'python3-yaml', 'python3-xgboost', 'python3-lmfit'])
    assert.ok(debianPackages('default').includes(name), name);
  assert.ok(!debianPackages('default').includes('python3-gensim'), 'gensim brings 1.2 GB of cloud SDKs');
  assert.ok(!debianPackages('default').includes('python3-torch'));
  assert.deepEqual(debianPackages('full'), [...debianPackages('default'), ...DEBIAN_FULL_PACKAGES]);
  assert.ok(
    debianPackages('full').includes('python3-torch') && debianPackages('full').includes('python3-gensim'),
  );
  assert.notEqual(recipeHash('debian', 'bookworm', 'full'), recipeHash('debian', 'bookworm'));
  assert.equal(recipeHash('debian', 'bookworm', 'default'), recipeHash('debian', 'bookworm'));
  assert.match(dockerfileText('full'), /torch/);
  assert.doesNotMatch(dockerfileText(), /torch/);
});
