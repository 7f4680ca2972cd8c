# Sent before each of the offline analyst's cells and never shown: the values a cell computed
# reach the written answer as one marked line, which is cut out of the output shown.
import json as _analyst_json

import pandas as _analyst_pd

_ANALYST_MARKER = "@@analyst-result@@"


def share(**values):
    """Hands these values to Analyst's written answer."""

    def plain(value):
        if isinstance(value, _analyst_pd.DataFrame):
            return value.to_dict("split")
        return {key: plain(v) for key, v in value.items()} if isinstance(value, dict) else value

    series = _analyst_pd.Series(plain(values), dtype=object)
    print(_ANALYST_MARKER + series.to_json(date_format="iso", default_handler=str))


def share_json(value):
    """Hands a value to the answer as JSON exactly as json.dumps writes it (the look's summary)."""
    print(_ANALYST_MARKER + _analyst_json.dumps(value, ensure_ascii=False, default=str))
