"""ctypes declarations of the part of DuckDB's C API (duckdb.h) this package uses.

The library is the maintainers' own build (libduckdb.so), copied into the sandbox image and
checked against a pinned sha256 when the image is built. ctypes releases the GIL during
every call, and re-takes it in the callbacks DuckDB makes into Python (DataFrame scans).
"""

import ctypes
import os
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_bool,
    c_char_p,
    c_double,
    c_int,
    c_int32,
    c_int64,
    c_uint8,
    c_uint32,
    c_uint64,
    c_void_p,
)

idx_t = c_uint64

# Where the image puts the library; ANALYST_DUCKDB_LIBRARY names another copy (tests on a host).
LIBRARY_PATHS = (
    os.environ.get("ANALYST_DUCKDB_LIBRARY", ""),
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "libduckdb.so"),
    "/usr/lib/analyst/libduckdb.so",
)


class Result(Structure):
    """duckdb_result: only internal_data matters; the deprecated fields fix its size."""

    _fields_ = [
        ("deprecated_column_count", idx_t),
        ("deprecated_row_count", idx_t),
        ("deprecated_rows_changed", idx_t),
        ("deprecated_columns", c_void_p),
        ("deprecated_error_message", c_void_p),
        ("internal_data", c_void_p),
    ]


# Callback signatures of table functions and replacement scans.
BIND_CALLBACK = CFUNCTYPE(None, c_void_p)
INIT_CALLBACK = CFUNCTYPE(None, c_void_p)
FUNCTION_CALLBACK = CFUNCTYPE(None, c_void_p, c_void_p)
REPLACEMENT_CALLBACK = CFUNCTYPE(None, c_void_p, c_char_p, c_void_p)
DELETE_CALLBACK = CFUNCTYPE(None, c_void_p)

P = POINTER
RP = P(Result)
VP = P(c_void_p)

