"""Tagger rows read against their sentence's parse (enoki_hd.extract.asserted): clauses the
sentence does not assert are dropped, a relative clause of a noun that is none keeps the noun."""

from __future__ import annotations

import numpy as np
import pytest

from enoki_hd.extract.asserted import (
    asserted_row,
    clauses_added,
    existentials_added,
    fragments_dropped,
    object_completed,
    object_filled,
    pieces_joined,
    relation_filled,
    relation_head,
    relation_implicit,
    relation_parsed,
    subject_filled,
    subjects_distributed,
    word_of_tokens,
)
from enoki_hd.igl.labels import ARG1, ARG2, NONE, REL, SENTINELS
from enoki_hd.text import DEFAULT_SPACY_MODEL, load_spacy_pipeline, tokenize_words


@pytest.fixture(scope="module")
def nlp():
    return load_spacy_pipeline(DEFAULT_SPACY_MODEL)


def labelled(text: str, parts: dict[str, int]) -> tuple[np.ndarray, list]:
    """A row over ``text``'s words: each word of a ``parts`` phrase (first occurrence) gets
    the phrase's label, the sentinels none."""
    words = tokenize_words(text)
    row = np.full(len(words) + len(SENTINELS), NONE, dtype=np.int64)
    for phrase, label in parts.items():
        start = text.index(phrase)
        for k, word in enumerate(words):
            if start <= word.start and word.end <= start + len(phrase):
                row[k] = label
    return row, words


def read(nlp, text: str, parts: dict[str, int]) -> dict[int, str] | None:
    """The row after :func:`asserted_row`, as label → its words joined (None: dropped)."""
    row, words = labelled(text, parts)
    doc = nlp(text)
    out = asserted_row(row, doc, words, word_of_tokens(doc, words))
    return None if out is None else by_label(text, words, out)


def by_label(text: str, words: list, row: np.ndarray) -> dict[int, str]:
    """A row as subject, relation and object label → its words joined."""
    return {
        label: " ".join(w.text(text) for k, w in enumerate(words) if row[k] == label)
        for label in (ARG1, REL, ARG2)
    }


ROBERTSON = (
    'Contrary to popular belief, there was no British commander named "Robertson" who led the '
    "British forces during the battle."
)


def test_a_relative_clause_of_a_noun_that_is_none_keeps_the_noun_as_its_subject(nlp) -> None:
    assert read(
        nlp,
        ROBERTSON,
        {"Robertson": ARG1, "led": REL, "the British forces during the battle": ARG2},
    ) == {
        ARG1: 'no British commander named " Robertson',
        REL: "led",
        ARG2: "the British forces during the battle",
    }


def test_a_relative_clause_of_an_ordinary_noun_is_left_as_the_tagger_wrote_it(nlp) -> None:
    text = "The company hired a manager who doubled its sales."
    parts = {"a manager": ARG1, "doubled": REL, "its sales": ARG2}
    assert read(nlp, text, parts) == {ARG1: "a manager", REL: "doubled", ARG2: "its sales"}


@pytest.mark.parametrize(
    "text, parts",
    [
        (
            "If red wine has been left overnight, it may have left stains.",
            {"red wine": ARG1, "has been left": REL, "overnight": ARG2},
        ),
        (
            "There is no record that Napoleon visited Boston.",
            {"Napoleon": ARG1, "visited": REL, "Boston": ARG2},
        ),
        (
            "It is unlikely that the dish existed in 1490.",
            {"the dish": ARG1, "existed in": REL, "1490": ARG2},
        ),
        (
            "The court overturned the ruling that Maris had breached its contract.",
            {"Maris": ARG1, "had breached": REL, "its contract": ARG2},
        ),
    ],
)
def test_a_clause_the_sentence_does_not_assert_is_dropped(nlp, text, parts) -> None:
    assert read(nlp, text, parts) is None


def test_the_asserted_clause_beside_an_unasserted_one_is_kept(nlp) -> None:
    text = "If red wine has been left overnight, it may have left stains."
    parts = {"it": ARG1, "may have left": REL, "stains": ARG2}
    assert read(nlp, text, parts) == {ARG1: "it", REL: "may have left", ARG2: "stains"}


def test_the_relation_head_is_its_verb_and_an_implicit_relation_is_kept(nlp) -> None:
    text = "Suede was formed in London."
    row, words = labelled(text, {"Suede": ARG1, "was formed in": REL, "London": ARG2})
    doc = nlp(text)
    token_words = word_of_tokens(doc, words)
    relation = {k for k in range(len(words)) if row[k] == REL}
    assert relation_head(doc, token_words, relation).text == "formed"
    implicit, _ = labelled(text, {"Suede": ARG1, "London": ARG2})
    implicit[len(words)] = REL  # "[is]"
    assert asserted_row(implicit, doc, words, token_words) is implicit


