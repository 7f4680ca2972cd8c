import { z } from 'zod';

/**
 * The offline analyst's code: it loads every data file in the workspace with pandas,
 * prints a profile a person can read (schema, missing values, summary statistics, frequent
 * values, correlations), saves charts, and ends with a JSON summary after a random marker
 * that the answer is written from. Real code over real data; nothing is made up.
 */
export function profileProgram(marker: string): string {
  return `def _analyst_profile(MARKER):
    import json, os, re, sqlite3, sys, warnings
    warnings.simplefilter("ignore")
    summary = {"tables": [], "notes": [], "charts": [], "skipped": []}
    try:
        import pandas as pd
    except ImportError:
        summary["notes"].append("pandas is not installed in this sandbox image, so the data could not be profiled")
        sys.stdout.write(MARKER + json.dumps(summary) + "\\n")
        return
    frames = []
    for entry in sorted(os.listdir(".")):
        if not os.path.isfile(entry) or os.path.islink(entry) or entry.startswith(".") or entry.startswith("profile_"):
            continue
        kind = entry.rsplit(".", 1)[-1].lower() if "." in entry else ""
        try:
            if kind == "csv":
                frames.append((entry, pd.read_csv(entry, encoding_errors="replace")))
            elif kind in ("tsv", "tab"):
                frames.append((entry, pd.read_csv(entry, sep="\\t", encoding_errors="replace")))
            elif kind in ("jsonl", "ndjson"):
                frames.append((entry, pd.read_json(entry, lines=True)))
            elif kind == "json":
                with open(entry, encoding="utf-8-sig") as f:
                    value = json.load(f)
                if isinstance(value, dict):
                    lists = [v for v in value.values() if isinstance(v, list)]
                    value = lists[0] if len(lists) == 1 else [value]
                frames.append((entry, pd.json_normalize(value)))
            elif kind in ("xlsx", "xls"):
                for sheet, frame in pd.read_excel(entry, sheet_name=None).items():
                    frames.append(("%s [%s]" % (entry, sheet), frame))
            elif kind == "parquet":
                frames.append((entry, pd.read_parquet(entry)))
            elif kind in ("sqlite", "sqlite3", "db"):
                conn = sqlite3.connect("file:%s?mode=ro" % entry, uri=True)
                names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
                for name in names:
                    frames.append(("%s [%s]" % (entry, name), pd.read_sql('SELECT * FROM "%s"' % name.replace('"', '""'), conn)))
                conn.close()
            else:
                summary["skipped"].append(entry)
        except Exception as error:
            summary["notes"].append("%s could not be read: %s: %s" % (entry, type(error).__name__, str(error)[:200]))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    for label, frame in frames:
        slug = re.sub(r"[^0-9a-zA-Z]+", "_", label).strip("_").lower()[:40] or "data"
        table = {"name": label, "rows": int(frame.shape[0]), "columns": int(frame.shape[1]), "column_info": [],
                 "missing": {}, "numeric": {}, "top_values": {}, "correlations": []}
        print("=" * 72)
        print("%s: %d rows x %d columns" % (label, frame.shape[0], frame.shape[1]))
        for column in frame.columns:
            series = frame[column]
            missing = int(series.isna().sum())
            kind = "number" if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series) else (
                "date" if pd.api.types.is_datetime64_any_dtype(series) else "text")
            table["column_info"].append({"name": str(column), "kind": kind, "dtype": str(series.dtype),
                                         "distinct": int(series.nunique(dropna=True))})
            if missing:
                table["missing"][str(column)] = missing
        print(frame.dtypes.to_string())
        numeric = frame.select_dtypes("number")
        numeric = numeric[[c for c in numeric.columns if not pd.api.types.is_bool_dtype(numeric[c])]]
        if not numeric.empty:
            stats = numeric.describe().T
            print(stats.to_string(max_rows=30))
            for column, row in stats.iterrows():
                table["numeric"][str(column)] = {k: (None if pd.isna(row[k]) else float(row[k]))
                                                 for k in ("count", "mean", "std", "min", "50%", "max")}
        for column in [c for c in frame.columns if c not in numeric.columns][:10]:
            counts = frame[column].astype(str).where(frame[column].notna()).value_counts().head(5)
            if len(counts):
                table["top_values"][str(column)] = [[str(k), int(v)] for k, v in counts.items()]
                print("most frequent %s: %s" % (column, ", ".join("%s (%d)" % (k, v) for k, v in counts.items())))
        if table["missing"]:
            print("missing values:", table["missing"])
        if numeric.shape[1] >= 2:
            corr = numeric.corr(numeric_only=True)
            pairs = []
            columns = list(corr.columns)
            for i in range(len(columns)):
                for j in range(i + 1, len(columns)):
                    value = corr.iloc[i, j]
                    if not pd.isna(value):
                        pairs.append([str(columns[i]), str(columns[j]), round(float(value), 3)])
            pairs.sort(key=lambda p: -abs(p[2]))
            table["correlations"] = pairs[:10]
            if pairs:
                print("strongest correlations:", pairs[:5])
            fig, ax = plt.subplots(figsize=(1.2 * len(columns) + 3, 1.0 * len(columns) + 2))
            image = ax.imshow(corr.values, cmap="coolwarm", vmin=-1, vmax=1)
            ax.set_xticks(range(len(columns)), [str(c) for c in columns], rotation=45, ha="right")
            ax.set_yticks(range(len(columns)), [str(c) for c in columns])
            fig.colorbar(image, ax=ax)
            ax.set_title("Correlations: %s" % label)
            name = "profile_%s_correlations.png" % slug
            fig.savefig(name, bbox_inches="tight")
            summary["charts"].append(name)
        if not numeric.empty:
            shown = list(numeric.columns)[:6]
            fig, axes = plt.subplots(1, len(shown), figsize=(3.2 * len(shown), 3), squeeze=False)
            for ax, column in zip(axes[0], shown):
                ax.hist(numeric[column].dropna(), bins=20, color="#4c78a8")
                ax.set_title(str(column))
            fig.suptitle("Distributions: %s" % label)
            name = "profile_%s_distributions.png" % slug
            fig.savefig(name, bbox_inches="tight")
            summary["charts"].append(name)
        plt.close("all")
        summary["tables"].append(table)
    sys.stdout.write(MARKER + json.dumps(summary, default=str, ensure_ascii=False) + "\\n")


_analyst_profile(${JSON.stringify(marker)})
del _analyst_profile
`;
}

