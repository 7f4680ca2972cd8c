def profile(df, label, name):
    """Prints a profile of one table (missing values, statistics, frequent values, correlations),
    saves its charts as NAME_*.png, and returns the figures the written answer quotes."""
    summary = {"name": label, "rows": int(df.shape[0]), "columns": int(df.shape[1]), "missing": {},
               "numeric": {}, "top_values": {}, "correlations": [], "charts": []}
    missing = df.isna().sum()
    summary["missing"] = {str(c): int(n) for c, n in missing[missing > 0].items()}
    print("Missing values:", summary["missing"] or "none")
    numeric = df.select_dtypes("number").loc[:, lambda frame: [not pd.api.types.is_bool_dtype(frame[c]) for c in frame]]
    if not numeric.empty:
        stats = numeric.describe().T.round(4)
        print(stats.to_string(max_rows=30))
        for column, row in stats.iterrows():
            summary["numeric"][str(column)] = {key: row[key] for key in ("count", "mean", "std", "min", "50%", "max")}
    for column in [c for c in df.columns if c not in numeric.columns][:10]:
        counts = df[column].dropna().astype(str).value_counts().head(5)
        if len(counts):
            print("Most frequent %s:" % column, ", ".join("%s (%d)" % item for item in counts.items()))
            summary["top_values"][str(column)] = [[str(k), int(v)] for k, v in counts.items()]
    if numeric.shape[1] >= 2:
        corr = numeric.corr()
        pairs = [(a, b, round(float(corr.loc[a, b]), 2)) for i, a in enumerate(corr.columns)
                 for b in corr.columns[i + 1:] if pd.notna(corr.loc[a, b])]
        pairs.sort(key=lambda pair: -abs(pair[2]))
        summary["correlations"] = [[str(a), str(b), r] for a, b, r in pairs[:10]]
        for a, b, r in pairs[:5]:
            print("Correlation %s ~ %s: r = %.2f" % (a, b, r))
        fig, ax = plt.subplots(figsize=(1.1 * len(corr) + 3, 0.9 * len(corr) + 2))
        image = ax.imshow(corr.values, cmap="coolwarm", vmin=-1, vmax=1)
        ax.set_xticks(range(len(corr)), [str(c) for c in corr.columns], rotation=45, ha="right")
        ax.set_yticks(range(len(corr)), [str(c) for c in corr.columns])
        fig.colorbar(image, ax=ax)
        ax.set_title("Correlations: %s" % label)
        fig.savefig("%s_correlations.png" % name, bbox_inches="tight")
        summary["charts"].append("%s_correlations.png" % name)
    if not numeric.empty:
        shown = list(numeric.columns)[:6]
        fig, axes = plt.subplots(1, len(shown), figsize=(3.2 * len(shown), 3), squeeze=False)
        for ax, column in zip(axes[0], shown):
            ax.hist(numeric[column].dropna(), bins=20, color="#4c78a8")
            ax.set_title(str(column))
        fig.suptitle("Distributions: %s" % label)
        fig.savefig("%s_distributions.png" % name, bbox_inches="tight")
        summary["charts"].append("%s_distributions.png" % name)
    plt.close("all")
    return summary
