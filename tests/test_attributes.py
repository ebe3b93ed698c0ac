"""Yes-or-no attributes of a listing (verify/attributes.py): reading the listing, finding an
attribute in a fact, its polarity, and the verdicts it changes."""

from __future__ import annotations

from enoki_hd.types import Fact, FactVerdict, NLIScores, Span
from enoki_hd.verify.attributes import context_attributes, judge_attributes
from enoki_hd.verify.grounding import ground

# a listing as RAGTruth's data-to-text contexts give one (Yelp's attributes), with a review
LISTING = (
    "{'name': 'Javan's', 'city': 'Isla Vista', 'attributes': {'BusinessParking': {'garage': "
    "False, 'street': True, 'lot': False}, 'RestaurantsReservations': False, 'OutdoorSeating': "
    "True, 'WiFi': 'free', 'RestaurantsTakeOut': True, 'RestaurantsGoodForGroups': True, "
    "'Music': None, 'Alcohol': 'beer_and_wine', 'Ambience': {'romantic': False, 'intimate': "
    "False, 'upscale': False, 'casual': True}}, 'review_info': [{'review_text': 'An upscale "
    "little place on Pardall Street.'}]}"
)


def test_context_attributes_reads_the_yes_or_no_pairs() -> None:
    read = {(a.words, a.topic): a.value for a in context_attributes(LISTING)}
    ambience = ("ambience", "ambiance", "atmosphere", "vibe", "setting", "decor")
    assert read == {
        (("garage",), ("parking",)): False,
        (("lot",), ("parking",)): False,
        (("reservations",), ()): False,
        (("music",), ()): None,
        (("outdoor", "seating"), ()): True,
        (("wi", "fi"), ()): True,
        (("take", "out"), ()): True,
        (("good", "for", "groups"), ()): True,
        (("romantic",), ambience): False,
        (("intimate",), ambience): False,
        (("casual",), ambience): True,
    }
    # 'Music': None is unknown; left out: 'Alcohol': 'beer_and_wine' (no yes or no), names and
    # cities (strings), 'street' and 'upscale' (the review writes "Street" and "upscale")
    [seating] = [a for a in context_attributes(LISTING) if a.words == ("outdoor", "seating")]
    assert seating.span.text(LISTING) == "'OutdoorSeating': True"
    assert context_attributes("The cafe has outdoor seating and free WiFi.") == []
    # 'attributes' only holds the listing: its keys are top-level attributes, no "attributes"
    # topic to name beside them; a dict nested in a value is skipped whole
    flat = "{'attributes': {'Hours': {'Monday': '9-5'}, 'OutdoorSeating': False}}"
    assert [(a.words, a.value, a.topic) for a in context_attributes(flat)] == [
        (("outdoor", "seating"), False, ())
    ]
    # two listings that disagree: the attribute is no one's
    two = "{'OutdoorSeating': True} {'OutdoorSeating': False, 'WiFi': 'no'}"
    assert [(a.words, a.value) for a in context_attributes(two)] == [(("wi", "fi"), False)]


ANSWER = (
    "Javan's does not offer outdoor seating, but it has free Wi-Fi and takeout. "
    "The restaurant is good for groups and takes no reservations. "
    "It has a romantic atmosphere. It is on State Street and has no garage parking. "
    "It does not provide music."
)


def _fact(fid: str, relation: str, obj: str, *, subject: str = "Javan's") -> Fact:
    """A fact whose parts are the first occurrences of the strings in the answer."""

    def at(text: str, after: int = 0) -> list[Span]:
        start = ANSWER.index(text, after)
        return [Span(start, start + len(text))]

    relation_spans = at(relation)
    return Fact(
        id=fid,
        sentence=0,
        subject=subject,
        relation=relation,
        object=obj,
        subject_spans=at(subject),
        relation_spans=relation_spans,
        object_spans=at(obj, relation_spans[0].end),
    )


