"""Other names of places a context and an answer write differently: the US states by their
postal codes ("California" in an answer, ``'state': 'CA'`` in a business record).

Only states named by one word are here (a two-word name is two grounding units), and not
those whose code is an English word a context holds anyway ("IN", "OR", "ME", "OH", "HI",
"OK"): "Indiana" would be found in any text with "in".
"""

from __future__ import annotations

from enoki_hd.text import normalize_term

US_STATE_CODES: dict[str, str] = {
    "alabama": "al",
    "alaska": "ak",
    "arizona": "az",
    "arkansas": "ar",
    "california": "ca",
    "colorado": "co",
    "connecticut": "ct",
    "delaware": "de",
    "florida": "fl",
    "georgia": "ga",
    "idaho": "id",
    "illinois": "il",
    "iowa": "ia",
    "kansas": "ks",
    "kentucky": "ky",
    "louisiana": "la",
    "maryland": "md",
    "massachusetts": "ma",
    "michigan": "mi",
    "minnesota": "mn",
    "mississippi": "ms",
    "missouri": "mo",
    "montana": "mt",
    "nebraska": "ne",
    "nevada": "nv",
    "pennsylvania": "pa",
    "tennessee": "tn",
    "texas": "tx",
    "utah": "ut",
    "vermont": "vt",
    "virginia": "va",
    "washington": "wa",
    "wisconsin": "wi",
    "wyoming": "wy",
}
_STATES_BY_CODE = {code: name for name, code in US_STATE_CODES.items()}
# looked up by the normalised term, as the grounding index holds words ("Texas" → "texa")
_CODES_BY_TERM = {normalize_term(name): code for name, code in US_STATE_CODES.items()}


def place_names(word: str) -> list[str]:
    """The other names of the place ``word`` names: a one-word US state's postal code
    ("California" → ["ca"]), or the state a code written in capitals stands for ("CA" →
    ["california"]; "ca" of "ca. 1500" is no state); [] for any other word."""
    key = normalize_term(word)
    if key in _CODES_BY_TERM:
        return [_CODES_BY_TERM[key]]
    if word.isupper() and key in _STATES_BY_CODE:
        return [_STATES_BY_CODE[key]]
    return []