def test_tokens_map_to_the_word_they_start_in(nlp) -> None:
    text = "It didn't rain."
    words = tokenize_words(text)
    doc = nlp(text)
    mapped = word_of_tokens(doc, words)
    assert [(t.text, words[mapped[t.i]].text(text)) for t in doc if mapped[t.i] >= 0][:2] == [
        ("It", "It"),
        ("did", "didn't"),
    ]


def test_the_token_map_reads_the_docs_text_once(nlp) -> None:
    # Doc.text joins every token: read once per token, a 20,000-character sentence spent
    # seconds (most of `enoki extract --extractor encoder` on it) in this map alone
    text = "Bass violins were smaller ."
    doc = nlp(text)

    class CountingDoc:
        reads = 0

        @property
        def text(self) -> str:
            CountingDoc.reads += 1
            return doc.text

        def __iter__(self):
            return iter(doc)

    words = tokenize_words(text)
    assert word_of_tokens(CountingDoc(), words) == [0, 1, 2, 3, 4]  # type: ignore[arg-type]
    assert CountingDoc.reads == 1


def test_a_subject_in_pieces_keeps_the_piece_its_clause_has_as_subject(nlp) -> None:
    # the tagger's row merged the condition's subject into the main clause's
    text = "If red wine has been left overnight, it may have left stains."
    parts = {"red wine": ARG1, "it": ARG1, "may have left": REL, "stains": ARG2}
    assert read(nlp, text, parts) == {ARG1: "it", REL: "may have left", ARG2: "stains"}


def test_subject_pieces_all_inside_the_subject_or_none_inside_are_left(nlp) -> None:
    # "Yushu, Qinghai's second-largest city": both pieces are the subject's phrase
    text = "Yushu, the second-largest city of Qinghai, is located in the north."
    parts = {"Yushu": ARG1, "the second-largest city": ARG1, "is located in": REL}
    assert read(nlp, text, parts)[ARG1] == "Yushu the second-largest city"
    # a clause without subject to compare with
    text = "Founded in 1990 by two engineers, the firm grew quickly."
    parts = {"1990": ARG1, "two engineers": ARG1, "Founded": REL}
    assert read(nlp, text, parts)[ARG1] == "1990 two engineers"


def test_a_subject_piece_inside_the_verbs_complement_is_the_rows_object(nlp) -> None:
    # the tagger's row "The first chairman of the union Hans Einarsson | was | ∅"
    text = "The first chairman of the union was Hans Einarsson."
    parts = {"The first chairman of the union": ARG1, "was": REL, "Hans Einarsson": ARG1}
    assert read(nlp, text, parts) == {
        ARG1: "The first chairman of the union",
        REL: "was",
        ARG2: "Hans Einarsson",
    }


def test_an_existential_there_does_not_trim_the_subject(nlp) -> None:
    # "there" is the parse's subject, and what the sentence says exists is "other writers":
    # the row reads "there | were | other writers involved in …", not "there other writers |
    # were involved in | …"
    text = "No, there were other writers involved in the creation of the story."
    parts = {"there": ARG1, "other writers": ARG1, "were": REL, "involved in": REL}
    assert read(nlp, text, parts) == {
        ARG1: "there",
        REL: "were",
        ARG2: "other writers involved in",
    }


def after(
    step, nlp, text: str, parts: dict[str, int] | list[int], *, whole: bool = False
) -> dict[int, str] | None:
    """The row after ``step`` (one of the module's row steps), as label → its words joined,
    or with ``whole`` the text from the part's first word to its last; None when ``step``
    returns the row unchanged. ``parts`` as for :func:`labelled`, or one label per word."""
    if isinstance(parts, list):
        words = tokenize_words(text)
        row = np.array(parts + [NONE] * len(SENTINELS), dtype=np.int64)
        assert len(parts) == len(words)
    else:
        row, words = labelled(text, parts)
    if step is pieces_joined:
        out = pieces_joined(row, text, words)
    else:
        doc = nlp(text)
        out = step(row, doc, words, word_of_tokens(doc, words))
    if out is row:
        return None
    if not whole:
        return by_label(text, words, out)
    return {
        label: text[words[ks[0]].start : words[ks[-1]].end] if ks else ""
        for label in (ARG1, REL, ARG2)
        for ks in [[k for k in range(len(words)) if out[k] == label]]
    }


def filled(nlp, text: str, parts: dict[str, int] | list[int]) -> dict[int, str] | None:
    """:func:`after` :func:`relation_filled`."""
    return after(relation_filled, nlp, text, parts)


