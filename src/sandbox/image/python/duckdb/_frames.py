"""pandas DataFrames as tables: `select ... from df` finds `df` in the calling code's scope
(DuckDB's replacement scan, as in DuckDB's own package) and reads it through a table
function, `analyst_pandas_scan(id)`, that copies the frame's columns into DuckDB's data
chunks as they are pulled: no temporary table, no copy of the whole frame."""

import ctypes
import datetime
import decimal
import sys

import numpy as np

from . import _types as t
from ._capi import (
    BIND_CALLBACK,
    FUNCTION_CALLBACK,
    INIT_CALLBACK,
    REPLACEMENT_CALLBACK,
    VECTOR_SIZE,
    lib,
)

SCAN_FUNCTION = b"analyst_pandas_scan"


class FrameColumn:
    """One DataFrame column ready for DuckDB: a type id, and either a contiguous numpy array
    (fixed width) or Python objects (strings, bytes), with a NULL mask (True = NULL)."""

    __slots__ = ("name", "type_id", "array", "objects", "nulls")

    def __init__(self, name, type_id, array=None, objects=None, nulls=None):
        self.name, self.type_id, self.array, self.objects = name, type_id, array, objects
        self.nulls = nulls if nulls is not None and nulls.any() else None


def frame_columns(frame):
    """The columns of a DataFrame (or Series) with the DuckDB type each maps to."""
    import pandas as pd

    if isinstance(frame, pd.Series):
        frame = frame.to_frame()
    out, seen = [], set()
    for position, name in enumerate(frame.columns):
        label = str(name)
        while label.lower() in seen:  # DuckDB's names are case-insensitive
            label += "_%d" % position
        seen.add(label.lower())
        out.append(series_column(label, frame.iloc[:, position]))
    return out


def series_column(name, series):
    import pandas as pd

    dtype = series.dtype
    nulls = series.isna().to_numpy()
    if isinstance(dtype, pd.CategoricalDtype) or isinstance(dtype, pd.StringDtype):
        series = series.astype(object)
        dtype = series.dtype
    if isinstance(dtype, pd.DatetimeTZDtype):
        micros = series.dt.tz_convert("UTC").dt.tz_localize(None).to_numpy().astype("datetime64[us]").view("<i8")
        return FrameColumn(name, t.TIMESTAMP_TZ, np.ascontiguousarray(micros), nulls=nulls)
    if isinstance(dtype, pd.api.extensions.ExtensionDtype) and hasattr(dtype, "numpy_dtype"):
        # Nullable Int64, Float64, boolean: their values with NULLs filled, and the mask.
        numpy_dtype = dtype.numpy_dtype
        filler = False if numpy_dtype.kind == "b" else 0
        series = pd.Series(series.fillna(filler).to_numpy(dtype=numpy_dtype))
        dtype = series.dtype
    kind = dtype.kind
    values = series.to_numpy()
    if kind == "b":
        return FrameColumn(name, t.BOOLEAN, np.ascontiguousarray(values, dtype=bool), nulls=nulls)
    if kind in "iu":
        ids = {"i": {1: t.TINYINT, 2: t.SMALLINT, 4: t.INTEGER, 8: t.BIGINT}, "u": {1: t.UTINYINT, 2: t.USMALLINT, 4: t.UINTEGER, 8: t.UBIGINT}}
        return FrameColumn(name, ids[kind][dtype.itemsize], np.ascontiguousarray(values), nulls=nulls)
    if kind == "f":
        if dtype.itemsize == 4:
            return FrameColumn(name, t.FLOAT, np.ascontiguousarray(values), nulls=nulls)
        return FrameColumn(name, t.DOUBLE, np.ascontiguousarray(values, dtype=np.float64), nulls=nulls)
    if kind == "M":
        micros = values.astype("datetime64[us]").view("<i8")
        return FrameColumn(name, t.TIMESTAMP, np.ascontiguousarray(micros), nulls=nulls)
    if kind == "m":
        micros = values.astype("timedelta64[us]").view("<i8")
        packed = np.zeros(len(values), dtype=[("months", "<i4"), ("days", "<i4"), ("micros", "<i8")])
        packed["micros"] = micros
        return FrameColumn(name, t.INTERVAL, packed, nulls=nulls)
    return object_column(name, values, nulls)


