"""DuckDB logical types as small Python descriptions (TypeInfo), read once per result."""

from ._capi import lib, take_string
from ctypes import byref, c_void_p

# duckdb_type (duckdb.h)
BOOLEAN, TINYINT, SMALLINT, INTEGER, BIGINT = 1, 2, 3, 4, 5
UTINYINT, USMALLINT, UINTEGER, UBIGINT = 6, 7, 8, 9
FLOAT, DOUBLE, TIMESTAMP, DATE, TIME, INTERVAL, HUGEINT = 10, 11, 12, 13, 14, 15, 16
VARCHAR, BLOB, DECIMAL, TIMESTAMP_S, TIMESTAMP_MS, TIMESTAMP_NS = 17, 18, 19, 20, 21, 22
ENUM, LIST, STRUCT, MAP, UUID, UNION, BIT, TIME_TZ, TIMESTAMP_TZ = 23, 24, 25, 26, 27, 28, 29, 30, 31
UHUGEINT, ARRAY, SQLNULL = 32, 33, 36

# Fixed-width types: numpy dtype of the vector's data.
NUMPY_DTYPES = {
    BOOLEAN: "bool",
    TINYINT: "<i1",
    SMALLINT: "<i2",
    INTEGER: "<i4",
    BIGINT: "<i8",
    UTINYINT: "<u1",
    USMALLINT: "<u2",
    UINTEGER: "<u4",
    UBIGINT: "<u8",
    FLOAT: "<f4",
    DOUBLE: "<f8",
    TIMESTAMP: "<i8",
    TIMESTAMP_S: "<i8",
    TIMESTAMP_MS: "<i8",
    TIMESTAMP_NS: "<i8",
    TIMESTAMP_TZ: "<i8",
    DATE: "<i4",
    TIME: "<i8",
}

NAMES = {
    BOOLEAN: "BOOLEAN",
    TINYINT: "TINYINT",
    SMALLINT: "SMALLINT",
    INTEGER: "INTEGER",
    BIGINT: "BIGINT",
    UTINYINT: "UTINYINT",
    USMALLINT: "USMALLINT",
    UINTEGER: "UINTEGER",
    UBIGINT: "UBIGINT",
    FLOAT: "FLOAT",
    DOUBLE: "DOUBLE",
    TIMESTAMP: "TIMESTAMP",
    DATE: "DATE",
    TIME: "TIME",
    INTERVAL: "INTERVAL",
    HUGEINT: "HUGEINT",
    UHUGEINT: "UHUGEINT",
    VARCHAR: "VARCHAR",
    BLOB: "BLOB",
    TIMESTAMP_S: "TIMESTAMP_S",
    TIMESTAMP_MS: "TIMESTAMP_MS",
    TIMESTAMP_NS: "TIMESTAMP_NS",
    ENUM: "ENUM",
    UUID: "UUID",
    UNION: "UNION",
    BIT: "BIT",
    TIME_TZ: "TIME WITH TIME ZONE",
    TIMESTAMP_TZ: "TIMESTAMP WITH TIME ZONE",
    SQLNULL: '"NULL"',
}

# Internal storage of DECIMAL and ENUM values.
INTERNAL_DTYPES = {SMALLINT: "<i2", INTEGER: "<i4", BIGINT: "<i8", UTINYINT: "<u1", USMALLINT: "<u2", UINTEGER: "<u4"}


class TypeInfo:
    """One column's type: its id, and what decoding needs (scale, dictionary, children)."""

    __slots__ = ("id", "width", "scale", "internal", "dictionary", "children", "names", "size")

    def __init__(self, handle):
        self.id = lib.get_type_id(handle)
        self.children, self.names, self.dictionary = [], [], None
        self.width = self.scale = self.size = 0
        self.internal = None
        if self.id == DECIMAL:
            self.width = lib.decimal_width(handle)
            self.scale = lib.decimal_scale(handle)
            self.internal = lib.decimal_internal_type(handle)
        elif self.id == ENUM:
            self.internal = lib.enum_internal_type(handle)
            count = lib.enum_dictionary_size(handle)
            self.dictionary = [take_string(lib.enum_dictionary_value(handle, i)) for i in range(count)]
        elif self.id in (LIST, MAP):
            self.children = [owned(lib.list_type_child_type(handle))]
        elif self.id == ARRAY:
            self.size = lib.array_type_array_size(handle)
            self.children = [owned(lib.array_type_child_type(handle))]
        elif self.id in (STRUCT, UNION):
            count = lib.struct_type_child_count(handle)
            self.names = [take_string(lib.struct_type_child_name(handle, i)) for i in range(count)]
            self.children = [owned(lib.struct_type_child_type(handle, i)) for i in range(count)]

    def __str__(self):
        if self.id == DECIMAL:
            return "DECIMAL(%d,%d)" % (self.width, self.scale)
        if self.id == LIST:
            return "%s[]" % self.children[0]
        if self.id == ARRAY:
            return "%s[%d]" % (self.children[0], self.size)
        if self.id == MAP:
            child = self.children[0]
            return "MAP(%s, %s)" % tuple(str(c) for c in child.children[:2])
        if self.id == STRUCT:
            return "STRUCT(%s)" % ", ".join('"%s" %s' % (n, c) for n, c in zip(self.names, self.children))
        if self.id == ENUM:
            return "ENUM(%s)" % ", ".join("'%s'" % v for v in self.dictionary[:8])
        return NAMES.get(self.id, "UNKNOWN(%d)" % self.id)


def owned(handle):
    """TypeInfo of a logical type handle we own, which is then destroyed."""
    holder = c_void_p(handle)
    try:
        return TypeInfo(handle)
    finally:
        lib.destroy_logical_type(byref(holder))


class DuckDBPyType(str):
    """A column type as DuckDB's package shows it (`rel.types`): compares equal to its name."""

    @property
    def id(self):
        return self.split("(")[0].lower()