@pytest.mark.parametrize(
    "text, parts, expected",
    [
        (
            "The co-owners of the company are the Finnish company Remnant Entertainment.",
            {"The co-owners of the company": ARG1, "the Finnish company Remnant": ARG2},
            ("The co-owners of the company", "are", "the Finnish company Remnant"),
        ),
        (
            "The Mashhood Test Firing Range is located in the Indian state of Rajasthan.",
            {"The Mashhood Test Firing Range": ARG1, "the Indian state of Rajasthan": ARG2},
            ("The Mashhood Test Firing Range", "is located in", "the Indian state of Rajasthan"),
        ),
        (
            # the tagger's stray object word inside the subject is the subject's again
            "The alternative name for the mink frog is the northern mink frog.",
            # the shipped tagger's row, word by word
            [ARG1, ARG1, ARG1, ARG1, ARG2, ARG1, ARG1, NONE, ARG2, ARG2, ARG2, ARG2, NONE],
            ("The alternative name for the mink frog", "is", "the northern mink frog"),
        ),
    ],
)
def test_a_row_without_a_relation_takes_the_verb_group_between_its_arguments(
    nlp, text: str, parts: dict[str, int] | list[int], expected: tuple[str, str, str]
) -> None:
    out = filled(nlp, text, parts)
    assert out is not None and (out[ARG1], out[REL], out[ARG2]) == expected


@pytest.mark.parametrize(
    "text, parts",
    [
        # a relation labelled: nothing to fill
        (
            "The museum is open every day.",
            {"The museum": ARG1, "is": REL, "open every day": ARG2},
        ),
        # a gap of more than three words
        (
            "The airline was initially a low-cost subsidiary of SAS.",
            {"The airline": ARG1, "SAS": ARG2},
        ),
        # no verb in the gap
        ("Top diameter: 3.50 inches.", {"Top diameter": ARG1, "3.50": ARG2}),
        # a noun in the gap: more than a verb group
        ("Smith said Jones is ill.", {"Smith": ARG1, "ill": ARG2}),
        # the object before the subject
        ("Men's team event.", {"Men's team": ARG2, "event": ARG1}),
    ],
)
def test_a_row_without_a_relation_is_left_alone_otherwise(
    nlp, text: str, parts: dict[str, int]
) -> None:
    assert filled(nlp, text, parts) is None


@pytest.mark.parametrize(
    "text, parts, expected",
    [
        (
            # the verb and the preposition that governs the object, around the place
            "The World Championships were held in Oberhof, Germany, from February 24 to "
            "February 28.",
            {"The World Championships": ARG1, "February 24 to February 28": ARG2},
            ("The World Championships", "were held from", "February 24 to February 28"),
        ),
        (
            # the object the verb's own complement; negation and auxiliary kept
            "However, he did not specifically describe this subspecies.",
            {"he": ARG1, "this subspecies": ARG2},
            ("he", "did not describe", "this subspecies"),
        ),
        (
            "The comune of Ponzone is located in the province of Asti, in the region of Piedmont.",
            {"Ponzone": ARG1, "the region of Piedmont": ARG2},
            ("Ponzone", "is located in", "the region of Piedmont"),
        ),
    ],
)
def test_a_row_without_a_relation_takes_the_verb_that_governs_its_object(
    nlp, text: str, parts: dict[str, int], expected: tuple[str, str, str]
) -> None:
    out = after(relation_parsed, nlp, text, parts)
    assert out is not None and (out[ARG1], out[REL], out[ARG2]) == expected


@pytest.mark.parametrize(
    "text, parts",
    [
        # through a preposition, a verb with a complement of its own: "was until" misreads
        (
            "Torun was a member of the Hanseatic League from 1260 until its expulsion in 1577.",
            {"Torun": ARG1, "its expulsion in 1577": ARG2},
        ),
        (
            "A Western Oriole is a medium-sized bird, with an average length of 15.3 cm.",
            {"A Western Oriole": ARG1, "an average length of 15.3 cm": ARG2},
        ),
        # the parser hangs the aside on the passive's auxiliary: "were by" is no relation
        (
            "They were, by their own account, towed back to England by the AA.",
            {"They": ARG1, "their own account": ARG2},
        ),
        # the object hangs on a noun, not on a verb
        (
            "The airline was initially a low-cost subsidiary of SAS.",
            {"The airline": ARG1, "SAS": ARG2},
        ),
        # the verb's subject is not the row's subject
        (
            "Smith said that Jones was born in Leeds.",
            {"Smith": ARG1, "Leeds": ARG2},
        ),
        # a relation labelled already
        (
            "The museum is open every day.",
            {"The museum": ARG1, "is": REL, "open every day": ARG2},
        ),
    ],
)
def test_a_row_without_a_relation_is_left_without_one_when_the_parse_gives_none(
    nlp, text: str, parts: dict[str, int]
) -> None:
    assert after(relation_parsed, nlp, text, parts) is None