def object_column(name, values, nulls):
    """An object column takes the type all its non-NULL values share, else VARCHAR."""
    present = [v for v, null in zip(values.tolist(), nulls.tolist()) if not null]
    kinds = {type(v) for v in present}
    if kinds and kinds <= {bool, np.bool_}:
        return FrameColumn(name, t.BOOLEAN, np.array([bool(v) if not n else False for v, n in zip(values, nulls)]), nulls=nulls)
    if kinds and all(issubclass(k, (int, np.integer)) and not issubclass(k, (bool, np.bool_)) for k in kinds):
        if all(-(1 << 63) <= v < (1 << 63) for v in present):
            filled = np.array([0 if n else int(v) for v, n in zip(values, nulls)], dtype=np.int64)
            return FrameColumn(name, t.BIGINT, filled, nulls=nulls)
    if kinds and all(issubclass(k, (int, float, np.integer, np.floating, decimal.Decimal)) for k in kinds):
        filled = np.array([0.0 if n else float(v) for v, n in zip(values, nulls)], dtype=np.float64)
        return FrameColumn(name, t.DOUBLE, filled, nulls=nulls)
    if kinds and all(issubclass(k, datetime.datetime) for k in kinds):
        filled = np.array([0 if n else v for v, n in zip(values, nulls)], dtype="datetime64[us]")
        return FrameColumn(name, t.TIMESTAMP, filled.view("<i8"), nulls=nulls)
    if kinds and all(issubclass(k, datetime.date) for k in kinds):
        filled = np.array([0 if n else v for v, n in zip(values, nulls)], dtype="datetime64[D]")
        return FrameColumn(name, t.DATE, filled.astype("<i4"), nulls=nulls)
    if kinds and kinds <= {bytes, bytearray, memoryview}:
        return FrameColumn(name, t.BLOB, objects=[None if n else bytes(v) for v, n in zip(values, nulls)], nulls=nulls)
    texts = [None if n else (v if isinstance(v, str) else str(v)) for v, n in zip(values.tolist(), nulls.tolist())]
    return FrameColumn(name, t.VARCHAR, objects=texts, nulls=nulls)


