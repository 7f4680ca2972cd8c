"""Parquet for pandas in images without pyarrow or fastparquet (Debian has neither):
`pd.read_parquet` and `DataFrame.to_parquet` go through DuckDB. Loaded at interpreter start
by analyst_parquet.pth; it only waits for pandas to be imported, then patches those two
entry points, and leaves pandas alone where a real Parquet engine is installed."""

import importlib.util
import os
import sys
import tempfile

INDEX_PREFIX = "__index_level_"


def have_engine():
    return any(importlib.util.find_spec(name) is not None for name in ("pyarrow", "fastparquet"))


def quote(text):
    return "'%s'" % str(text).replace("'", "''")


def identifier(name):
    return '"%s"' % str(name).replace('"', '""')


def read_parquet(path, engine="auto", columns=None, storage_options=None, use_nullable_dtypes=False, filters=None, **kwargs):
    """pandas.read_parquet through DuckDB: a file, a directory of files or a glob, or a
    binary file object; `columns` reads only those columns."""
    import datetime

    import duckdb
    import pandas as pd

    if engine not in ("auto", "duckdb"):
        raise ImportError("Parquet engine %r is not installed in this sandbox; engine='auto' reads through DuckDB" % engine)
    if filters is not None:
        raise NotImplementedError("read_parquet(filters=...) is not supported here: filter the DataFrame, or use duckdb.sql")
    scratch = None
    if hasattr(path, "read"):
        scratch = tempfile.NamedTemporaryFile(suffix=".parquet", delete=False)
        scratch.write(path.read())
        scratch.close()
        path = scratch.name
    path = os.fspath(path)
    if os.path.isdir(path):
        path = os.path.join(path, "**", "*.parquet")
    if columns is not None:
        columns = list(columns)
        if not columns:
            raise ValueError("columns= must name at least one column")
    try:
        with duckdb.connect() as con:
            relation = con.sql("SELECT * FROM read_parquet(%s)" % quote(path))
            names = relation.columns
            if columns is not None:
                missing = [c for c in columns if c not in names]
                if missing:
                    raise KeyError("column(s) not in %s: %s (it has %s)" % (path, missing, names))
                wanted = columns
            else:
                wanted = names
            select = ", ".join(identifier(c) for c in wanted)
            result = con.sql("SELECT %s FROM read_parquet(%s)" % (select, quote(path)))
            types = dict(zip(result.columns, result.types))
            frame = result.df()
    finally:
        if scratch is not None:
            os.unlink(scratch.name)
    for name, kind in types.items():
        # pyarrow gives DATE columns as datetime.date objects: the same here
        if str(kind) == "DATE":
            frame[name] = pd.Series(
                [None if pd.isna(v) else v.date() for v in frame[name]], index=frame.index, dtype=object
            )
    index = [c for c in frame.columns if str(c).startswith(INDEX_PREFIX)]
    if index:
        frame = frame.set_index(index)
        frame.index.names = [None] * len(index)
    return frame


def to_parquet(self, path=None, engine="auto", compression="snappy", index=None, partition_cols=None, storage_options=None, **kwargs):
    """DataFrame.to_parquet through DuckDB (one file; a non-default index is kept as columns
    that read_parquet restores)."""
    import duckdb
    import pandas as pd

    if engine not in ("auto", "duckdb"):
        raise ImportError("Parquet engine %r is not installed in this sandbox; engine='auto' writes through DuckDB" % engine)
    if partition_cols:
        raise NotImplementedError("to_parquet(partition_cols=...) is not supported here: write one file per group")
    frame = self
    default_index = isinstance(frame.index, pd.RangeIndex) and frame.index.start == 0 and frame.index.step == 1
    if index or (index is None and not default_index):
        names = [n if n is not None else "%s%d__" % (INDEX_PREFIX, i) for i, n in enumerate(frame.index.names)]
        frame = frame.copy()
        frame.index = frame.index.set_names(names)
        frame = frame.reset_index()
    frame.columns = [str(c) for c in frame.columns]
    target, buffer = path, None
    if path is None or hasattr(path, "write"):
        buffer = path
        handle = tempfile.NamedTemporaryFile(suffix=".parquet", delete=False)
        handle.close()
        target = handle.name
    codec = "uncompressed" if compression is None else str(compression)
    try:
        with duckdb.connect() as con:
            con.register("analyst_frame", frame)
            con.execute(
                "COPY (SELECT * FROM analyst_frame) TO %s (FORMAT parquet, COMPRESSION %s)"
                % (quote(os.fspath(target)), quote(codec))
            )
        if target is not path:
            with open(target, "rb") as f:
                data = f.read()
            if buffer is None:
                return data
            buffer.write(data)
    finally:
        if target is not path:
            os.unlink(target)
    return None


def patch(pandas):
    if have_engine():
        return
    pandas.read_parquet = read_parquet
    pandas.io.parquet.read_parquet = read_parquet
    pandas.DataFrame.to_parquet = to_parquet


class PandasWatcher:
    """A meta path finder that lets pandas load as usual, then patches it once."""

    def find_spec(self, name, path=None, target=None):
        if name != "pandas":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        loader_exec = spec.loader.exec_module

        def exec_module(module):
            loader_exec(module)
            try:
                patch(module)
            except Exception:
                pass  # pandas works as before; only Parquet stays unavailable

        spec.loader.exec_module = exec_module
        return spec


def install():
    if "pandas" in sys.modules:
        patch(sys.modules["pandas"])
    elif not any(isinstance(f, PandasWatcher) for f in sys.meta_path):
        sys.meta_path.insert(0, PandasWatcher())