@pytest.mark.parametrize(
    ("text", "parts", "expected"),
    [
        (
            "There are three bridges over the river.",
            {"There": ARG1, "bridges": ARG1, "are": REL, "three": ARG2, "over the river": ARG2},
            {ARG1: "There", REL: "are", ARG2: "three bridges over the river"},
        ),
        (
            "There were 40 passengers on board the ferry.",
            {"There": ARG1, "40 passengers": ARG1, "were": REL, "on board": REL, "the ferry": ARG2},
            {ARG1: "There", REL: "were", ARG2: "40 passengers on board the ferry"},
        ),
        (
            "There has never been a woman president of the club.",
            {"There": ARG1, "a woman": ARG1, "been": REL, "president of the club": ARG2},
            {ARG1: "There", REL: "has never been", ARG2: "a woman president of the club"},
        ),
    ],
)
def test_an_existential_row_has_there_for_its_subject_and_what_exists_for_its_object(
    nlp, text: str, parts: dict[str, int], expected: dict[int, str]
) -> None:
    assert read(nlp, text, parts) == expected


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        # "there" alone as the subject: already read as the sentence says it
        (
            "There are three bridges over the river.",
            {"There": ARG1, "are": REL, "three bridges over the river": ARG2},
        ),
        # no "there" in the row's subject
        (
            "There are three bridges over the river.",
            {"three bridges": ARG1, "are": REL, "over the river": ARG2},
        ),
        # "there" is no existential: a place
        ("The bridges there are old.", {"The bridges there": ARG1, "are": REL, "old": ARG2}),
    ],
)
def test_other_rows_of_an_existential_are_left_as_the_tagger_wrote_them(
    nlp, text: str, parts: dict[str, int]
) -> None:
    row, words = labelled(text, parts)
    assert read(nlp, text, parts) == by_label(text, words, row)


def completed(nlp, text: str, parts: dict[str, int]) -> dict[int, str] | None:
    """:func:`after` :func:`object_filled`, parts as whole text."""
    return after(object_filled, nlp, text, parts, whole=True)


@pytest.mark.parametrize(
    ("text", "parts", "expected"),
    [
        # the verb's complement, left out by the tagger (PsiloQA's bass violins)
        (
            "Bass violins were smaller and had a lower pitch than violones.",
            {"Bass violins": ARG1, "were": REL},
            "smaller",
        ),
        # a relation ending in a preposition takes the phrase the preposition governs
        (
            "Elizabeth Moran was born on July 26, 1925, in New York City.",
            {"Elizabeth Moran": ARG1, "was born on": REL},
            "July 26, 1925, in New York City",
        ),
        ("Pérez won the gold medal in 1998.", {"Pérez": ARG1, "won": REL}, "the gold medal"),
        # "including" is a preposition by its dependency (RAGTruth's "visit five cities
        # including | ∅")
        (
            "He will visit five cities including Hong Kong and Beijing.",
            {"He": ARG1, "will visit five cities including": REL},
            "Hong Kong and Beijing",
        ),
        # a phrase ending on a comma or a conjunction ends before it
        (
            # PsiloQA's sentence: the parse ends the phrase on the comma after "journalist"
            "Stephen D. Sullivan is an American author, journalist, and former television news "
            "anchor.",
            {"Stephen D. Sullivan": ARG1, "is": REL},
            "an American author, journalist",
        ),
        # a bracket the phrase closes is kept
        (
            "The elevation of Guder is approximately 500 meters (1,640 feet) above sea level.",
            {"The elevation of Guder": ARG1, "is": REL},
            "approximately 500 meters (1,640 feet) above sea level",
        ),
    ],
)
def test_a_row_without_an_object_takes_its_relations_complement(
    nlp, text: str, parts: dict[str, int], expected: str
) -> None:
    out = completed(nlp, text, parts)
    assert out is not None and out[ARG2] == expected
    assert out[ARG1] == next(p for p, label in parts.items() if label == ARG1)


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        # an object labelled: nothing to fill
        ("The museum is open every day.", {"The museum": ARG1, "is": REL, "open": ARG2}),
        # no subject
        ("Open every day.", {"Open": REL}),
        # an intransitive verb: no complement
        ("The patient recovered quickly.", {"The patient": ARG1, "recovered": REL}),
        # the complement holds a word the row already labels
        (
            "The firm bought Harbor Bank.",
            {"The firm": ARG1, "bought": REL, "Bank": ARG1},
        ),
    ],
)
def test_a_row_without_an_object_is_left_alone_otherwise(
    nlp, text: str, parts: dict[str, int]
) -> None:
    assert completed(nlp, text, parts) is None


def subjected(nlp, text: str, parts: dict[str, int]) -> dict[int, str] | None:
    """:func:`after` :func:`subject_filled`."""
    return after(subject_filled, nlp, text, parts)


