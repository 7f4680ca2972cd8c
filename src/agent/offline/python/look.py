# Load every data file in the workspace and look at it: its size, its columns, a few rows.
import csv
import json
import os
import re
import sqlite3
import warnings

import pandas as pd

warnings.simplefilter("ignore")
TOTAL_ROWS = r"^(?:grand\s+)?(?:total|totals|sum|all|overall|合计|总计|总和|全部)\s*(?:[:(\[].*)?$"
MISSING_MARKERS = {"", "-", "--", "—", "–", "n/a", "na", "nan", "none", "null", "no data", "unknown", "?", "tbd", "tba"}
TABLE_EXTENSIONS = {"csv", "tsv", "tab", "txt", "json", "jsonl", "ndjson", "xlsx", "xls", "parquet", "sqlite", "sqlite3", "db"}
# Above this size a file is not loaded whole (pandas needs several times a CSV's size in memory):
# DuckDB counts and profiles it out of core, and column kinds are judged on its first rows.
LARGE_FILE_BYTES = 64 * 1024 * 1024
HEAD_ROWS = 20_000
# Frequent values of a large file are counted exactly (in the scan that counts its rows) for the
# columns the look shows values of with at most this many distinct values in the first rows, and
# kept when the whole file has at most COUNTED_DISTINCT.
HEAD_COUNTED_DISTINCT = 2_000
COUNTED_DISTINCT = 10_000


def text_encoding(path):
    """UTF-8 when it decodes; else GB18030 when it reads as common Chinese text; else Windows-1252."""
    with open(path, "rb") as f:
        sample = f.read(1 << 20)
    try:
        sample.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError as error:
        if error.start > len(sample) - 4:
            return "utf-8"  # a character cut at the end of the sample
    try:
        decoded = sample.decode("gb18030")
    except UnicodeDecodeError:
        return "cp1252"
    if any("\u4e00" <= ch <= "\u9fff" for ch in decoded) and common_chinese_pairs(sample) >= 0.9:
        return "gb18030"
    return "cp1252"


def common_chinese_pairs(sample):
    """The share of two-byte sequences in GB2312's range (both bytes 0xA1 or more).

    Most Latin-1 bytes decode as GB18030 too, but an accented letter is mostly followed by
    a plain one ("M\xe1laga"), a pair outside GB2312, where nearly all Chinese text lies.
    """
    common = other = i = 0
    while i < len(sample) - 1:
        lead, trail = sample[i], sample[i + 1]
        if lead < 0x81:
            i += 1
            continue
        if 0xA1 <= lead <= 0xF7 and 0xA1 <= trail <= 0xFE:
            common += 1
        else:
            other += 1
        i += 2
    return common / (common + other) if common + other else 0.0


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


# What is wrong with a file, in the words of src/contract/file-problems.ts (the preview says the same).
def problem_empty(name):
    return "%s is empty (0 bytes): there is no table in it. Upload the file again." % name


def problem_header_only(name, columns):
    return "%s has a header (%d column%s) and no rows of data: there is nothing to analyse." % (
        name, columns, "" if columns == 1 else "s")


def problem_not_text(name):
    return ("%s is not a text file (it holds binary data), so it cannot be read as a table. "
            "Is it the right file, or another format renamed?" % name)


def problem_too_many_fields(name, line, saw, expected):
    return ("%s is malformed: line %d has %d fields where the header has %d (a missing quote or an extra "
            "delimiter?), so it cannot be read as a table as it is." % (name, line, saw, expected))


def looks_binary(path):
    """The rule of looksBinary in src/server/preview/preview.ts: NUL bytes, or many control bytes, in the head."""
    with open(path, "rb") as f:
        head = f.read(8192)
    if b"\0" in head:
        return True
    controls = sum(1 for b in head if b < 9 or 13 < b < 32)
    return len(head) > 0 and controls * 10 > len(head)


def text_problem(name, error):
    """A pandas error of a delimited text file as one of the statements above, or None."""
    found = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(error))
    if found:
        return problem_too_many_fields(name, int(found.group(2)), int(found.group(3)), int(found.group(1)))
    return None


