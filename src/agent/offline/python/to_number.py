def to_number(values):
    """Text such as '1,234', '12.5%', '$3', '−4', '3rd' or '12[a]', '202 (estimate)' read as numbers (NaN where it is not one)."""
    text = values.astype(str).str.strip().str.replace("\u2212", "-", regex=False)
    text = text.str.replace(r"\[[^\]]*\]|\s*\([^)]*\)\s*$|^[$€£¥=~≈]|[,%\s]|[$€£¥]$|(?<=\d)(st|nd|rd|th)$", "", regex=True)
    return pd.to_numeric(text, errors="coerce")
