def share(**values):
    """Hands these values to Analyst's written answer (one marked line, left out of the output shown)."""

    def plain(value):
        if isinstance(value, pd.DataFrame):
            return value.to_dict("split")
        return {key: plain(v) for key, v in value.items()} if isinstance(value, dict) else value

    print("@@analyst-result@@" + pd.Series(plain(values), dtype=object).to_json(date_format="iso", default_handler=str))