def sql_text(text):
    return "'" + text.replace("'", "''") + "'"


def sql_name(name):
    return '"' + name.replace('"', '""') + '"'


def duckdb_source(path, kind):
    """The DuckDB table function that reads this file, or None where only pandas reads it."""
    if kind in ("csv", "tsv", "tab", "txt"):
        encoding = text_encoding(path)
        if encoding != "utf-8":
            return None, None
        sep = separator(path, encoding, "," if kind == "csv" else "\t")
        if kind == "txt" and sep not in (",", ";", "\t", "|"):
            return None, None
        how = {"reader": "csv", "sep": sep, "encoding": encoding}
        return "read_csv(%s, delim=%s, header=true)" % (sql_text(path), sql_text(sep)), how
    if kind == "parquet":
        return "read_parquet(%s)" % sql_text(path), {"reader": "parquet"}
    if kind in ("jsonl", "ndjson"):
        return "read_json(%s, format='newline_delimited')" % sql_text(path), {"reader": "jsonl"}
    return None, None


def look_large(duckdb, source):
    """(rows, head, exact figures per column) of a file DuckDB reads, in one scan of it.

    Frequent values are counted (exactly, by histogram) in the same scan as the counts and ranges,
    and only for the columns whose values the look shows (text, or few distinct values in the first
    rows): a second scan (GROUPING SETS over every column with few values) made the look cost twice
    the file. See docs/performance.md, "Large files".
    """
    head = duckdb.sql("SELECT * FROM %s LIMIT %d" % (source, HEAD_ROWS)).df()
    names = [str(c) for c in head.columns]
    counted, distinct_only = [], []
    for i, name in enumerate(names):
        distinct = head.iloc[:, i].nunique()
        shown = distinct <= 12 or not (pd.api.types.is_numeric_dtype(head.iloc[:, i])
                                       or pd.api.types.is_datetime64_any_dtype(head.iloc[:, i]))
        if 0 < distinct <= HEAD_COUNTED_DISTINCT and settled(head.iloc[:, i], distinct):
            # approx_count_distinct is off by more than 10% on some dates: few values are counted exactly.
            (counted if shown else distinct_only).append(name)
    parts = ["count(*)"]
    for name in names:
        parts += ["count(%s)" % sql_name(name), "approx_count_distinct(%s)" % sql_name(name),
                  "min(%s)" % sql_name(name), "max(%s)" % sql_name(name)]
    parts += ["count(DISTINCT %s)" % sql_name(name) for name in distinct_only]
    parts += ["histogram(CAST(%s AS VARCHAR))" % sql_name(name) for name in counted]
    figures = duckdb.sql("SELECT %s FROM %s" % (", ".join(parts), source)).fetchone()
    rows, exact = int(figures[0]), {}
    for i, name in enumerate(names):
        present, distinct, low, high = figures[1 + 4 * i: 5 + 4 * i]
        exact[name] = {"missing": rows - int(present), "distinct": int(distinct), "min": low, "max": high}
    after = 1 + 4 * len(names)
    for name, distinct in zip(distinct_only, figures[after: after + len(distinct_only)]):
        exact[name].update(distinct=int(distinct), counted=True)
    for name, histogram in zip(counted, figures[after + len(distinct_only):]):
        pairs = histogram_pairs(histogram)
        if len(pairs) <= COUNTED_DISTINCT:
            pairs.sort(key=lambda item: (-item[1], item[0]))
            exact[name]["values"] = [[value[:200], count] for value, count in pairs]
    return rows, head, exact


