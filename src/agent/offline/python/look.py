# Load every data file in the workspace and look at it: its size, its columns, a few rows.
import csv
import json
import os
import sqlite3
import warnings

import pandas as pd

warnings.simplefilter("ignore")
MARKER = "@@analyst-look@@"
TOTAL_ROWS = r"^(?:grand\s+)?(?:total|totals|sum|all|overall|合计|总计|总和|全部)\s*(?:[:(\[].*)?$"
MISSING_MARKERS = {"", "-", "--", "—", "–", "n/a", "na", "nan", "none", "null", "no data", "unknown", "?", "tbd", "tba"}
TABLE_EXTENSIONS = {"csv", "tsv", "tab", "txt", "json", "jsonl", "ndjson", "xlsx", "xls", "parquet", "sqlite", "sqlite3", "db"}


def text_encoding(path):
    """UTF-8 when it decodes; else GB18030 when that gives Chinese text; else Windows-1252."""
    with open(path, "rb") as f:
        sample = f.read(1 << 20)
    try:
        sample.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError as error:
        if error.start > len(sample) - 4:
            return "utf-8"  # a character cut at the end of the sample
    try:
        if any("\u4e00" <= ch <= "\u9fff" for ch in sample.decode("gb18030")):
            return "gb18030"
    except UnicodeDecodeError:
        pass
    return "cp1252"


def separator(path, encoding, default):
    with open(path, encoding=encoding, errors="replace") as f:
        sample = f.read(1 << 16)
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
    except csv.Error:
        return default


def read_tables(path):
    """Yields (how it was read, frame) for each table in one file."""
    kind = path.rsplit(".", 1)[-1].lower()
    if kind in ("csv", "tsv", "tab", "txt"):
        encoding = text_encoding(path)
        sep = separator(path, encoding, "," if kind == "csv" else "\t")
        if kind == "txt" and sep not in (",", ";", "\t", "|"):
            return
        frame = pd.read_csv(path, sep=sep, encoding=encoding, encoding_errors="replace")
        yield {"reader": "csv", "sep": sep, "encoding": encoding}, frame
    elif kind in ("jsonl", "ndjson"):
        yield {"reader": "jsonl"}, pd.read_json(path, lines=True)
    elif kind == "json":
        with open(path, encoding="utf-8-sig") as f:
            value = json.load(f)
        yield {"reader": "json"}, pd.json_normalize(value if isinstance(value, list) else [value])
    elif kind in ("xlsx", "xls"):
        for sheet, frame in pd.read_excel(path, sheet_name=None).items():
            yield {"reader": "excel", "sheet": str(sheet)}, frame
    elif kind == "parquet":
        yield {"reader": "parquet"}, pd.read_parquet(path)
    elif kind in ("sqlite", "sqlite3", "db"):
        with sqlite3.connect("file:%s?mode=ro" % path, uri=True) as conn:
            names = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            for name in names:
                query = 'SELECT * FROM "%s"' % name.replace('"', '""')
                yield {"reader": "sqlite", "table": name}, pd.read_sql(query, conn)


# to_number.py


def describe_column(series):
    """What a column holds: its kind, how much is missing, its range or its most frequent values."""
    present = series.dropna()
    info = {"name": str(series.name), "dtype": str(series.dtype), "missing": int(series.isna().sum()),
            "distinct": int(present.nunique())}
    if present.empty:
        info["kind"] = "empty"
    elif pd.api.types.is_bool_dtype(series):
        info["kind"] = "bool"
    elif pd.api.types.is_numeric_dtype(series):
        info.update(kind="number", min=float(present.min()), max=float(present.max()),
                    integer=bool((present % 1 == 0).all()), decimals=decimals(present.astype(str)))
    elif pd.api.types.is_datetime64_any_dtype(series):
        info.update(kind="date", min=str(present.min()), max=str(present.max()))
    else:
        text = present.astype(str)
        # Cells such as "no data" or "n/a" say a number is missing; they do not make the column text.
        text = text[~text.str.strip().str.lower().isin(MISSING_MARKERS)]
        numbers = to_number(text)
        sample = pd.Series(text.unique()[:2000])
        dates = pd.to_datetime(sample, errors="coerce") if sample.str.contains(r"\d").mean() > 0.9 else None
        if len(numbers) and numbers.notna().mean() >= 0.8:
            info.update(kind="numeric-text", min=float(numbers.min()), max=float(numbers.max()),
                        integer=bool((numbers.dropna() % 1 == 0).all()), decimals=decimals(text),
                        percent=bool(text.str.contains("%").mean() > 0.5))
        elif dates is not None and dates.notna().mean() >= 0.8:
            info.update(kind="date", min=str(dates.min()), max=str(dates.max()))
        else:
            info["kind"] = "text"
    if info["kind"] in ("text", "bool", "numeric-text") or info["distinct"] <= 12:
        counts = present.astype(str).value_counts().head(400 if len(series) <= 5000 else 60)
        info["values"] = [[str(value)[:200], int(count)] for value, count in counts.items()]
    if info["kind"] == "text":
        # A row that sums up the others ("Total", "All") would be counted twice by an aggregate.
        totals = present.astype(str)[present.astype(str).str.strip().str.lower().str.match(TOTAL_ROWS)]
        if 0 < len(totals) <= 3:
            info["totals"] = sorted(set(totals))
    return info


def decimals(text):
    """The most decimal places any of these numbers is written with (at most 6)."""
    places = text.str.extract(r"\.(\d+)\s*%?\s*$")[0].dropna().str.rstrip("0").str.len()
    return int(min(places.max(), 6)) if len(places) else 0


tables, notes, skipped = [], [], []
for name in sorted(os.listdir(".")):
    if name.startswith(".") or not os.path.isfile(name) or os.path.islink(name):
        continue
    if name.rsplit(".", 1)[-1].lower() not in TABLE_EXTENSIONS:
        skipped.append(name)
        continue
    try:
        for how, df in read_tables(name):
            label = name + "".join(" [%s]" % how[key] for key in ("sheet", "table") if key in how)
            columns = [describe_column(df.iloc[:, i]) for i in range(df.shape[1])]
            print("%s: %d rows × %d columns" % (label, df.shape[0], df.shape[1]))
            if columns:
                summary = pd.DataFrame(columns, columns=["name", "kind", "missing", "distinct"])
                print(summary.to_string(index=False))
                print(df.head(5).to_string(max_cols=12, max_colwidth=40))
            print()
            tables.append({"file": name, "label": label, "rows": int(df.shape[0]), "columns": columns, **how})
    except pd.errors.EmptyDataError:
        print("%s is empty\n" % name)
        notes.append("%s is empty" % name)
    except Exception as error:
        note = "%s could not be read: %s: %s" % (name, type(error).__name__, str(error)[:300])
        print(note + "\n")
        notes.append(note)
if skipped:
    print("Not tables:", ", ".join(skipped))
print(MARKER + json.dumps({"tables": tables, "notes": notes, "skipped": skipped}, ensure_ascii=False, default=str))
