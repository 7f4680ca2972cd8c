"""DuckDBPyConnection: a database and one connection to it, with DuckDB's Python methods."""

import ctypes
import datetime
import decimal

from . import _sql
from ._capi import Result, lib, take_string
from ._config import default_config
from ._errors import ConnectionException, InvalidInputException, error_from_message, error_from_type
from ._frames import FrameScans
from ._result import QueryResult

STATEMENT_SELECT = 1  # duckdb_statement_type


class DuckDBPyConnection:
    def __init__(self, database=":memory:", read_only=False, config=None):
        settings = default_config()
        settings.update({str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in (config or {}).items()})
        if read_only:
            settings["access_mode"] = "READ_ONLY"
        self._db, self._con = ctypes.c_void_p(), ctypes.c_void_p()
        self._open_database(str(database), settings)
        if lib.connect(self._db, ctypes.byref(self._con)) != 0:
            lib.close(ctypes.byref(self._db))
            raise ConnectionException("duckdb: could not connect to %s" % database)
        self._scans = FrameScans()
        self._scans.install(self._db, self._con)
        self._result = None

    def _open_database(self, path, settings):
        config = ctypes.c_void_p()
        lib.create_config(ctypes.byref(config))
        try:
            for name, value in settings.items():
                if lib.set_config(config, name.encode(), value.encode()) != 0:
                    raise InvalidInputException("Invalid Input Error: unknown or invalid setting %s = %r" % (name, value))
            error = ctypes.c_void_p()
            path_bytes = None if path in ("", ":memory:") else path.encode("utf-8")
            if lib.open_ext(path_bytes, ctypes.byref(self._db), config, ctypes.byref(error)) != 0:
                raise error_from_message(take_string(error.value) or "could not open %s" % path)
        finally:
            lib.destroy_config(ctypes.byref(config))

    # -- running statements ------------------------------------------------------------

    def _check_open(self):
        if not self._con:
            raise ConnectionException("Connection Error: Connection already closed!")

    def _prepare_all(self, query):
        """Prepared statements of every statement in `query` (the caller destroys them)."""
        self._check_open()
        if not isinstance(query, str):
            raise InvalidInputException("Invalid Input Error: a query must be a string, not %s" % type(query).__name__)
        extracted = ctypes.c_void_p()
        count = lib.extract_statements(self._con, query.encode("utf-8"), ctypes.byref(extracted))
        try:
            if count == 0:
                message = lib.extract_statements_error(extracted)
                raise error_from_message((message or b"Parser Error: no statement to run").decode("utf-8", "replace"))
            statements = []
            for index in range(count):
                statement = ctypes.c_void_p()
                state = lib.prepare_extracted_statement(self._con, extracted, index, ctypes.byref(statement))
                if state != 0:
                    message = lib.prepare_error(statement).decode("utf-8", "replace")
                    lib.destroy_prepare(ctypes.byref(statement))
                    for earlier in statements:
                        lib.destroy_prepare(ctypes.byref(earlier))
                    raise error_from_message(message)
                statements.append(statement)
                if index < count - 1:
                    # later statements may depend on earlier ones (create, then insert)
                    self._execute(statement, None).close()
                    lib.destroy_prepare(ctypes.byref(statement))
                    statements.pop()
            return statements
        finally:
            lib.destroy_extracted(ctypes.byref(extracted))

    def _execute(self, statement, parameters):
        if parameters is not None:
            bind(statement, parameters)
        result = Result()
        if lib.execute_prepared_streaming(statement, ctypes.byref(result)) != 0:
            message = lib.result_error(ctypes.byref(result)).decode("utf-8", "replace")
            error_type = lib.result_error_type(ctypes.byref(result))
            lib.destroy_result(ctypes.byref(result))
            raise error_from_type(error_type, message)
        return QueryResult(result)

    def _run(self, query, parameters=None, pinned=None):
        """Runs `query` (every statement of it) and returns the last one's result. Returns
        the result and the statement type of the last statement."""
        if self._result is not None:
            self._result.close()
            self._result = None
        mark = self._scans.mark()
        self._scans.pinned, self._scans.found = dict(pinned or {}), {}
        try:
            statements = self._prepare_all(query)
            statement = statements[0]
            try:
                kind = lib.prepared_statement_type(statement)
                if parameters is not None and not isinstance(parameters, (list, tuple, dict)):
                    raise InvalidInputException("Invalid Input Error: parameters must be a list, tuple or dict")
                expected = lib.nparams(statement)
                given = len(parameters) if parameters is not None else 0
                if expected != given:
                    raise InvalidInputException(
                        "Invalid Input Error: Prepared statement needs %d parameters, %d given" % (expected, given)
                    )
                result = self._execute(statement, parameters if expected else None)
            finally:
                lib.destroy_prepare(ctypes.byref(statement))
        except BaseException:
            self._scans.release(mark)
            raise
        result.on_close = lambda: self._scans.release(mark)
        result.frames = dict(self._scans.found)
        return result, kind

    def _statement_type(self, query):
        """The type of a single statement, and the frames it reads (None when several)."""
        mark = self._scans.mark()
        self._scans.pinned, self._scans.found = {}, {}
        self._check_open()
        extracted = ctypes.c_void_p()
        try:
            count = lib.extract_statements(self._con, query.encode("utf-8"), ctypes.byref(extracted))
            if count != 1:
                return None, {}
            statement = ctypes.c_void_p()
            if lib.prepare_extracted_statement(self._con, extracted, 0, ctypes.byref(statement)) != 0:
                message = lib.prepare_error(statement).decode("utf-8", "replace")
                lib.destroy_prepare(ctypes.byref(statement))
                raise error_from_message(message)
            kind = lib.prepared_statement_type(statement)
            lib.destroy_prepare(ctypes.byref(statement))
            return kind, dict(self._scans.found)
        finally:
            lib.destroy_extracted(ctypes.byref(extracted))
            self._scans.release(mark)

    # -- DuckDB's Python API -----------------------------------------------------------

    def execute(self, query, parameters=None):
        result, _ = self._run(query, parameters)
        self._result = result
        return self

    def executemany(self, query, parameters=()):
        for row in parameters:
            self.execute(query, row)
        return self

    def sql(self, query, params=None, alias=""):
        from ._relation import DuckDBPyRelation

        if params is None:
            kind, frames = self._statement_type(query)
            if kind == STATEMENT_SELECT:
                return DuckDBPyRelation(self, query, frames, alias)
        result, kind = self._run(query, params)
        if not result.columns or kind != STATEMENT_SELECT and kind not in (4, 17, 19):  # explain, pragma, call
            result.close()
            return None
        return DuckDBPyRelation.materialized(self, result)

    query = sql

    def _current(self):
        if self._result is None:
            raise InvalidInputException("Invalid Input Error: No open result set")
        return self._result

    def fetchall(self):
        return self._current().fetchall()

    def fetchone(self):
        return self._current().fetchone()

    def fetchmany(self, size=1):
        return self._current().fetchmany(size)

    def fetchnumpy(self):
        return self._current().fetchnumpy()

    def df(self, **_options):
        return self._current().df()

    fetchdf = fetch_df = df

    @property
    def description(self):
        return self._result.description if self._result is not None else None

    def cursor(self):
        return self

    def read_csv(self, path_or_buffer, **options):
        return self._reader("read_csv", path_or_buffer, options)

    from_csv_auto = read_csv

    def read_parquet(self, file_glob, **options):
        return self._reader("read_parquet", file_glob, options)

    from_parquet = read_parquet

    def read_json(self, path_or_buffer, **options):
        return self._reader("read_json", path_or_buffer, options)

    def _reader(self, function, path, options):
        from ._relation import DuckDBPyRelation

        if not isinstance(path, (str, list, tuple)) and not hasattr(path, "__fspath__"):
            raise InvalidInputException("Invalid Input Error: %s needs a file path (a string)" % function)
        path = [str(p) for p in path] if isinstance(path, (list, tuple)) else str(path)
        return DuckDBPyRelation(self, _sql.table_function(function, path, options), {}, "")

    def from_df(self, df):
        from ._relation import DuckDBPyRelation

        return DuckDBPyRelation(self, "SELECT * FROM df", {"df": df}, "")

    def table(self, name):
        from ._relation import DuckDBPyRelation

        return DuckDBPyRelation(self, "SELECT * FROM %s" % _sql.identifier(name), {}, name)

    view = table

    def register(self, view_name, python_object):
        """A DataFrame as a temporary view (kept by this connection until unregister)."""
        scan_id = self._scans.add(python_object)
        self.execute(
            "CREATE OR REPLACE TEMPORARY VIEW %s AS SELECT * FROM analyst_pandas_scan(%d)"
            % (_sql.identifier(view_name), scan_id)
        )
        self._result.close()
        self._result = None
        return self

    def unregister(self, view_name):
        self.execute("DROP VIEW IF EXISTS %s" % _sql.identifier(view_name))
        return self

    def close(self):
        if self._result is not None:
            self._result.close()
            self._result = None
        if self._con:
            lib.disconnect(ctypes.byref(self._con))
            self._con = ctypes.c_void_p()
        if self._db:
            lib.close(ctypes.byref(self._db))
            self._db = ctypes.c_void_p()

    def interrupt(self):
        if self._con:
            lib.interrupt(self._con)

    def __enter__(self):
        return self

    def __exit__(self, *_exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def bind(statement, parameters):
    if isinstance(parameters, dict):
        raise InvalidInputException("Invalid Input Error: named parameters ($name) are not supported here; use ? with a list")
    for index, value in enumerate(parameters, start=1):
        handle = ctypes.c_void_p(to_value(value))
        try:
            if lib.bind_value(statement, index, handle) != 0:
                raise InvalidInputException("Invalid Input Error: could not bind parameter %d (%r)" % (index, value))
        finally:
            lib.destroy_value(ctypes.byref(handle))


def to_value(value):
    """A duckdb_value for a Python parameter (the caller destroys it)."""
    if value is None:
        return lib.create_null_value()
    if isinstance(value, bool):
        return lib.create_bool(value)
    if isinstance(value, int):
        if not -(1 << 63) <= value < (1 << 63):
            return lib.create_varchar_length(str(value).encode(), len(str(value)))
        return lib.create_int64(value)
    if isinstance(value, (float, decimal.Decimal)):
        return lib.create_double(float(value))
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        delta = value - datetime.datetime(1970, 1, 1)
        return lib.create_timestamp((delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds)
    if isinstance(value, datetime.date):
        return lib.create_date((value - datetime.date(1970, 1, 1)).days)
    if isinstance(value, (bytes, bytearray)):
        return lib.create_blob(bytes(value), len(value))
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return to_value(value.item())
    text = str(value).encode("utf-8")
    return lib.create_varchar_length(text, len(text))
