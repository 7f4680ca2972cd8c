import { createHash } from 'node:crypto';
import { DUCKDB_LIBRARY_SHA256, duckdbFilesHash } from './duckdb-files.ts';

/**
 * What goes into Analyst's data-science sandbox image (docs/spec.md#images). Two build paths share
 * this list: a root filesystem from Debian packages (needs only a Debian mirror) and a
 * Dockerfile from python:3.12-slim with pip (needs Docker Hub and PyPI).
 */

export type RecipeKind = 'debian' | 'dockerfile';

/**
 * `default` is the image every sandbox runs on; `full` adds heavy libraries some benchmark
 * tasks need (e.g. DS-1000's PyTorch tasks), built under its own tag (`analyst-sandbox:full`).
 */
export type RecipeProfile = 'default' | 'full';

export const RECIPE_PROFILES: readonly RecipeProfile[] = ['default', 'full'];

export const RECIPE_LABEL = 'dev.analyst.recipe-hash';
export const RECIPE_VERSION = 1;

/** Debian packages installed into the root filesystem (bookworm has no pyarrow). */
export const DEBIAN_PACKAGES = [
  'python3',
  'python3-pandas',
  'python3-numpy',
  'python3-scipy',
  'python3-matplotlib',
  'python3-seaborn',
  'python3-sklearn',
  'python3-statsmodels',
  'python3-openpyxl',
  'python3-xlrd',
  'python3-tabulate',
  // Interactive charts (docs/spec.md#charts); matplotlib stays the default.
  'python3-plotly',
  'python3-altair',
  // Small libraries that benchmark tasks (DS-1000) and DeepAnalyze-style trajectories import.
  'python3-networkx',
  'python3-yaml',
  'python3-xgboost',
  'python3-lmfit',
  'fonts-noto-cjk',
  // The benchmark's Jupyter peer runs in the same image.
  'python3-ipykernel',
  'python3-jupyter-client',
];

/**
 * What the `full` profile adds: the heavy ones Debian has (docs/performance.md#image-profiles
 * for what they weigh). Debian has no TensorFlow or Keras, so tasks that need them stay blocked.
 */
export const DEBIAN_FULL_PACKAGES = [
  // Debian's gensim brings smart-open and with it the Azure and AWS SDKs, the heaviest part.
  'python3-gensim',
  'python3-torch',
  'python3-torchvision',
  'python3-sympy',
  'python3-skimage',
];

/** The Debian packages of a profile. */
export function debianPackages(profile: RecipeProfile = 'default'): string[] {
  return profile === 'full' ? [...DEBIAN_PACKAGES, ...DEBIAN_FULL_PACKAGES] : [...DEBIAN_PACKAGES];
}

/** The same libraries from PyPI, for the Dockerfile path. */
export const PIP_PACKAGES = [
  'pandas',
  'numpy',
  'scipy',
  'matplotlib',
  'seaborn',
  'scikit-learn',
  'statsmodels',
  'openpyxl',
  'xlrd',
  'tabulate',
  'plotly',
  'altair',
  'networkx',
  'pyyaml',
  'xgboost',
  'lmfit',
  'pyarrow',
  // DuckDB's own package; the Debian path gets the library and Analyst's module instead.
  'duckdb==1.5.6',
  'ipykernel',
  'jupyter_client',
];

/** What the `full` profile adds on the pip path (CPU builds; PyPI has TensorFlow too). */
export const PIP_FULL_PACKAGES = [
  'gensim',
  'torch',
  'torchvision',
  'sympy',
  'scikit-image',
  'tensorflow-cpu',
];

/** The pip packages of a profile. */
export function pipPackages(profile: RecipeProfile = 'default'): string[] {
  return profile === 'full' ? [...PIP_PACKAGES, ...PIP_FULL_PACKAGES] : [...PIP_PACKAGES];
}

/**
 * Matplotlib configuration: Latin text in DejaVu Sans, and any glyph it lacks (Chinese,
 * Japanese, Korean) from Noto Sans CJK through matplotlib's font fallback, which needs the
 * families listed in font.family itself (matplotlib reads only the first face of the .ttc,
 * "Noto Sans CJK JP", whose glyphs cover Chinese too). No code prelude is injected into
 * cells, so traceback line numbers stay the user's own.
 */
export const MATPLOTLIBRC = `# Analyst sandbox image
backend: Agg
font.family: DejaVu Sans, Noto Sans CJK JP
font.sans-serif: DejaVu Sans, Noto Sans CJK JP, Bitstream Vera Sans, Arial, Helvetica, sans-serif
axes.unicode_minus: False
figure.dpi: 100
savefig.dpi: 100
`;

/** Where the image keeps a prebuilt font cache; the kernel copies it into its writable MPLCONFIGDIR. */
export const FONT_CACHE_DIR = '/opt/analyst/matplotlib-cache';

export const IMAGE_ENV = ['LANG=C.UTF-8', 'LC_ALL=C.UTF-8', 'MATPLOTLIBRC=/etc/matplotlibrc'];

export function dockerfileText(profile: RecipeProfile = 'default'): string {
  return `# Analyst sandbox image, pip path (needs Docker Hub and PyPI).
FROM python:3.12-slim
RUN apt-get update && apt-get install -y --no-install-recommends fonts-noto-cjk && rm -rf /var/lib/apt/lists/*
RUN pip install --no-cache-dir ${pipPackages(profile).join(' ')}
COPY matplotlibrc /etc/matplotlibrc
ENV ${IMAGE_ENV.join(' ')}
RUN mkdir -p /workspace ${FONT_CACHE_DIR} \\
 && MPLCONFIGDIR=${FONT_CACHE_DIR} python3 -c "import matplotlib.font_manager" \\
 && chmod -R a+rX ${FONT_CACHE_DIR}
`;
}

/** A hash of everything that shapes the image, stored as a label so unchanged recipes are not rebuilt. */
export function recipeHash(kind: RecipeKind, suite: string, profile: RecipeProfile = 'default'): string {
  const parts =
    kind === 'debian'
      ? [
          RECIPE_VERSION,
          kind,
          suite,
          debianPackages(profile),
          MATPLOTLIBRC,
          IMAGE_ENV,
          FONT_CACHE_DIR,
          DUCKDB_LIBRARY_SHA256,
          duckdbFilesHash(),
        ]
      : [RECIPE_VERSION, kind, dockerfileText(profile), MATPLOTLIBRC];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 24);
}