@pytest.mark.parametrize(
    ("text", "parts", "expected"),
    [
        # the unlabelled subject of the relation's verb (decoding drops a row without one)
        (
            "It shares its western border with Illinois.",
            {"shares its western border with": REL, "Illinois": ARG2},
            ("It", "shares its western border with", "Illinois"),
        ),
        (
            "The first European settlers arrived in the region in 1788.",
            {"arrived in": REL, "the region": ARG2},
            ("The first European settlers", "arrived in", "the region"),
        ),
        # a subject ending on punctuation ends before it (the Markdown suite's "Limit:")
        (
            "Limit: claims up to 7,500 dollars.",
            {"claims up": REL, "to 7,500 dollars": ARG2},
            ("Limit", "claims up", "to 7,500 dollars"),
        ),
    ],
)
def test_a_row_without_a_subject_takes_its_verbs_subject(
    nlp, text: str, parts: dict[str, int], expected: tuple[str, str, str]
) -> None:
    out = subjected(nlp, text, parts)
    assert out is not None and (out[ARG1], out[REL], out[ARG2]) == expected


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        # a subject labelled: nothing to fill
        (
            "The band released their album in 1995.",
            {"The band": ARG1, "released": REL, "their album": ARG2},
        ),
        # no object: nothing the row says of a subject
        ("He died in London.", {"died": REL}),
        # a relative pronoun stands for its noun, whose phrase holds the relation
        ("The museum, which opened in 1990, holds paintings.", {"opened in": REL, "1990": ARG2}),
        # an existential "there"
        ("There are three bridges over the river.", {"are": REL, "three bridges": ARG2}),
        # an imperative has no subject to take
        ("Open the lid and pour the water.", {"pour": REL, "the water": ARG2}),
        # a relation in pieces holds words of two clauses
        (
            "This stage ends when the placenta has been delivered.",
            {"ends when": REL, "has been": REL, "the placenta": ARG2, "delivered": ARG2},
        ),
        # the subject holds a word the row already labels
        (
            "The settlers from Kent arrived in the region.",
            {"Kent": ARG2, "arrived in": REL, "the region": ARG2},
        ),
    ],
)
def test_a_row_without_a_subject_is_left_alone_otherwise(
    nlp, text: str, parts: dict[str, int]
) -> None:
    assert subjected(nlp, text, parts) is None


def joined(text: str, parts: dict[str, int] | list[int]) -> dict[int, str] | None:
    """:func:`after` :func:`pieces_joined`."""
    return after(pieces_joined, None, text, parts)


def test_a_parts_pieces_joined_by_commas_and_conjunctions_are_read_whole() -> None:
    text = "Dishes are cooked with soy sauce, vinegar, and sugar in Oberhof, Germany."
    # the tagger's row: "Dishes | are cooked with | soy sauce vinegar sugar"
    parts = {"Dishes": ARG1, "are cooked with": REL, "soy sauce": ARG2, "vinegar": ARG2}
    row, words = labelled(text, parts)
    row[[k for k, w in enumerate(words) if w.text(text) == "sugar"]] = ARG2
    out = pieces_joined(row, text, words)
    assert by_label(text, words, out)[ARG2] == "soy sauce , vinegar , and sugar"
    # "Oberhof Germany" as a subject
    assert joined(
        "Oberhof, Germany hosted the championships.",
        {"Oberhof": ARG1, "Germany": ARG1, "hosted": REL, "the championships": ARG2},
    ) == {ARG1: "Oberhof , Germany", REL: "hosted", ARG2: "the championships"}


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        # a content word in the gap: the tagger left it out of the part
        (
            "Dishes are cooked with soy sauce, vinegar and sugar.",
            {"Dishes": ARG1, "are cooked with": REL, "soy sauce": ARG2, "and sugar": ARG2},
        ),
        # a bracket is not joined: it would open what the part does not close
        (
            "The unit (I/O) maps memory.",
            {"The unit": ARG1, "I/O": ARG1, "maps": REL, "memory": ARG2},
        ),
        # a gap longer than two words
        (
            "They sell tea, , , and coffee.",
            {"They": ARG1, "sell": REL, "tea": ARG2, "coffee": ARG2},
        ),
        # the gap holds another part's word
        (
            "Smith and Jones founded the firm.",
            {"Smith": ARG1, "and": REL, "Jones": ARG1, "founded": REL, "the firm": ARG2},
        ),
    ],
)
def test_a_parts_pieces_are_left_apart_otherwise(text: str, parts: dict[str, int]) -> None:
    assert joined(text, parts) is None


def ended(nlp, text: str, parts: dict[str, int]) -> dict[int, str] | None:
    """:func:`after` :func:`object_completed`, parts as whole text."""
    return after(object_completed, nlp, text, parts, whole=True)