def _failed(fact: Fact, score: float = 0.95, decided_by: str = "nli") -> FactVerdict:
    return FactVerdict(
        fact=fact,
        hypothesis="h",
        probs=NLIScores(1 - score, 0.0, score),
        label="contradicted",
        decided_by=decided_by,
        score=score,
    )


def test_judge_attributes_contradicts_the_opposite_and_clears_what_the_listing_says() -> None:
    verdicts = [
        _failed(_fact("f0.0", "does not offer", "outdoor seating"), 0.3),  # says no to a yes
        _failed(_fact("f0.1", "has", "free Wi-Fi")),  # a yes to a yes
        _failed(_fact("f0.2", "has free Wi-Fi and", "takeout"), decided_by="grounding"),
        _failed(_fact("f1.0", "is good for", "groups", subject="The restaurant")),
        _failed(_fact("f1.1", "takes", "no reservations", subject="The restaurant")),
        _failed(_fact("f2.0", "has", "a romantic atmosphere", subject="It")),  # a yes to a no
        _failed(_fact("f3.0", "is on", "State Street", subject="It")),  # a nested key alone
        _failed(_fact("f3.1", "has", "no garage parking", subject="It")),  # a no to a no
        _failed(_fact("f4.0", "does not provide", "music", subject="It"), 0.2),  # unknown
    ]
    out = judge_attributes(verdicts, ANSWER, LISTING)
    assert [(v.label, v.decided_by, v.score) for v in out] == [
        ("contradicted", "attribute_conflict", 0.9),
        ("supported", "attribute", 0.0),
        ("supported", "attribute", 0.0),
        ("supported", "attribute", 0.0),
        # "takes" is no plain verb of having: the fact may say more than the listing
        ("contradicted", "nli", 0.95),
        ("contradicted", "attribute_conflict", 0.95),
        ("contradicted", "nli", 0.95),
        ("supported", "attribute", 0.0),
        ("unverifiable", "attribute_unknown", 0.9),
    ]
    assert [s.text(ANSWER) for s in out[0].blamed or []] == ["outdoor seating"]
    assert out[0].evidence is not None and out[0].evidence.text == "'OutdoorSeating': True"
    assert [s.text(ANSWER) for s in out[5].blamed or []] == ["romantic"]
    # "doesn’t" with a typographic apostrophe denies too
    curly = "Javan's doesn’t offer outdoor seating."
    denial = Fact(
        id="f9.0",
        sentence=0,
        subject="Javan's",
        relation="doesn’t offer",
        object="outdoor seating",
        subject_spans=[Span(0, 7)],
        relation_spans=[Span(8, 21)],
        object_spans=[Span(22, 37)],
    )
    [denied] = judge_attributes([_failed(denial, 0.3)], curly, LISTING)
    assert (denied.label, denied.decided_by) == ("contradicted", "attribute_conflict")
    # a conflict another check found is never cleared
    conflict = _failed(_fact("f0.1", "has", "free Wi-Fi"), decided_by="negation_conflict")
    assert judge_attributes([conflict], ANSWER, LISTING) == [conflict]
    # no listing: the verdicts as they were
    assert judge_attributes(verdicts, ANSWER, "Javan's is a cafe.") == verdicts


def test_grounding_reads_the_words_of_a_camel_case_key() -> None:
    listing = (
        "{'OutdoorSeating': True, 'RestaurantsTakeOut': True, 'RestaurantsGoodForGroups': True}"
    )
    for found in ("offers outdoor seating", "is good for groups", "offers takeout"):
        assert "seating" not in ground(found, listing).missing
        assert "groups" not in ground(found, listing).missing
        assert "takeout" not in ground(found, listing).missing
    assert ground("has a patio", listing).missing == ["patio"]
    # only a listing's keys: a CamelCase word in prose stays one word
    assert ground("a tube", "She posted it on YouTube.").missing == ["tube"]
    assert ground("has a patio", "The patio is large.").missing == []