# name: (restype, argtypes)
SIGNATURES = {
    "duckdb_library_version": (c_char_p, []),
    "duckdb_free": (None, [c_void_p]),
    "duckdb_vector_size": (idx_t, []),
    "duckdb_create_config": (c_int, [VP]),
    "duckdb_set_config": (c_int, [c_void_p, c_char_p, c_char_p]),
    "duckdb_destroy_config": (None, [VP]),
    "duckdb_open_ext": (c_int, [c_char_p, VP, c_void_p, VP]),
    "duckdb_close": (None, [VP]),
    "duckdb_connect": (c_int, [c_void_p, VP]),
    "duckdb_disconnect": (None, [VP]),
    "duckdb_interrupt": (None, [c_void_p]),
    "duckdb_query": (c_int, [c_void_p, c_char_p, RP]),
    "duckdb_destroy_result": (None, [RP]),
    "duckdb_result_error": (c_char_p, [RP]),
    "duckdb_result_error_type": (c_int, [RP]),
    "duckdb_column_count": (idx_t, [RP]),
    "duckdb_column_name": (c_char_p, [RP, idx_t]),
    "duckdb_column_logical_type": (c_void_p, [RP, idx_t]),
    "duckdb_fetch_chunk": (c_void_p, [Result]),
    "duckdb_extract_statements": (idx_t, [c_void_p, c_char_p, VP]),
    "duckdb_extract_statements_error": (c_char_p, [c_void_p]),
    "duckdb_prepare_extracted_statement": (c_int, [c_void_p, c_void_p, idx_t, VP]),
    "duckdb_destroy_extracted": (None, [VP]),
    "duckdb_prepare_error": (c_char_p, [c_void_p]),
    "duckdb_prepared_statement_type": (c_int, [c_void_p]),
    "duckdb_nparams": (idx_t, [c_void_p]),
    "duckdb_bind_value": (c_int, [c_void_p, idx_t, c_void_p]),
    "duckdb_execute_prepared_streaming": (c_int, [c_void_p, RP]),
    "duckdb_destroy_prepare": (None, [VP]),
    "duckdb_create_varchar_length": (c_void_p, [c_char_p, idx_t]),
    "duckdb_create_blob": (c_void_p, [c_char_p, idx_t]),
    "duckdb_create_int64": (c_void_p, [c_int64]),
    "duckdb_create_double": (c_void_p, [c_double]),
    "duckdb_create_bool": (c_void_p, [c_bool]),
    "duckdb_create_date": (c_void_p, [c_int32]),
    "duckdb_create_timestamp": (c_void_p, [c_int64]),
    "duckdb_create_null_value": (c_void_p, []),
    "duckdb_get_int64": (c_int64, [c_void_p]),
    "duckdb_destroy_value": (None, [VP]),
    "duckdb_data_chunk_get_size": (idx_t, [c_void_p]),
    "duckdb_data_chunk_get_vector": (c_void_p, [c_void_p, idx_t]),
    "duckdb_data_chunk_set_size": (None, [c_void_p, idx_t]),
    "duckdb_destroy_data_chunk": (None, [VP]),
    "duckdb_vector_get_data": (c_void_p, [c_void_p]),
    "duckdb_vector_get_validity": (c_void_p, [c_void_p]),
    "duckdb_vector_ensure_validity_writable": (None, [c_void_p]),
    "duckdb_vector_assign_string_element_len": (None, [c_void_p, idx_t, c_char_p, idx_t]),
    "duckdb_list_vector_get_child": (c_void_p, [c_void_p]),
    "duckdb_list_vector_get_size": (idx_t, [c_void_p]),
    "duckdb_struct_vector_get_child": (c_void_p, [c_void_p, idx_t]),
    "duckdb_array_vector_get_child": (c_void_p, [c_void_p]),
    "duckdb_create_logical_type": (c_void_p, [c_int]),
    "duckdb_get_type_id": (c_int, [c_void_p]),
    "duckdb_destroy_logical_type": (None, [VP]),
    "duckdb_decimal_width": (c_uint8, [c_void_p]),
    "duckdb_decimal_scale": (c_uint8, [c_void_p]),
    "duckdb_decimal_internal_type": (c_int, [c_void_p]),
    "duckdb_enum_internal_type": (c_int, [c_void_p]),
    "duckdb_enum_dictionary_size": (c_uint32, [c_void_p]),
    "duckdb_enum_dictionary_value": (c_void_p, [c_void_p, idx_t]),
    "duckdb_list_type_child_type": (c_void_p, [c_void_p]),
    "duckdb_array_type_child_type": (c_void_p, [c_void_p]),
    "duckdb_array_type_array_size": (idx_t, [c_void_p]),
    "duckdb_struct_type_child_count": (idx_t, [c_void_p]),
    "duckdb_struct_type_child_name": (c_void_p, [c_void_p, idx_t]),
    "duckdb_struct_type_child_type": (c_void_p, [c_void_p, idx_t]),
    "duckdb_create_table_function": (c_void_p, []),
    "duckdb_destroy_table_function": (None, [VP]),
    "duckdb_table_function_set_name": (None, [c_void_p, c_char_p]),
    "duckdb_table_function_add_parameter": (None, [c_void_p, c_void_p]),
    "duckdb_table_function_set_bind": (None, [c_void_p, BIND_CALLBACK]),
    "duckdb_table_function_set_init": (None, [c_void_p, INIT_CALLBACK]),
    "duckdb_table_function_set_function": (None, [c_void_p, FUNCTION_CALLBACK]),
    "duckdb_register_table_function": (c_int, [c_void_p, c_void_p]),
    "duckdb_bind_get_parameter": (c_void_p, [c_void_p, idx_t]),
    "duckdb_bind_add_result_column": (None, [c_void_p, c_char_p, c_void_p]),
    "duckdb_bind_set_cardinality": (None, [c_void_p, idx_t, c_bool]),
    "duckdb_bind_set_bind_data": (None, [c_void_p, c_void_p, c_void_p]),
    "duckdb_bind_set_error": (None, [c_void_p, c_char_p]),
    "duckdb_init_get_bind_data": (c_void_p, [c_void_p]),
    "duckdb_init_set_init_data": (None, [c_void_p, c_void_p, c_void_p]),
    "duckdb_init_set_error": (None, [c_void_p, c_char_p]),
    "duckdb_function_get_bind_data": (c_void_p, [c_void_p]),
    "duckdb_function_get_init_data": (c_void_p, [c_void_p]),
    "duckdb_function_set_error": (None, [c_void_p, c_char_p]),
    "duckdb_add_replacement_scan": (None, [c_void_p, REPLACEMENT_CALLBACK, c_void_p, c_void_p]),
    "duckdb_replacement_scan_set_function_name": (None, [c_void_p, c_char_p]),
    "duckdb_replacement_scan_add_parameter": (None, [c_void_p, c_void_p]),
}


class _Library:
    """The loaded library with every function of SIGNATURES typed, as attributes without
    the `duckdb_` prefix (`lib.query`, `lib.fetch_chunk`)."""

    def __init__(self):
        errors = []
        for path in LIBRARY_PATHS:
            if not path or not os.path.exists(path):
                continue
            try:
                self.dll = ctypes.CDLL(path)
                self.path = path
                break
            except OSError as error:
                errors.append("%s: %s" % (path, error))
        else:
            raise ImportError(
                "duckdb: libduckdb.so was not found (looked in %s)%s"
                % (", ".join(p for p in LIBRARY_PATHS if p), "; " + "; ".join(errors) if errors else "")
            )
        for name, (restype, argtypes) in SIGNATURES.items():
            function = getattr(self.dll, name)
            function.restype = restype
            function.argtypes = argtypes
            setattr(self, name[len("duckdb_"):], function)


lib = _Library()
VECTOR_SIZE = lib.vector_size()


def take_string(pointer):
    """A C string the library allocated for us: copied, then freed with duckdb_free."""
    if not pointer:
        return ""
    try:
        return ctypes.string_at(pointer).decode("utf-8", "replace")
    finally:
        lib.free(pointer)