@pytest.mark.parametrize(
    ("text", "parts", "expected"),
    [
        # "since" heads its phrase though tagged a conjunction
        (
            "The Kremlin has served as the main residence of the rulers since the 14th century.",
            {
                "The Kremlin": ARG1,
                "has served as": REL,
                "the main residence of the rulers since": ARG2,
            },
            "the main residence of the rulers since the 14th century",
        ),
        (
            "This arena is the home ground for the Austrian club, Red Bull Salzburg.",
            {"This arena": ARG1, "is": REL, "the home ground for": ARG2},
            "the home ground for the Austrian club, Red Bull Salzburg",
        ),
    ],
)
def test_an_object_ending_on_a_preposition_takes_its_phrase(
    nlp, text: str, parts: dict[str, int], expected: str
) -> None:
    out = ended(nlp, text, parts)
    assert out is not None and out[ARG2] == expected


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        # the object does not end on a preposition
        ("The arena is the home ground.", {"The arena": ARG1, "is": REL, "the home ground": ARG2}),
        # a stranded preposition governs nothing after it
        (
            "This is the town she grew up in.",
            {"This": ARG1, "is": REL, "the town she grew up in": ARG2},
        ),
        # the phrase holds a word the row already labels
        (
            "The arena is the home ground for the club.",
            {"The arena": ARG1, "is": REL, "the home ground for": ARG2, "club": ARG1},
        ),
        # no object
        ("The arena opened.", {"The arena": ARG1, "opened": REL}),
    ],
)
def test_an_object_ending_otherwise_is_left_alone(nlp, text: str, parts: dict[str, int]) -> None:
    assert ended(nlp, text, parts) is None


def test_a_relative_clauses_subject_pieces_are_kept_inside_its_antecedent(nlp) -> None:
    """The rules extractor reads a relative clause as said of the entity its antecedent
    describes; the tagger's subject pieces are still kept only inside the antecedent's own
    phrase, or an appositive's words join the subject ("Native the Valricos | lived in")."""
    text = "It was home to the Native American tribe, the Valricos, who lived in the valley."
    parts = {"Native": ARG1, "the Valricos": ARG1, "lived in": REL, "the valley": ARG2}
    assert read(nlp, text, parts) == {ARG1: "the Valricos", REL: "lived in", ARG2: "the valley"}


def test_a_relation_of_determiners_alone_is_the_implicit_is(nlp) -> None:
    """ "Lyon, the third largest city of France, …" gave "Lyon | the | third largest city of
    France": a hypothesis with no verb."""
    text = "Lyon, the third largest city of France, is known for its food."
    parts = {"Lyon": ARG1, "the": REL, "third largest city of France": ARG2}
    row, words = labelled(text, parts)
    doc = nlp(text)
    out = relation_implicit(row, doc, words, word_of_tokens(doc, words))
    assert by_label(text, words, out) == {
        ARG1: "Lyon",
        REL: "",
        ARG2: "the third largest city of France",
    }
    assert [SENTINELS[k] for k in range(len(SENTINELS)) if out[len(words) + k] == REL] == ["[is]"]
    # a verb in the relation, or determiners not right before the object: as the tagger wrote
    for parts in (
        {"Lyon": ARG1, "is known for": REL, "its food": ARG2},
        {"Lyon": ARG1, "the": REL, "France": ARG2},
    ):
        assert after(relation_implicit, nlp, text, parts) is None


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        # the tagger's subject for an order is one of its complements
        ("Rinse the filter every two weeks.",
         {"filter": ARG1, "Rinse": REL, "every two weeks": ARG2}),
        ("Place a towel in the sink to protect the glasses.",
         {"a towel": ARG1, "the sink": ARG1, "Place": REL}),
        # a verb whose doer is the order's: "to enable", "or disable"
        ("In the Shut down options, toggle the switch to enable or disable it.",
         {"the switch": ARG1, "enable": REL, "disable it": ARG2}),
        # an order coordinated with another
        ("Preheat the oven and grease a baking tray.",
         {"the oven": ARG1, "grease": REL, "a baking tray": ARG2}),
        # a preposition governed by the order
        ("Preheat a gas grill to medium heat.",
         {"a gas grill": ARG1, "to": REL, "medium heat": ARG2}),
    ],
)  # fmt: skip
def test_a_row_of_an_order_is_dropped(nlp, text: str, parts: dict[str, int]) -> None:
    assert read(nlp, text, parts) is None


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("Paris hosts the games and draws millions.",
         {"Paris": ARG1, "draws": REL, "millions": ARG2}),
        # a subject or an auxiliary makes it no order
        ("You should vacuum the filter every two weeks.",
         {"You": ARG1, "should vacuum": REL, "the filter": ARG2}),
        ("The company plans to expand its fleet.",
         {"The company": ARG1, "plans to expand": REL, "its fleet": ARG2}),
        ("Residents vacuum the filters every week.",
         {"Residents": ARG1, "vacuum": REL, "the filters": ARG2}),
    ],
)  # fmt: skip
def test_a_row_of_a_clause_with_a_doer_is_kept(nlp, text: str, parts: dict[str, int]) -> None:
    row = read(nlp, text, parts)
    assert row is not None and row[ARG1] == next(p for p, lab in parts.items() if lab == ARG1)


