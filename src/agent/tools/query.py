# The `query` tool's program, run inside the thread's sandbox (never on the host); see
# query-program.ts. Every data file of the workspace is a DuckDB view (CSV, TSV, Parquet, JSON
# and JSONL are read where they lie, out of core); Excel sheets and SQLite tables, which this
# DuckDB build cannot scan, are read with pandas and sqlite3 and scanned as DataFrames. One
# read-only statement runs; its rows go out as JSON after a random marker, so nothing the data
# contains can pass for the result. Everything lives inside one function so a stateful
# session's variables are left alone.
def _analyst_query(SQL, MARKER, MAX_ROWS):
    import json, math, os, re, sys
    try:
        import duckdb
    except ImportError:
        return _analyst_query_sqlite(SQL, MARKER, MAX_ROWS)
    import datetime, decimal
    READING = ("SELECT", "WITH", "FROM", "VALUES", "TABLE", "SHOW", "DESCRIBE", "SUMMARIZE", "PIVOT", "UNPIVOT")
    conn = duckdb.connect()
    sources, notes, current, frames = {}, [], [None], []

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

    def quoted(text):
        return "'%s'" % text.replace("'", "''")

    def ident(text):
        return '"%s"' % str(text).replace('"', '""')

    def view(name, select):
        conn.execute("CREATE VIEW %s AS %s" % (ident(name), select)).fetchall()

    def json_top(path):
        with open(path, "rb") as f:
            head = f.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
        return head[:1]

    def frame_view(name, frame, schema=None):
        """A DataFrame (an Excel sheet, a SQLite table) as a view over a registered scan."""
        hidden = "analyst_frame_%d" % len(frames)
        frames.append(frame)
        conn.register(hidden, frame)
        target = ident(name) if schema is None else "%s.%s" % (ident(schema), ident(name))
        conn.execute("CREATE VIEW %s AS SELECT * FROM %s" % (target, ident(hidden))).fetchall()

    for entry in sorted(os.listdir(".")):
        if not os.path.isfile(entry) or os.path.islink(entry) or entry == "data.json":
            continue
        kind = entry.rsplit(".", 1)[-1].lower() if "." in entry else ""
        current[0] = entry
        try:
            if kind == "csv":
                view(table_name(entry), "SELECT * FROM read_csv(%s, header = true)" % quoted(entry))
            elif kind in ("tsv", "tab"):
                view(table_name(entry), "SELECT * FROM read_csv(%s, header = true, delim = '\t')" % quoted(entry))
            elif kind == "parquet":
                view(table_name(entry), "SELECT * FROM read_parquet(%s)" % quoted(entry))
            elif kind in ("jsonl", "ndjson"):
                view(table_name(entry), "SELECT * FROM read_json(%s, format = 'newline_delimited')" % quoted(entry))
            elif kind == "json":
                source = "read_json(%s)" % quoted(entry)
                select = "SELECT * FROM %s" % source
                if json_top(entry) == b"{":
                    # {"rows": [...]}: the one list is the table, as before
                    described = conn.sql("SELECT * FROM %s LIMIT 0" % source)
                    lists = [c for c, t in zip(described.columns, described.types) if str(t).endswith("[]")]
                    if len(lists) == 1 and len(described.columns) == 1:
                        select = "SELECT unnest(%s, max_depth := 2) FROM %s" % (ident(lists[0]), source)
                view(table_name(entry), select)
            elif kind in ("sqlite", "sqlite3", "db"):
                import sqlite3
                import pandas as pd
                schema = table_name(entry)
                conn.execute("CREATE SCHEMA %s" % ident(schema)).fetchall()
                db = sqlite3.connect("file:%s?mode=ro" % entry, uri=True)
                try:
                    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")]
                    for table in tables:
                        frame_view(table, pd.read_sql_query("SELECT * FROM %s" % ident(table), db), schema)
                finally:
                    db.close()
            elif kind in ("xlsx", "xls"):
                import pandas as pd
                sheets = pd.read_excel(entry, sheet_name=None)
                for sheet, frame in sheets.items():
                    stem = entry if len(sheets) == 1 else "%s_%s" % (entry.rsplit(".", 1)[0], sheet)
                    frame_view(table_name(stem), frame)
        except Exception as error:
            notes.append("%s could not be loaded: %s: %s" % (entry, type(error).__name__, str(error).split("\n")[0]))
    # Nothing the statement runs may change a setting (threads, memory, file access) or write.
    conn.execute("SET lock_configuration = true").fetchall()

    def plain(value):
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, decimal.Decimal):
            return float(value)
        if isinstance(value, (datetime.date, datetime.time, datetime.datetime)):
            return value.isoformat(sep=" ") if isinstance(value, datetime.datetime) else value.isoformat()
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        if isinstance(value, dict):
            return {str(k): plain(v) for k, v in value.items()}
        if isinstance(value, bytes):
            return value.decode("utf-8", "replace")
        return value

    try:
        first = re.sub(r"^(\s+|--[^\n]*\n?|/\*.*?\*/|\()*", "", SQL, flags=re.S).split(None, 1)
        if not first or first[0].upper() not in READING:
            raise duckdb.PermissionException("the query tool is read-only: only a SELECT statement runs (no writes)")
        kind, _ = conn._statement_type(SQL)
        if kind is None:
            raise duckdb.InvalidInputException("the query tool runs exactly one statement")
        if kind != 1:
            raise duckdb.PermissionException("the query tool is read-only: only a SELECT statement runs (no writes)")
        relation = conn.sql(SQL)
        fetched = relation.fetchmany(MAX_ROWS + 1)
        result = {
            "ok": True,
            "columns": list(relation.columns),
            "rows": [[plain(v) for v in row] for row in fetched[:MAX_ROWS]],
            "truncated": len(fetched) > MAX_ROWS,
        }
    except Exception as error:
        result = {"ok": False, "error": "%s: %s" % (type(error).__name__, error)}
    finally:
        conn.close()
    used = [entry for name, entry in sources.items() if re.search(r"\b%s\b" % re.escape(name), SQL, re.I)]
    result.update(tables=sorted(sources), source_files=sorted(set(used)), notes=notes)
    sys.stdout.write(MARKER + json.dumps(result, default=str, ensure_ascii=False) + "\n")