const NumericStats = z.object({
  count: z.number().nullable(),
  mean: z.number().nullable(),
  std: z.number().nullable(),
  min: z.number().nullable(),
  '50%': z.number().nullable(),
  max: z.number().nullable(),
});

export const ProfileSchema = z.object({
  tables: z.array(
    z.object({
      name: z.string(),
      rows: z.number(),
      columns: z.number(),
      column_info: z.array(
        z.object({ name: z.string(), kind: z.string(), dtype: z.string(), distinct: z.number() }),
      ),
      missing: z.record(z.number()),
      numeric: z.record(NumericStats),
      top_values: z.record(z.array(z.tuple([z.string(), z.number()]))),
      correlations: z.array(z.tuple([z.string(), z.string(), z.number()])),
    }),
  ),
  notes: z.array(z.string()),
  charts: z.array(z.string()),
  skipped: z.array(z.string()),
});
export type Profile = z.infer<typeof ProfileSchema>;

/** Splits the program's output into what a person reads and the JSON summary. */
export function parseProfileOutput(output: string, marker: string): { readable: string; profile?: Profile } {
  const at = output.lastIndexOf(marker);
  if (at < 0) return { readable: output };
  const readable = output.slice(0, at);
  try {
    const parsed = ProfileSchema.safeParse(JSON.parse(output.slice(at + marker.length).split('\n')[0] ?? ''));
    return parsed.success ? { readable, profile: parsed.data } : { readable };
  } catch {
    return { readable };
  }
}