def settled(column, distinct):
    """Whether the first rows seem to hold most of a column's values: the second half of them adds few.

    histogram() keeps every value in memory, outside DuckDB's memory limit: a column still
    gaining values (ids, free text, a column empty at first) is not counted that way.
    """
    half = len(column) // 2
    return distinct - column.iloc[:half].nunique() <= max(10, distinct // 10)


def histogram_pairs(histogram):
    """[value, count] pairs of a histogram() result (a dict, or keys and values as DuckDB's package gives them)."""
    if not histogram:
        return []
    if set(histogram) == {"key", "value"} and isinstance(histogram["key"], list):
        return [[k, int(v)] for k, v in zip(histogram["key"], histogram["value"]) if k is not None]
    return [[k, int(v)] for k, v in histogram.items() if k is not None]


def describe_large(head, exact):
    """Columns as describe_column sees the first rows, with the whole file's counts and ranges."""
    columns = []
    for i in range(head.shape[1]):
        info = describe_column(head.iloc[:, i])
        whole = exact[info["name"]]
        info["missing"], info["distinct"] = whole["missing"], whole["distinct"]
        if "values" in whole:
            info["distinct"] = len(whole["values"])  # exact, where approx_count_distinct is within a few %
        if info["kind"] == "number" and whole["min"] is not None:
            info["min"], info["max"] = float(whole["min"]), float(whole["max"])
        elif info["kind"] == "date" and whole["min"] is not None and head.iloc[:, i].dtype != object:
            info["min"], info["max"] = str(whole["min"]), str(whole["max"])
        if "values" in whole and ("values" in info or whole["distinct"] <= 12):
            info["values"] = whole["values"][:60]
            if info["kind"] == "text":
                totals = [(v, n) for v, n in whole["values"] if re.match(TOTAL_ROWS, v.strip().lower())]
                if 0 < sum(n for _, n in totals) <= 3:
                    info["totals"] = sorted(v for v, _ in totals)
                else:
                    info.pop("totals", None)
        columns.append(info)
    return columns


def describe_column(series):
    """What a column holds: its kind, how much is missing, its range or its most frequent values.

    Text is looked at once per distinct value, weighted by how often it occurs: the same
    result as row by row, in seconds rather than minutes on a million rows.
    """
    present = series.dropna()
    info = {"name": str(series.name), "dtype": str(series.dtype), "missing": int(series.isna().sum()),
            "distinct": int(present.nunique())}
    counts = None
    if present.empty:
        info["kind"] = "empty"
    elif pd.api.types.is_bool_dtype(series):
        info["kind"] = "bool"
    elif pd.api.types.is_numeric_dtype(series):
        info.update(kind="number", min=float(present.min()), max=float(present.max()),
                    integer=bool((present % 1 == 0).all()),
                    decimals=decimals(pd.Series(present.unique()).astype(str)))
    elif pd.api.types.is_datetime64_any_dtype(series):
        info.update(kind="date", min=str(present.min()), max=str(present.max()))
    else:
        counts = text_counts(present)
        text = counts.index.to_series()
        # Cells such as "no data" or "n/a" say a number is missing; they do not make the column text.
        kept = ~text.str.strip().str.lower().isin(MISSING_MARKERS)
        text, weight = text[kept], counts[kept]
        numbers = to_number(text)
        sample = text.head(2000)
        dates = pd.to_datetime(sample, errors="coerce") if sample.str.contains(r"\d").mean() > 0.9 else None
        if len(numbers) and weight[numbers.notna()].sum() >= 0.8 * weight.sum():
            info.update(kind="numeric-text", min=float(numbers.min()), max=float(numbers.max()),
                        integer=bool((numbers.dropna() % 1 == 0).all()), decimals=decimals(text),
                        percent=bool(weight[text.str.contains("%")].sum() > 0.5 * weight.sum()))
        elif dates is not None and dates.notna().mean() >= 0.8:
            info.update(kind="date", min=str(dates.min()), max=str(dates.max()))
        else:
            info["kind"] = "text"
    if info["kind"] in ("text", "bool", "numeric-text") or info["distinct"] <= 12:
        counts = text_counts(present) if counts is None else counts
        top = counts.head(400 if len(series) <= 5000 else 60)
        info["values"] = [[value[:200], int(count)] for value, count in top.items()]
    if info["kind"] == "text":
        # A row that sums up the others ("Total", "All") would be counted twice by an aggregate.
        matched = counts[counts.index.to_series().str.strip().str.lower().str.match(TOTAL_ROWS).values]
        if 0 < matched.sum() <= 3:
            info["totals"] = sorted(matched.index)
    return info


def text_counts(present):
    """How often each value occurs, as text, most frequent first."""
    counts = present.value_counts()
    if not all(isinstance(value, str) for value in counts.index):
        counts = present.astype(str).value_counts()
    return counts


def decimals(text):
    """The most decimal places any of these numbers is written with (at most 6)."""
    places = text.str.extract(r"\.(\d+)\s*%?\s*$")[0].dropna().str.rstrip("0").str.len()
    return int(min(places.max(), 6)) if len(places) else 0


tables, notes, skipped, problems = [], [], [], []
for name in sorted(os.listdir(".")):
    if name.startswith(".") or not os.path.isfile(name) or os.path.islink(name):
        continue
    if name.rsplit(".", 1)[-1].lower() not in TABLE_EXTENSIONS:
        skipped.append(name)
        continue
    size = os.path.getsize(name)
    kind = name.rsplit(".", 1)[-1].lower()
    if kind in ("csv", "tsv", "tab") and (size == 0 or looks_binary(name)):
        problem = problem_empty(name) if size == 0 else problem_not_text(name)
        print(problem + "\n")
        problems.append({"file": name, "message": problem})
        continue
    try:
        source, how = duckdb_source(name, kind) if size > LARGE_FILE_BYTES else (None, None)
        if source:
            try:
                import duckdb
            except ImportError:
                source = None
                notes.append("%s is %d MB and duckdb is not installed: it was loaded whole" % (name, size >> 20))
        if source:
            rows, df, exact = look_large(duckdb, source)
            columns = describe_large(df, exact)
            print("%s: %d MB, %d rows × %d columns (read with DuckDB, not loaded whole; kinds judged on the first %d rows)"
                  % (name, size >> 20, rows, df.shape[1], len(df)))
            estimated = [c["name"] for c in columns if not {"values", "counted"} & set(exact[c["name"]])]
            if estimated:
                print("distinct counts approximate (HyperLogLog estimates) for: %s" % ", ".join(estimated))
            sampled = [c["name"] for c in columns if "values" in c and "values" not in exact[c["name"]]]
            if sampled:
                print("frequent values counted on the first %d rows only for: %s" % (len(df), ", ".join(sampled)))
            summary = pd.DataFrame(columns, columns=["name", "kind", "missing", "distinct"])
            print(summary.to_string(index=False))
            print(df.head(5).to_string(max_cols=12, max_colwidth=40))
            print()
            tables.append({"file": name, "label": name, "rows": rows, "columns": columns, "bytes": size,
                           "source": source, **how})
            continue
        for how, df in read_tables(name):
            label = name + "".join(" [%s]" % how[key] for key in ("sheet", "table") if key in how)
            if how.get("reader") == "csv" and df.shape[0] == 0:
                problem = problem_header_only(name, df.shape[1])
                print(problem + "\n")
                problems.append({"file": name, "message": problem})
                continue
            columns = [describe_column(df.iloc[:, i]) for i in range(df.shape[1])]
            print("%s: %d rows × %d columns" % (label, df.shape[0], df.shape[1]))
            if columns:
                summary = pd.DataFrame(columns, columns=["name", "kind", "missing", "distinct"])
                print(summary.to_string(index=False))
                print(df.head(5).to_string(max_cols=12, max_colwidth=40))
            print()
            tables.append({"file": name, "label": label, "rows": int(df.shape[0]), "columns": columns, "bytes": size, **how})
    except pd.errors.EmptyDataError:
        print("%s is empty\n" % name)
        notes.append("%s is empty" % name)
    except pd.errors.ParserError as error:
        problem = text_problem(name, error) or "%s could not be read: %s" % (name, str(error)[:300])
        print(problem + "\n")
        problems.append({"file": name, "message": problem})
    except Exception as error:
        note = "%s could not be read: %s: %s" % (name, type(error).__name__, str(error)[:300])
        print(note + "\n")
        notes.append(note)
if skipped:
    print("Not tables:", ", ".join(skipped))
