"""A query's result: read chunk by chunk (a streaming result, so a large answer is never held
twice), as tuples for fetchall/fetchone or column by column into a pandas DataFrame."""

import ctypes

import numpy as np

from . import _types as t
from ._capi import lib
from ._errors import error_from_type
from ._types import DuckDBPyType, owned
from ._vectors import numeric, python_values

# Days and microseconds that datetime64[ns] can hold (years 1677 to 2262).
NS_DAYS = 106_751
NUMPY_KINDS = set(t.NUMPY_DTYPES) - {t.TIME}


class QueryResult:
    """Owns one duckdb_result until it is read to its end or closed."""

    def __init__(self, result):
        self._result = result
        self._open = True
        count = lib.column_count(ctypes.byref(result))
        self.columns = [lib.column_name(ctypes.byref(result), i).decode("utf-8", "replace") for i in range(count)]
        self.infos = [owned(lib.column_logical_type(ctypes.byref(result), i)) for i in range(count)]
        self.types = [DuckDBPyType(str(info)) for info in self.infos]
        self._pending = []  # rows read but not yet handed out (fetchone / fetchmany)
        self.on_close = None  # set by the connection: forget the DataFrames this read
        self.frames = {}

    @property
    def description(self):
        return [(name, str(kind), None, None, None, None, None) for name, kind in zip(self.columns, self.types)]

    def _chunks(self):
        """Yields data chunks (freed after each step) until the result ends."""
        while self._open:
            chunk = lib.fetch_chunk(self._result)
            if not chunk:
                error = lib.result_error(ctypes.byref(self._result))
                error_type = lib.result_error_type(ctypes.byref(self._result))
                self.close()
                if error:
                    raise error_from_type(error_type, error.decode("utf-8", "replace"))
                return
            holder = ctypes.c_void_p(chunk)
            try:
                size = lib.data_chunk_get_size(chunk)
                if size == 0:
                    continue
                yield chunk, size
            finally:
                lib.destroy_data_chunk(ctypes.byref(holder))

    def _rows_of(self, chunk, size):
        columns = [
            python_values(lib.data_chunk_get_vector(chunk, i), info, size) for i, info in enumerate(self.infos)
        ]
        return list(zip(*columns)) if columns else [()] * size

    def fetchmany(self, size=1):
        while len(self._pending) < size and self._open:
            for chunk, count in self._chunks():
                self._pending.extend(self._rows_of(chunk, count))
                break
        rows, self._pending = self._pending[:size], self._pending[size:]
        return rows

    def fetchone(self):
        rows = self.fetchmany(1)
        return rows[0] if rows else None

    def fetchall(self):
        rows, self._pending = self._pending, []
        for chunk, size in self._chunks():
            rows.extend(self._rows_of(chunk, size))
        return rows

    def fetchnumpy(self):
        return {name: column for name, column in zip(self.columns, self._columns())}

    def df(self):
        import pandas as pd

        data = {}
        for i, (name, column) in enumerate(zip(self.columns, self._columns())):
            key = name if name not in data else "%s_%d" % (name, i)  # DuckDB renames duplicates too
            data[key] = column
        frame = pd.DataFrame(data, columns=list(data))
        for name, info in zip(list(data), self.infos):
            if info.id == t.TIMESTAMP_TZ and str(frame[name].dtype).startswith("datetime64"):
                frame[name] = frame[name].dt.tz_localize("UTC")
            elif info.id == t.ENUM:
                frame[name] = pd.Categorical(frame[name], categories=info.dictionary)
        return frame

    def _columns(self):
        """Every column of the rest of the result as a numpy array, NULLs as NaN/NaT/None."""
        parts = [[] for _ in self.infos]
        masks = [[] for _ in self.infos]
        if self._pending:
            for j, column in enumerate(zip(*self._pending)):
                parts[j].append(("objects", list(column)))
            self._pending = []
        for chunk, size in self._chunks():
            for j, info in enumerate(self.infos):
                vector = lib.data_chunk_get_vector(chunk, j)
                read = numeric(vector, info, size) if info.id in NUMPY_KINDS or info.id == t.DECIMAL else None
                if read is None:
                    parts[j].append(("objects", python_values(vector, info, size)))
                else:
                    parts[j].append(("numbers", read[0]))
                    masks[j].append(read[1])
        return [finish(info, p, m) for info, p, m in zip(self.infos, parts, masks)]

    def close(self):
        if self._open:
            self._open = False
            lib.destroy_result(ctypes.byref(self._result))
            if self.on_close is not None:
                self.on_close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def finish(info, parts, masks):
    """One column's pieces joined into the array pandas users expect of DuckDB."""
    if not parts:
        return np.array([], dtype=empty_dtype(info))
    if any(kind == "objects" for kind, _ in parts):
        values = []
        for kind, piece in parts:
            values.extend(piece.tolist() if kind == "numbers" else piece)
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out
    values = np.concatenate([piece for _, piece in parts])
    valid = np.concatenate(masks)
    kind = info.id
    if kind == t.DATE or kind in (t.TIMESTAMP, t.TIMESTAMP_TZ, t.TIMESTAMP_S, t.TIMESTAMP_MS, t.TIMESTAMP_NS):
        unit = {t.DATE: "D", t.TIMESTAMP_S: "s", t.TIMESTAMP_MS: "ms", t.TIMESTAMP_NS: "ns"}.get(kind, "us")
        days = values if kind == t.DATE else values // {"s": 86400, "ms": 86_400_000, "us": 86_400_000_000, "ns": 86_400_000_000_000}[unit]
        if valid.any() and np.abs(days[valid]).max() > NS_DAYS:
            out = np.empty(len(values), dtype=object)  # outside datetime64[ns]: Python objects
            from ._vectors import to_date, to_datetimes

            out[:] = [to_date(v) for v in values.tolist()] if kind == t.DATE else to_datetimes(values, unit, False)
            out[~valid] = None
            return out
        stamps = values.astype("datetime64[%s]" % unit).astype("datetime64[ns]")
        stamps[~valid] = np.datetime64("NaT")
        return stamps
    if valid.all():
        return values
    if kind == t.BOOLEAN:
        out = values.astype(object)
        out[~valid] = None
        return out
    out = values.astype(np.float64)
    out[~valid] = np.nan
    return out


def empty_dtype(info):
    if info.id in (t.DATE, t.TIMESTAMP, t.TIMESTAMP_TZ, t.TIMESTAMP_S, t.TIMESTAMP_MS, t.TIMESTAMP_NS):
        return "datetime64[ns]"
    if info.id == t.DECIMAL:
        return np.float64
    if info.id in NUMPY_KINDS:
        return t.NUMPY_DTYPES[info.id]
    return object

