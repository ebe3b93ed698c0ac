"""US state names and postal codes as one place in grounding."""

from __future__ import annotations

import pytest

from enoki_hd.places import US_STATE_CODES, place_names
from enoki_hd.verify.grounding import ground


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("California", ["ca"]),
        ("TEXAS", ["tx"]),
        ("CA", ["california"]),
        ("ca", []),  # "ca. 1500": circa, no state
        ("Indiana", []),  # its code "IN" is in every text
        ("IN", []),
        ("Paris", []),
    ],
)
def test_place_names(word: str, expected: list[str]) -> None:
    assert place_names(word) == expected


def test_no_state_code_is_a_common_english_word() -> None:
    assert not {"in", "or", "me", "oh", "hi", "ok"} & set(US_STATE_CODES.values())
    assert len(set(US_STATE_CODES.values())) == len(US_STATE_CODES)


def test_a_state_is_found_by_its_code_and_the_code_by_the_state() -> None:
    record = "{'name': 'Alito's', 'city': 'Santa Barbara', 'state': 'CA'}"
    result = ground("in Santa Barbara, California", record)
    assert (result.status, result.missing) == ("grounded", [])
    assert ground("based in CA", "Founded in California.").missing == ["based"]
    # a state the context does not name stays missing, its code no help
    assert ground("in Santa Barbara, Nevada", record).missing_names == ["nevada"]


def test_states_whose_names_end_in_s_are_found() -> None:
    # the index holds "texa" for "Texas"; the code is looked up the same way
    assert ground("a ranch in Texas", "A ranch near Austin, TX.").missing == []
    assert ground("a ranch in TX", "A ranch in Texas.").missing == []
