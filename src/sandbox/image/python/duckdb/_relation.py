"""DuckDBPyRelation: a lazy query. Nothing runs until its rows are asked for; each method
that narrows it (filter, limit, ...) returns a new relation over its SQL."""

from . import _sql
from ._display import render_table
from ._errors import InvalidInputException


class DuckDBPyRelation:
    def __init__(self, connection, sql, frames, alias):
        self._connection = connection
        self._sql = sql
        self._frames = frames  # DataFrames it reads, by the names it reads them under
        self._alias = alias or "unnamed_relation"
        self._cursor = None
        self._head = None

    @classmethod
    def materialized(cls, connection, result):
        """The rows of a statement that already ran (PRAGMA, CALL, several statements)."""
        relation = cls(connection, None, {}, "")
        relation._cursor = result
        return relation

    # -- running -----------------------------------------------------------------------

    def _run(self, sql=None):
        if self._sql is None:
            if self._cursor is None:
                raise InvalidInputException("Invalid Input Error: this result was already read")
            return self._cursor
        result, _ = self._connection._run(sql or self._sql, pinned=self._frames)
        return result

    def _rest(self):
        """A result to read to its end: the one fetchone started, else a new run."""
        result = self._cursor or self._run()
        self._cursor = None
        return result

    def fetchall(self):
        return self._rest().fetchall()

    def fetchone(self):
        if self._cursor is None:
            self._cursor = self._run()
        return self._cursor.fetchone()

    def fetchmany(self, size=1):
        if self._cursor is None:
            self._cursor = self._run()
        return self._cursor.fetchmany(size)

    def df(self, **_options):
        return self._rest().df()

    fetchdf = to_df = fetch_df = df

    def fetchnumpy(self):
        return self._rest().fetchnumpy()

    def execute(self):
        self._cursor = self._run()
        return self

    def _describe(self):
        """Names and types without reading rows."""
        if self._head is None:
            if self._sql is None:
                self._head = (self._cursor.columns, self._cursor.types)
            else:
                result = self._run("SELECT * FROM %s AS t LIMIT 0" % _sql.subquery(self._sql))
                self._head = (result.columns, result.types)
                result.close()
        return self._head

    @property
    def columns(self):
        return list(self._describe()[0])

    @property
    def types(self):
        return list(self._describe()[1])

    dtypes = types

    @property
    def description(self):
        return [(name, str(kind), None, None, None, None, None) for name, kind in zip(*self._describe())]

    @property
    def alias(self):
        return self._alias

    def set_alias(self, alias):
        return DuckDBPyRelation(self._connection, self._sql, self._frames, alias)

    @property
    def shape(self):
        return (len(self), len(self.columns))

    def __len__(self):
        return self._derive("SELECT count(*) FROM {}").fetchone()[0]

    # -- narrowing -----------------------------------------------------------------------

    def _derive(self, template):
        if self._sql is None:
            raise InvalidInputException(
                "Invalid Input Error: this relation holds rows already computed; run its statement alone to query it further"
            )
        source = "%s AS %s" % (_sql.subquery(self._sql), _sql.identifier(self._alias))
        return DuckDBPyRelation(self._connection, template.replace("{}", source, 1), self._frames, self._alias)

    def limit(self, n, offset=0):
        return self._derive("SELECT * FROM {} LIMIT %d OFFSET %d" % (int(n), int(offset)))

    def filter(self, condition):
        return self._derive("SELECT * FROM {} WHERE %s" % condition)

    def project(self, *expressions):
        return self._derive("SELECT %s FROM {}" % ", ".join(str(e) for e in expressions))

    select = project

    def order(self, expression):
        return self._derive("SELECT * FROM {} ORDER BY %s" % expression)

    sort = order

    def aggregate(self, expressions, group_expr=""):
        if isinstance(expressions, (list, tuple)):
            expressions = ", ".join(expressions)
        group = " GROUP BY %s" % group_expr if group_expr else ""
        return self._derive("SELECT %s FROM {}%s" % (expressions, group))

    agg = aggregate

    def distinct(self):
        return self._derive("SELECT DISTINCT * FROM {}")

    def count(self, column="*"):
        return self._derive("SELECT count(%s) FROM {}" % column)

    def query(self, virtual_table_name, sql_query):
        """Runs `sql_query`, in which this relation is the table `virtual_table_name`."""
        cte = "WITH %s AS %s " % (_sql.identifier(virtual_table_name), _sql.subquery(self._sql))
        return DuckDBPyRelation(self._connection, cte + sql_query, self._frames, self._alias)

    def sql_query(self):
        return self._sql

    # -- writing -------------------------------------------------------------------------

    def _copy(self, path, options):
        text = ", ".join("%s %s" % (k.upper(), _sql.literal(v)) for k, v in options.items() if v is not None)
        copy = "COPY %s TO %s%s" % (_sql.subquery(self._sql), _sql.literal(str(path)), " (%s)" % text if text else "")
        self._connection._run(copy, pinned=self._frames)[0].close()

    def write_csv(self, file_name, sep=None, header=None, **options):
        self._copy(file_name, {"format": "csv", "delimiter": sep, "header": header, **options})

    to_csv = write_csv

    def write_parquet(self, file_name, compression=None, **options):
        self._copy(file_name, {"format": "parquet", "compression": compression, **options})

    to_parquet = write_parquet

    def create(self, table_name):
        self._connection._run(
            "CREATE TABLE %s AS %s" % (_sql.identifier(table_name), self._sql), pinned=self._frames
        )[0].close()

    to_table = create

    def create_view(self, view_name, replace=True):
        verb = "CREATE OR REPLACE VIEW" if replace else "CREATE VIEW"
        self._connection._run("%s %s AS %s" % (verb, _sql.identifier(view_name), self._sql), pinned=self._frames)[0].close()
        return self

    to_view = create_view

    # -- showing -------------------------------------------------------------------------

    def show(self, max_rows=40, max_width=None):
        print(self._render(max_rows, max_width))

    def _render(self, max_rows=40, max_width=None):
        if self._sql is None:
            columns, types = self._describe()
            rows = self._cursor.fetchmany(max_rows + 1)
            total = None
        else:
            result = self._run("SELECT * FROM %s AS t LIMIT %d" % (_sql.subquery(self._sql), max_rows + 1))
            columns, types, rows = result.columns, result.types, result.fetchall()
            total = None
        return render_table(columns, types, rows, max_rows, total, max_width)

    def __str__(self):
        return self._render()

    def __repr__(self):
        return self._render()
