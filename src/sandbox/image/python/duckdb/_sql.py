"""SQL text for the relations this package builds: quoted names and literals."""

import datetime
import decimal


def identifier(name):
    return '"%s"' % str(name).replace('"', '""')


def literal(value):
    """A Python value as a DuckDB SQL literal (for table-function options)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, decimal.Decimal)):
        return repr(value) if not isinstance(value, decimal.Decimal) else str(value)
    if isinstance(value, (list, tuple)):
        return "[%s]" % ", ".join(literal(v) for v in value)
    if isinstance(value, dict):
        return "{%s}" % ", ".join("%s: %s" % (literal(str(k)), literal(v)) for k, v in value.items())
    if isinstance(value, (datetime.date, datetime.datetime)):
        return "'%s'" % value.isoformat()
    return "'%s'" % str(value).replace("'", "''")


def subquery(sql):
    """A statement usable inside FROM ( ... ): trailing semicolons dropped, and a newline
    before the closing parenthesis so a trailing -- comment cannot swallow it."""
    return "(%s\n)" % sql.strip().rstrip(";").rstrip()


# Python-style option names of read_csv and friends, as DuckDB's package maps them.
OPTION_NAMES = {
    "sep": "delim",
    "delimiter": "delim",
    "quotechar": "quote",
    "escapechar": "escape",
    "na_values": "nullstr",
    "dtype": "types",
}


def table_function(function, path, options):
    args = [literal(path)]
    for key, value in options.items():
        if value is None:
            continue
        args.append("%s = %s" % (OPTION_NAMES.get(key, key), literal(value)))
    return "SELECT * FROM %s(%s)" % (function, ", ".join(args))
