# The `query` tool's SQLite program, for sandbox images without the `duckdb` module (a custom
# PYTHON_SANDBOX_IMAGE): it loads every file into an in-memory database. See query.py.
def _analyst_query_sqlite(SQL, MARKER, MAX_ROWS):
    import csv, json, os, re, sqlite3, sys
    conn = sqlite3.connect("file::memory:", uri=True)
    sources, notes, current = {}, [], [None]

    def table_name(file_name):
        """A table name for a file, unique, remembered with the file it came from."""
        stem = file_name.rsplit(".", 1)[0]
        name = re.sub(r"[^0-9a-zA-Z_]+", "_", stem).strip("_").lower() or "data"
        if name[0].isdigit():
            name = "t_" + name
        base, i = name, 2
        while name in sources:
            name = "%s_%d" % (base, i)
            i += 1
        sources[name] = current[0]
        return name

    def convert(value):
        if value is None:
            return None
        if not isinstance(value, str):
            return value if isinstance(value, (int, float)) else json.dumps(value, ensure_ascii=False)
        text = value.strip()
        if text == "":
            return None
        if re.fullmatch(r"[+-]?(0|[1-9][0-9]*)", text):
            return int(text)
        if re.fullmatch(r"[+-]?([0-9]+[.][0-9]*|[.][0-9]+|[0-9]+)([eE][+-]?[0-9]+)?", text):
            return float(text)
        return value

    def create(name, columns, rows):
        seen, cols = set(), []
        for index, column in enumerate(columns):
            column = str(column).strip() or "column_%d" % (index + 1)
            while column in seen:
                column += "_"
            seen.add(column)
            cols.append('"%s"' % column.replace('"', '""'))
        conn.execute('CREATE TABLE "%s" (%s)' % (name, ", ".join(cols)))
        width = len(cols)
        conn.executemany(
            'INSERT INTO "%s" VALUES (%s)' % (name, ",".join("?" * width)),
            ([convert(v) for v in (list(row) + [None] * width)[:width]] for row in rows),
        )

    def load_delimited(path, delimiter):
        with open(path, newline="", encoding="utf-8-sig", errors="replace") as f:
            reader = csv.reader(f, delimiter=delimiter)
            header = next(reader, None)
            if header:
                create(table_name(path), header, reader)

    def load_records(path, records):
        records = [r for r in records if isinstance(r, dict)]
        columns = []
        for record in records:
            for key in record:
                if key not in columns:
                    columns.append(key)
        if columns:
            create(table_name(path), columns, ([r.get(c) for c in columns] for r in records))

    for entry in sorted(os.listdir(".")):
        if not os.path.isfile(entry) or os.path.islink(entry):
            continue
        kind = entry.rsplit(".", 1)[-1].lower() if "." in entry else ""
        current[0] = entry
        try:
            if kind == "csv":
                load_delimited(entry, ",")
            elif kind in ("tsv", "tab"):
                load_delimited(entry, "\t")
            elif kind == "json":
                with open(entry, encoding="utf-8-sig") as f:
                    value = json.load(f)
                if isinstance(value, dict):
                    lists = [v for v in value.values() if isinstance(v, list)]
                    value = lists[0] if len(lists) == 1 else [value]
                load_records(entry, value if isinstance(value, list) else [])
            elif kind in ("jsonl", "ndjson"):
                with open(entry, encoding="utf-8-sig") as f:
                    load_records(entry, [json.loads(line) for line in f if line.strip()])
            elif kind in ("sqlite", "sqlite3", "db"):
                name = table_name(entry)
                conn.execute('ATTACH DATABASE ? AS "%s"' % name, ("file:%s?mode=ro" % entry,))
            elif kind in ("xlsx", "xls", "parquet"):
                try:
                    import pandas as pd
                except ImportError:
                    notes.append("%s skipped: reading it needs pandas, which this sandbox image lacks" % entry)
                    continue
                if kind == "parquet":
                    frames = {"": pd.read_parquet(entry)}
                else:
                    frames = pd.read_excel(entry, sheet_name=None)
                for sheet, frame in frames.items():
                    name = table_name(entry if len(frames) == 1 else "%s_%s" % (entry.rsplit(".", 1)[0], sheet))
                    frame.to_sql(name, conn, index=False)
        except Exception as error:
            notes.append("%s could not be loaded: %s: %s" % (entry, type(error).__name__, error))
    conn.execute("PRAGMA query_only = ON")
    try:
        cursor = conn.execute(SQL)
        columns = [d[0] for d in cursor.description or []]
        fetched = cursor.fetchmany(MAX_ROWS + 1)
        result = {
            "ok": True,
            "columns": columns,
            "rows": [list(row) for row in fetched[:MAX_ROWS]],
            "truncated": len(fetched) > MAX_ROWS,
        }
    except Exception as error:
        result = {"ok": False, "error": "%s: %s" % (type(error).__name__, error)}
    used = [entry for name, entry in sources.items() if re.search(r"\b%s\b" % re.escape(name), SQL, re.I)]
    result.update(tables=sorted(sources), source_files=sorted(set(used)), notes=notes)
    sys.stdout.write(MARKER + json.dumps(result, default=str, ensure_ascii=False) + "\n")