class FrameScans:
    """The DataFrames queries of one database are reading, by id, and the C callbacks that
    read them (kept referenced here: DuckDB holds only their addresses)."""

    def __init__(self):
        self.entries = {}  # id -> {"columns": [...], "rows": n, "offsets": {state id: offset}}
        self.last_id = 0
        # Frames a relation found when it was made, by name: its later runs read the same ones
        # wherever they are called from (set by the connection around each statement).
        self.pinned = {}
        self.found = {}
        self.callbacks = (
            BIND_CALLBACK(self._bind),
            INIT_CALLBACK(self._init),
            FUNCTION_CALLBACK(self._scan),
            REPLACEMENT_CALLBACK(self._replace),
        )

    def add(self, frame):
        columns = frame_columns(frame)
        rows = len(frame)
        self.last_id += 1
        scan_id = self.last_id
        self.entries[scan_id] = {"columns": columns, "rows": rows, "offsets": {}}
        return scan_id

    def install(self, database, connection):
        """Registers the scan function (once per database) and the replacement scan."""
        function = lib.create_table_function()
        holder = ctypes.c_void_p(function)
        try:
            lib.table_function_set_name(function, SCAN_FUNCTION)
            self._with_type(t.BIGINT, lambda handle: lib.table_function_add_parameter(function, handle))
            lib.table_function_set_bind(function, self.callbacks[0])
            lib.table_function_set_init(function, self.callbacks[1])
            lib.table_function_set_function(function, self.callbacks[2])
            lib.register_table_function(connection, function)
        finally:
            lib.destroy_table_function(ctypes.byref(holder))
        lib.add_replacement_scan(database, self.callbacks[3], None, None)

    @staticmethod
    def _with_type(type_id, use):
        handle = ctypes.c_void_p(lib.create_logical_type(type_id))
        try:
            use(handle)
        finally:
            lib.destroy_logical_type(ctypes.byref(handle))

    # Callbacks: a Python exception must not cross into C, so each reports through DuckDB.

    def _replace(self, info, table_name, _data):
        try:
            name = table_name.decode("utf-8", "replace")
            frame = self.pinned.get(name)
            if frame is None:
                frame = find_frame(name)
            if frame is None:
                return
            self.found[name] = frame
            scan_id = self.add(frame)
            lib.replacement_scan_set_function_name(info, SCAN_FUNCTION)
            value = ctypes.c_void_p(lib.create_int64(scan_id))
            lib.replacement_scan_add_parameter(info, value)
            lib.destroy_value(ctypes.byref(value))
        except Exception:
            pass  # not a frame we can read: DuckDB reports the missing table itself

    def _bind(self, info):
        try:
            value = ctypes.c_void_p(lib.bind_get_parameter(info, 0))
            scan_id = lib.get_int64(value)
            lib.destroy_value(ctypes.byref(value))
            entry = self.entries[scan_id]
            for column in entry["columns"]:
                self._with_type(
                    column.type_id,
                    lambda handle: lib.bind_add_result_column(info, column.name.encode("utf-8"), handle),
                )
            lib.bind_set_cardinality(info, entry["rows"], True)
            lib.bind_set_bind_data(info, scan_id, None)
        except KeyError:
            lib.bind_set_error(info, b"analyst_pandas_scan: no such DataFrame (it is read through its variable name)")
        except Exception as error:
            lib.bind_set_error(info, ("reading a DataFrame: %s" % error).encode("utf-8", "replace"))

    def _init(self, info):
        try:
            entry = self.entries[lib.init_get_bind_data(info)]
            state = len(entry["offsets"]) + 1
            entry["offsets"][state] = 0
            lib.init_set_init_data(info, state, None)
        except Exception as error:
            lib.init_set_error(info, ("reading a DataFrame: %s" % error).encode("utf-8", "replace"))

    def _scan(self, info, output):
        try:
            entry = self.entries[lib.function_get_bind_data(info)]
            state = lib.function_get_init_data(info)
            start = entry["offsets"][state]
            count = min(VECTOR_SIZE, entry["rows"] - start)
            for index, column in enumerate(entry["columns"]):
                write_column(lib.data_chunk_get_vector(output, index), column, start, count)
            entry["offsets"][state] = start + count
            lib.data_chunk_set_size(output, count)
        except Exception as error:
            lib.function_set_error(info, ("reading a DataFrame: %s" % error).encode("utf-8", "replace"))

    def release(self, first_id):
        """Forgets the frames added since `first_id` (their statement has finished)."""
        for scan_id in [i for i in self.entries if i >= first_id]:
            del self.entries[scan_id]

    def mark(self):
        """The id the next frame added will get (for `release`)."""
        return self.last_id + 1


def write_column(vector, column, start, count):
    if column.array is not None:
        piece = column.array[start : start + count]
        ctypes.memmove(lib.vector_get_data(vector), piece.ctypes.data, piece.nbytes)
    else:
        for i, value in enumerate(column.objects[start : start + count]):
            if value is not None:
                data = value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")
                lib.vector_assign_string_element_len(vector, i, data, len(data))
    if column.nulls is not None:
        nulls = column.nulls[start : start + count]
        if nulls.any():
            lib.vector_ensure_validity_writable(vector)
            bits = np.packbits(~nulls, bitorder="little")
            words = np.zeros(((count + 63) // 64) * 8, dtype=np.uint8)
            words[: len(bits)] = bits
            ctypes.memmove(lib.vector_get_validity(vector), words.ctypes.data, len(words))


def find_frame(name):
    """A pandas DataFrame (or Series) named `name` in the code that called into duckdb: its
    local variables first, then its module's globals, as DuckDB's own package looks."""
    pandas = sys.modules.get("pandas")
    if pandas is None:
        return None
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == "duckdb":
        frame = frame.f_back
    if frame is None:
        return None
    for scope in (frame.f_locals, frame.f_globals):
        value = scope.get(name)
        if isinstance(value, (pandas.DataFrame, pandas.Series)):
            return value
    return None