def test_a_subject_the_verb_governs_is_dropped_with_its_row(nlp) -> None:
    # the tagger's "snowfall | provides information on | ∅": the verb's subject is "Passage 1"
    text = "Passage 1 provides information on snowfall in Indianapolis and Gary."
    assert read(nlp, text, {"snowfall": ARG1, "provides information on": REL}) is None
    kept = read(nlp, text, {"Passage 1": ARG1, "provides": REL, "information": ARG2})
    assert kept == {ARG1: "Passage 1", REL: "provides", ARG2: "information"}
    # a subject before the verb is no complement of it ("the report" of "which Smith wrote")
    text = "The report that Smith wrote was published in May."
    kept = read(nlp, text, {"The report": ARG1, "wrote": REL})
    assert kept is not None and kept[ARG1] == "The report"


def distributed(nlp, text: str, parts: dict[str, int]) -> list[dict[int, str]]:
    row, words = labelled(text, parts)
    doc = nlp(text)
    return [
        by_label(text, words, r)
        for r in subjects_distributed(row, doc, words, word_of_tokens(doc, words))
    ]


def test_a_coordinated_subject_gives_a_row_per_conjunct(nlp) -> None:
    text = "Takeout and catering are available for groups."
    parts = {"Takeout and catering": ARG1, "are available for": REL, "groups": ARG2}
    assert [r[ARG1] for r in distributed(nlp, text, parts)] == ["Takeout", "catering"]
    assert all(
        r[REL] == "are available for" and r[ARG2] == "groups" for r in distributed(nlp, text, parts)
    )
    # a conjunct keeps its own modifiers, not the others' nor the commas
    text = "Fever, cough and fatigue are common symptoms."
    parts = {"Fever, cough and fatigue": ARG1, "are": REL, "common symptoms": ARG2}
    assert [r[ARG1] for r in distributed(nlp, text, parts)] == ["Fever", "cough", "fatigue"]
    text = "The president and the treasurer of the club resigned."
    parts = {"The president and the treasurer of the club": ARG1, "resigned": REL}
    assert [r[ARG1] for r in distributed(nlp, text, parts)] == [
        "The president",
        "the treasurer of the club",
    ]


def test_a_subject_that_is_one_name_or_no_coordination_gives_the_row(nlp) -> None:
    # names joined by "&" are one firm
    text = "Procter & Gamble sells soap."
    parts = {"Procter & Gamble": ARG1, "sells": REL, "soap": ARG2}
    assert [r[ARG1] for r in distributed(nlp, text, parts)] == ["Procter & Gamble"]
    text = "The pollution index rose."
    assert [
        r[ARG1] for r in distributed(nlp, text, {"The pollution index": ARG1, "rose": REL})
    ] == ["The pollution index"]
    # a conjunct the row leaves out of its subject: the row as the tagger wrote it
    text = "Takeout and catering are available."
    parts = {"catering": ARG1, "are available": REL}
    assert [r[ARG1] for r in distributed(nlp, text, parts)] == ["catering"]


def rows_added(adder, nlp, text: str, rows: list[dict[str, int]]) -> list[dict[int, str]]:
    """The rows ``adder`` (:func:`existentials_added`, :func:`clauses_added`) adds to ``rows``
    (given as :func:`labelled` parts)."""
    doc = nlp(text)
    words = tokenize_words(text)
    given = [labelled(text, parts)[0] for parts in rows]
    return [by_label(text, words, r) for r in adder(given, doc, words, word_of_tokens(doc, words))]


def added(nlp, text: str, rows: list[dict[str, int]]) -> list[dict[int, str]]:
    """The rows :func:`existentials_added` adds to ``rows``."""
    return rows_added(existentials_added, nlp, text, rows)


def test_an_existential_clause_no_row_states_is_added(nlp) -> None:
    text = 'There was no British commander named "Robertson" who led the British forces.'
    # the tagger's row of the relative clause only
    rows = [
        {'no British commander named "Robertson"': ARG1, "led": REL, "the British forces": ARG2}
    ]
    assert added(nlp, text, rows) == [
        {ARG1: "There", REL: "was", ARG2: 'no British commander named " Robertson "'}
    ]
    # the auxiliaries join the relation; what modifies the verb ("since 2001") is no part of
    # what exists
    text = "There have been three floods since 2001."
    assert added(nlp, text, []) == [{ARG1: "There", REL: "have been", ARG2: "three floods"}]


