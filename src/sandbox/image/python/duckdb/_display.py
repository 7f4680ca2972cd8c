"""The box table `print(rel)` and `rel.show()` draw, in the style of DuckDB's own."""

import datetime
import decimal

CELL_CHARS = 40


def cell(value):
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (datetime.date, datetime.datetime, datetime.time, decimal.Decimal)):
        return str(value)
    text = str(value).replace("\n", "\\n")
    return text if len(text) <= CELL_CHARS else text[: CELL_CHARS - 1] + "…"


def render_table(columns, types, rows, max_rows, total=None, max_width=None):
    shown = rows[:max_rows]
    more = len(rows) > max_rows
    if not columns:
        return "(no columns)"
    header = [str(c) for c in columns]
    kinds = [str(k).lower() for k in types]
    body = [[cell(v) for v in row] for row in shown]
    widths = [max([len(header[i]), len(kinds[i])] + [len(r[i]) for r in body]) for i in range(len(columns))]
    numeric = [any(k.startswith(p) for p in ("int", "bigint", "smallint", "tinyint", "hugeint", "u", "double", "float", "decimal")) for k in kinds]

    def line(left, mid, right):
        return left + mid.join("─" * (w + 2) for w in widths) + right

    def row(values, align=None):
        parts = []
        for i, (value, width) in enumerate(zip(values, widths)):
            parts.append(value.rjust(width) if align and align[i] else value.center(width) if align is None else value.ljust(width))
        return "│ " + " │ ".join(parts) + " │"

    out = [line("┌", "┬", "┐"), row(header), row(kinds), line("├", "┼", "┤")]
    out += [row(r, numeric) for r in body]
    if more:
        out.append(row(["·"] * len(columns)))
    out.append(line("└", "┴", "┘"))
    if more:
        out.append("(first %d rows shown)" % max_rows)
    text = "\n".join(out)
    return text
