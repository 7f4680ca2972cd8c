"""DuckDB for Analyst's sandbox: the part of DuckDB's own Python API that analysts and
language models write, over DuckDB's official library (libduckdb.so, its C API) through
ctypes. Where the image is built with pip, DuckDB's own package is installed instead.

    import duckdb
    duckdb.sql("select region, sum(qty) from 'sales.parquet' group by 1").df()
    duckdb.sql("select * from df where qty > 3")          # a pandas DataFrame by its name
    with duckdb.connect() as con:
        con.execute("select ? + 1", [41]).fetchall()

Every database opens inside the sandbox's limits (see _config.py): the container's CPUs, a
share of its memory, spill files in the workspace, no extension downloads.
"""

from ._capi import lib as _lib
from ._connection import DuckDBPyConnection
from ._errors import *  # noqa: F401,F403 - DuckDB's exception classes are part of the API
from ._errors import Error
from ._relation import DuckDBPyRelation
from ._types import DuckDBPyType

__version__ = _lib.library_version().decode().lstrip("v")
apilevel = "2.0"
threadsafety = 1
paramstyle = "qmark"

_default = None


def connect(database=":memory:", read_only=False, config=None):
    """A new database connection (`:memory:` or a file path)."""
    return DuckDBPyConnection(database, read_only, config)


def default_connection():
    """The in-memory connection the module-level functions use."""
    global _default
    if _default is None or not _default._con:
        _default = DuckDBPyConnection()
    return _default


def sql(query, params=None, alias="", connection=None):
    return (connection or default_connection()).sql(query, params, alias)


query = sql


def execute(query, parameters=None, connection=None):
    return (connection or default_connection()).execute(query, parameters)


def fetchall(connection=None):
    return (connection or default_connection()).fetchall()


def fetchone(connection=None):
    return (connection or default_connection()).fetchone()


def df(connection=None):
    return (connection or default_connection()).df()


fetchdf = df


def read_csv(path_or_buffer, connection=None, **options):
    return (connection or default_connection()).read_csv(path_or_buffer, **options)


from_csv_auto = read_csv


def read_parquet(file_glob, connection=None, **options):
    return (connection or default_connection()).read_parquet(file_glob, **options)


from_parquet = read_parquet


def read_json(path_or_buffer, connection=None, **options):
    return (connection or default_connection()).read_json(path_or_buffer, **options)


def from_df(df, connection=None):
    return (connection or default_connection()).from_df(df)


def table(name, connection=None):
    return (connection or default_connection()).table(name)


def register(view_name, python_object, connection=None):
    return (connection or default_connection()).register(view_name, python_object)


def unregister(view_name, connection=None):
    return (connection or default_connection()).unregister(view_name)


__all__ = [
    "DuckDBPyConnection",
    "DuckDBPyRelation",
    "DuckDBPyType",
    "Error",
    "connect",
    "default_connection",
    "df",
    "execute",
    "fetchall",
    "fetchdf",
    "fetchone",
    "from_df",
    "query",
    "read_csv",
    "read_json",
    "read_parquet",
    "register",
    "sql",
    "table",
    "unregister",
]