def test_no_existential_is_added_where_a_row_states_it_or_the_sentence_does_not(nlp) -> None:
    text = "There are three bridges over the river."
    rows = [{"There": ARG1, "are": REL, "three bridges over the river": ARG2}]
    assert added(nlp, text, rows) == []
    assert added(nlp, "If there is a fire, leave the building.", []) == []
    assert added(nlp, "The bridge is over there.", []) == []


def clause_rows(nlp, text: str, rows: list[dict[str, int]]) -> list[dict[int, str]]:
    """The rows :func:`clauses_added` adds to ``rows``."""
    return rows_added(clauses_added, nlp, text, rows)


def test_a_clause_no_row_states_is_added(nlp) -> None:
    text = "Corça was one of two capitals (the other being the port city Vlorë)."
    rows = [{"Corça": ARG1, "was one of": REL, "two capitals": ARG2}]
    assert clause_rows(nlp, text, rows) == [
        {ARG1: "the other", REL: "being", ARG2: "the port city Vlorë"}
    ]
    # the tagger's row of the relative clause only: the main clause, its object without the
    # relative clause, a hyphenated word kept whole at the object's end
    text = (
        "Joni Mitchell, 76, is a renowned singer-songwriter who has been inducted into the "
        "Hall of Fame."
    )
    rows = [{"Joni Mitchell": ARG1, "has been inducted into": REL, "the Hall of Fame": ARG2}]
    assert clause_rows(nlp, text, rows) == [
        {ARG1: "Joni Mitchell , 76", REL: "is", ARG2: "a renowned singer-songwriter"}
    ]
    # the first preposition joins the relation, the other phrases the object
    text = "Apple was founded by Steve Jobs in 1976; Oracle was founded by Robert Noyce in 1977."
    rows = [{"Apple": ARG1, "was founded by": REL, "Steve Jobs in 1976": ARG2}]
    assert clause_rows(nlp, text, rows) == [
        {ARG1: "Oracle", REL: "was founded by", ARG2: "Robert Noyce in 1977"}
    ]


def test_no_clause_is_added_where_a_row_states_it_or_it_names_nothing(nlp) -> None:
    text = "Apple was founded by Steve Jobs in 1976."
    rows = [{"Apple": ARG1, "was founded by": REL, "Steve Jobs in 1976": ARG2}]
    assert clause_rows(nlp, text, rows) == []
    # a pronoun subject, a relative clause, an unasserted clause, a clause without object
    assert (
        clause_rows(
            nlp,
            "The restaurant offers reservations, but they are not required.",
            [{"The restaurant": ARG1, "offers": REL, "reservations": ARG2}],
        )
        == []
    )
    assert clause_rows(nlp, "It is important to title your graph.", []) == []
    assert clause_rows(nlp, "If the museum is closed on Mondays, visit the park.", []) == []
    assert clause_rows(nlp, "The museum closed.", []) == []
    text = "The band that Noel Gallagher founded plays tonight."
    assert clause_rows(nlp, text, [{"The band": ARG1, "plays": REL, "tonight": ARG2}]) == []


def kept_rows(nlp, text: str, rows: list[dict[str, int]]) -> list[int]:
    """The indices of ``rows`` (given as :func:`labelled` parts) :func:`fragments_dropped`
    keeps."""
    doc = nlp(text)
    words = tokenize_words(text)
    given = [labelled(text, parts)[0] for parts in rows]
    return fragments_dropped(given, doc, words, word_of_tokens(doc, words))


def test_a_verbless_piece_of_a_longer_row_is_dropped(nlp) -> None:
    text = "The pollution index is 61% worse than the national average."
    whole = {"The pollution index": ARG1, "is": REL, "61% worse than the national average": ARG2}
    piece = {"index": ARG1, "worse than": REL, "the national average": ARG2}
    assert kept_rows(nlp, text, [whole, piece]) == [0]
    assert kept_rows(nlp, text, [piece, whole]) == [1]
    # alone, the piece is the tagger's only reading: kept
    assert kept_rows(nlp, text, [piece]) == [0]


def test_a_piece_with_a_verb_or_words_of_its_own_stays(nlp) -> None:
    text = "Young has 5 sacks on the year, compared to 9 sacks before."
    whole = {"Young": ARG1, "has": REL, "5 sacks on the year, compared to 9 sacks before": ARG2}
    # a verb in its relation: a claim of its own
    assert kept_rows(nlp, text, [whole, {"Young": ARG1, "has": REL, "5 sacks": ARG2}]) == [0, 1]
    # a word no other row holds ("before" left out of the longer row)
    text = "The pollution index is worse than the national average before."
    longer = {"The pollution index": ARG1, "is": REL, "worse than the national average": ARG2}
    piece = {"index": ARG1, "worse than": REL, "the national average before": ARG2}
    assert kept_rows(nlp, text, [longer, piece]) == [0, 1]
