"""Reading DuckDB vectors (one column of one data chunk) into numpy arrays or Python values.

Fixed-width columns are read with one copy through numpy; strings, nested and wide types
value by value. A NULL is None in Python values and a False in the `valid` mask, which the
DataFrame conversion turns into NaN, NaT or None.
"""

import ctypes
import datetime
import decimal
import uuid

import numpy as np

from . import _types as t
from ._capi import lib
from ._errors import NotImplementedException

EPOCH = datetime.datetime(1970, 1, 1)
UTC = datetime.timezone.utc
# Units of the integer timestamp types, for numpy datetime64.
TIMESTAMP_UNITS = {t.TIMESTAMP: "us", t.TIMESTAMP_TZ: "us", t.TIMESTAMP_S: "s", t.TIMESTAMP_MS: "ms", t.TIMESTAMP_NS: "ns"}


def validity(vector, count):
    """A bool array, True where the row is not NULL (DuckDB gives no mask when none is)."""
    mask = lib.vector_get_validity(vector)
    if not mask or count == 0:
        return np.ones(count, dtype=bool)
    words = (count + 63) // 64
    bits = np.frombuffer(ctypes.string_at(mask, words * 8), dtype=np.uint8)
    return np.unpackbits(bits, bitorder="little")[:count].astype(bool)


def fixed(vector, dtype, count):
    """The vector's data as a numpy array (a copy: the chunk is freed after reading)."""
    itemsize = np.dtype(dtype).itemsize
    data = lib.vector_get_data(vector)
    return np.frombuffer(ctypes.string_at(data, count * itemsize), dtype=dtype).copy()


def strings(vector, count, valid, binary=False):
    """duckdb_string_t values: 16 bytes, up to 12 inlined after the length, else a pointer."""
    raw = ctypes.string_at(lib.vector_get_data(vector), count * 16)
    lengths = np.frombuffer(raw, dtype="<u4")[::4].tolist()
    pointers = np.frombuffer(raw, dtype="<u8")[1::2].tolist()
    out = []
    for i in range(count):
        if not valid[i]:
            out.append(None)
            continue
        length = lengths[i]
        value = raw[i * 16 + 4 : i * 16 + 4 + length] if length <= 12 else ctypes.string_at(pointers[i], length)
        out.append(value if binary else value.decode("utf-8", "replace"))
    return out


def wide_integers(vector, count, signed):
    """HUGEINT / UHUGEINT as Python ints (lower 64 bits first)."""
    raw = fixed(vector, "<u8", count * 2).tolist()
    out = []
    for i in range(count):
        upper = raw[2 * i + 1]
        if signed and upper >= 1 << 63:
            upper -= 1 << 64
        out.append((upper << 64) | raw[2 * i])
    return out


def numeric(vector, info, count):
    """(array, valid) of a column numpy can hold; None for the others."""
    valid = validity(vector, count)
    dtype = t.NUMPY_DTYPES.get(info.id)
    if dtype is not None:
        return fixed(vector, dtype, count), valid
    if info.id == t.DECIMAL:  # as floats, like DuckDB's own DataFrames
        if info.internal in t.INTERNAL_DTYPES:
            return fixed(vector, t.INTERNAL_DTYPES[info.internal], count) / 10.0**info.scale, valid
        halves = fixed(vector, [("lower", "<u8"), ("upper", "<i8")], count)
        wide = halves["upper"].astype(np.float64) * 2.0**64 + halves["lower"].astype(np.float64)
        return wide / 10.0**info.scale, valid
    return None


def python_values(vector, info, count):
    """The column as a list of Python values (None for NULL), as fetchall returns them."""
    kind = info.id
    valid = validity(vector, count)
    if kind in (t.VARCHAR, t.BLOB):
        return strings(vector, count, valid, binary=kind == t.BLOB)
    if kind in t.NUMPY_DTYPES:
        values = fixed(vector, t.NUMPY_DTYPES[kind], count)
        if kind == t.DATE:
            values = [to_date(v) for v in values.tolist()]
        elif kind in TIMESTAMP_UNITS:
            values = to_datetimes(values, TIMESTAMP_UNITS[kind], kind == t.TIMESTAMP_TZ)
        elif kind == t.TIME:
            values = [(EPOCH + datetime.timedelta(microseconds=v)).time() for v in values.tolist()]
        else:
            values = values.tolist()
    elif kind == t.DECIMAL:
        if info.internal in t.INTERNAL_DTYPES:
            ints = fixed(vector, t.INTERNAL_DTYPES[info.internal], count).tolist()
        else:
            ints = wide_integers(vector, count, True)
        values = [decimal.Decimal(v).scaleb(-info.scale) for v in ints]
    elif kind in (t.HUGEINT, t.UHUGEINT):
        values = wide_integers(vector, count, kind == t.HUGEINT)
    elif kind == t.UUID:
        values = [uuid.UUID(int=v ^ (1 << 127)) for v in wide_integers(vector, count, False)]
    elif kind == t.INTERVAL:
        raw = fixed(vector, [("months", "<i4"), ("days", "<i4"), ("micros", "<i8")], count)
        values = [
            datetime.timedelta(days=int(m) * 30 + int(d), microseconds=int(us)) for m, d, us in raw.tolist()
        ]
    elif kind == t.ENUM:
        codes = fixed(vector, t.INTERNAL_DTYPES[info.internal], count).tolist()
        values = [info.dictionary[c] for c in codes]
    elif kind in (t.LIST, t.MAP):
        entries = fixed(vector, "<u8", count * 2).tolist()
        child = python_values(lib.list_vector_get_child(vector), info.children[0], lib.list_vector_get_size(vector))
        values = [child[entries[2 * i] : entries[2 * i] + entries[2 * i + 1]] for i in range(count)]
        if kind == t.MAP:
            values = [{item["key"]: item["value"] for item in v} for v in values]
    elif kind == t.ARRAY:
        size = info.size
        child = python_values(lib.array_vector_get_child(vector), info.children[0], count * size)
        values = [child[i * size : (i + 1) * size] for i in range(count)]
    elif kind == t.STRUCT:
        columns = [
            python_values(lib.struct_vector_get_child(vector, j), c, count) for j, c in enumerate(info.children)
        ]
        values = [{name: column[i] for name, column in zip(info.names, columns)} for i in range(count)]
    elif kind == t.SQLNULL:
        return [None] * count
    else:
        raise NotImplementedException(
            "duckdb: reading a %s column is not supported by this package: CAST it to VARCHAR" % info
        )
    return [v if ok else None for v, ok in zip(values, valid.tolist())]


def to_date(days):
    try:
        return datetime.date(1970, 1, 1) + datetime.timedelta(days=days)
    except OverflowError:  # DuckDB's infinity dates
        return datetime.date.max if days > 0 else datetime.date.min


def to_datetimes(values, unit, aware):
    if unit == "ns":
        out = [EPOCH + datetime.timedelta(microseconds=v // 1000) for v in values.tolist()]
    else:
        scale = {"s": 1_000_000, "ms": 1000, "us": 1}[unit]
        out = []
        for v in values.tolist():
            try:
                out.append(EPOCH + datetime.timedelta(microseconds=v * scale))
            except OverflowError:  # infinity timestamps
                out.append(datetime.datetime.max if v > 0 else datetime.datetime.min)
    return [d.replace(tzinfo=UTC) for d in out] if aware else out
