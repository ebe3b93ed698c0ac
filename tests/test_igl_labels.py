"""Grid labels: the label set, grid examples, teacher facts → rows, teacher JSONL, OIE4 files."""

from __future__ import annotations

import json
from collections import Counter
from itertools import islice
from pathlib import Path

import pytest

from enoki_hd.igl.labels import (
    ARG1,
    ARG2,
    LABEL2ID,
    LABELS,
    LOC_TMP,
    NONE,
    OIE4_SENTINELS,
    REL,
    SENTINELS,
    TYPE,
    GridExample,
    chain_parents,
    facts_to_example,
    implicit_relation_words,
    read_oie4,
    read_teacher_jsonl,
    write_oie4,
)
from enoki_hd.text import tokenize_words
from enoki_hd.types import Fact, Span

PARIS = "Paris, the capital of France, is big."
# words: Paris , the capital of France , is big .   (10) + [is] [of] [from]


def paris_facts() -> list[Fact]:
    """Facts as the rules extractor writes them for PARIS (spans into PARIS)."""
    return [
        Fact("f0.0", 0, "Paris", "is", "capital", [Span(0, 5)], [], [Span(11, 18)]),
        Fact(
            "f0.1",
            0,
            "Paris",
            "is",
            "capital of France",
            [Span(0, 5)],
            [],
            [Span(11, 28)],
            parent="f0.0",
            delta=[Span(22, 28)],
        ),
        Fact("f0.2", 0, "Paris", "is", "big", [Span(0, 5)], [Span(30, 32)], [Span(33, 36)]),
    ]


PARIS_ROWS = [
    [ARG1, 0, 0, ARG2, 0, 0, 0, 0, 0, 0, REL, 0, 0],
    [ARG1, 0, 0, ARG2, ARG2, ARG2, 0, 0, 0, 0, REL, 0, 0],
    [ARG1, 0, 0, 0, 0, 0, 0, REL, ARG2, 0, 0, 0, 0],
]


def test_label_set_matches_the_contract():
    assert LABELS == ("NONE", "ARG1", "REL", "ARG2", "LOC_TMP", "TYPE")
    assert [LABEL2ID[x] for x in LABELS] == [NONE, ARG1, REL, ARG2, LOC_TMP, TYPE] == list(range(6))
    assert SENTINELS == ("[is]", "[of]", "[from]")
    assert OIE4_SENTINELS == ("[unused1]", "[unused2]", "[unused3]")


def test_grid_example_round_trips_and_validates():
    words = tokenize_words("Suede formed in Bath.")
    example = GridExample(
        "Suede formed in Bath.",
        words,
        [[ARG1, REL, REL, ARG2, 0, 0, 0, 0], [ARG1, REL, 0, 0, 0, 0, 0, 0]],
        [None, None],
        "test",
        "x:0",
    )
    assert GridExample.from_dict(json.loads(json.dumps(example.to_dict()))) == example
    with pytest.raises(ValueError, match=r"row 0 has 7 labels, expected 8 \(5 words \+ 3"):
        GridExample("Suede formed in Bath.", words, [[0] * 7], [None], "test")
    with pytest.raises(ValueError, match="one parent"):
        GridExample("Suede formed in Bath.", words, [[0] * 8], [], "test")
    with pytest.raises(ValueError, match="parent 0, not another row"):
        GridExample("Suede formed in Bath.", words, [[0] * 8], [0], "test")


@pytest.mark.parametrize(
    ("relation", "covered", "expected"),
    [
        ("is", "", ["is"]),
        ("is", "is", []),
        ("is the capital of", "the capital of", ["is"]),
        ("is from", "", ["is", "from"]),
        ("of", "", ["of"]),
        ("was born in", "born in", []),
        ("lives in", "lives in", []),
    ],
)
def test_implicit_relation_words(relation, covered, expected):
    assert implicit_relation_words(relation, covered) == expected


def test_facts_to_example_labels_words_and_sentinels():
    example = facts_to_example(PARIS, paris_facts(), source="teacher_jsonl", id="p")
    assert example.word_texts() == [
        "Paris",
        ",",
        "the",
        "capital",
        "of",
        "France",
        ",",
        "is",
        "big",
        ".",
    ]
    assert example.rows == PARIS_ROWS
    assert example.parents == [None, 0, None]
    assert (example.source, example.id) == ("teacher_jsonl", "p")


def test_facts_to_example_drops_unlabelable_facts_and_relinks_parents():
    facts = paris_facts()
    # f0.1 loses its subject; a refinement of it then hangs on f0.0
    facts[1].subject_spans = []
    facts.append(
        Fact(
            "f0.3",
            0,
            "Paris",
            "is",
            "capital of France",
            [Span(0, 5)],
            [],
            [Span(11, 28)],
            parent="f0.1",
        )
    )
    example = facts_to_example(PARIS, facts, source="t")
    assert example.rows == [PARIS_ROWS[0], PARIS_ROWS[2], PARIS_ROWS[1]]
    assert example.parents == [None, None, 0]


def test_facts_to_example_gives_a_repeated_fact_no_row_and_its_children_the_first():
    # a hand-made teacher file that states "Paris is big" twice gave two gold rows alike, and
    # the Hungarian loss then taught the tagger to say one fact at two depths
    facts = paris_facts()
    again = Fact("f0.3", 0, "Paris", "is", "capital", [Span(0, 5)], [], [Span(11, 18)])
    child = Fact(
        "f0.4", 0, "Paris", "is", "capital of France", [Span(0, 5)], [], [Span(11, 28)],
        parent="f0.3",
    )  # fmt: skip
    dropped: Counter[str] = Counter()
    example = facts_to_example(
        PARIS, [facts[0], facts[2], again, child], source="t", dropped=dropped
    )
    assert example.rows == [PARIS_ROWS[0], PARIS_ROWS[2], PARIS_ROWS[1]]
    assert example.parents == [None, None, 0]
    assert dropped == {"duplicate": 1}
    # a refinement that repeats its own parent's row is the parent: one row, no self-link
    same = Fact(
        "f0.5", 0, "Paris", "is", "capital", [Span(0, 5)], [], [Span(11, 18)], parent="f0.0"
    )
    dropped = Counter()
    example = facts_to_example(PARIS, [facts[0], same], source="t", dropped=dropped)
    assert (example.rows, example.parents, dropped) == ([PARIS_ROWS[0]], [None], {"duplicate": 1})


def test_teacher_facts_whose_spans_miss_their_strings_are_left_out_and_counted(tmp_path, caplog):
    # UTF-8 byte offsets from another language's tool: after "Café" (5 bytes, 4 characters)
    # every span lands one character late, "pened" for "opened", and trained a wrong row
    text = "Café Lumen opened in 1990. It is small."
    chars = [
        Fact("f0.0", 0, "Café Lumen", "opened in", "1990", [Span(0, 10)], [Span(11, 20)], [Span(21, 25)]),
        Fact("f1.0", 1, "It", "is", "small", [Span(27, 29)], [Span(30, 32)], [Span(33, 38)]),
    ]  # fmt: skip
    in_bytes = [
        Fact("f0.0", 0, "Café Lumen", "opened in", "1990", [Span(0, 11)], [Span(12, 21)], [Span(22, 26)]),
        Fact("f0.1", 0, "Café Lumen", "opened in", "1990 exactly", [Span(0, 11)], [Span(12, 21)], [Span(22, 26)], parent="f0.0"),
        Fact("f1.0", 1, "It", "is", "small", [Span(28, 30)], [Span(31, 33)], [Span(34, 39)]),
    ]  # fmt: skip
    assert text[11:20] == "opened in" and text[12:21] == "pened in "
    good = _write_lines(
        tmp_path / "chars.jsonl",
        [json.dumps({"text": text, "facts": [f.to_dict() for f in chars]})],
    )
    bad = _write_lines(tmp_path / "bytes.jsonl", [json.dumps({"text": text, "facts": [f.to_dict() for f in in_bytes]})] * 2)  # fmt: skip
    counts: Counter[str] = Counter()
    assert [len(e.rows) for e in read_teacher_jsonl(good, counts=counts)] == [1, 1]
    assert counts == {"facts": 2, "rows": 2, "no_spans": 0, "no_subject_or_relation": 0}
    counts = Counter()
    with caplog.at_level("WARNING", logger="enoki_hd.igl.labels"):
        examples = list(read_teacher_jsonl(bad, counts=counts))
    # the second sentence's spans are one character late too ("t " for "It"): every fact goes
    assert [len(e.rows) for e in examples] == [0, 0, 0, 0]
    assert counts == {
        "facts": 6, "rows": 0, "no_spans": 0, "spans_do_not_match": 6, "no_subject_or_relation": 0,
    }  # fmt: skip
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1, warnings  # the first one only, each file
    assert warnings[0].startswith(
        f"{bad}:1: fact 'f0.0' left out of training: its relation_spans cover 'pened in ', not words of relation 'opened in'. "
    )
    assert "not UTF-8 byte offsets" in warnings[0]


def test_a_fact_left_out_for_its_spans_hands_its_children_its_parent(tmp_path):
    facts = paris_facts()
    facts.insert(
        1, Fact("g", 0, "Paris", "is", "capital", [Span(1, 6)], [], [Span(11, 18)], parent="f0.0")
    )
    facts[2].parent = "g"  # "capital of France" refines the bad "g", which refines f0.0
    path = _write_lines(
        tmp_path / "t.jsonl", [json.dumps({"text": PARIS, "facts": [f.to_dict() for f in facts]})]
    )
    counts: Counter[str] = Counter()
    (example,) = read_teacher_jsonl(path, counts=counts)
    assert (example.rows, example.parents) == (PARIS_ROWS, [None, 0, None])
    assert counts["spans_do_not_match"] == 1 and counts["rows"] == 3


def test_chain_parents_takes_the_largest_nested_object():
    rows = [
        [ARG1, REL, ARG2, 0, 0, 0, 0, 0],
        [ARG1, REL, ARG2, ARG2, ARG2, 0, 0, 0],
        [ARG1, REL, ARG2, ARG2, 0, 0, 0, 0],
        [ARG1, 0, ARG2, ARG2, ARG2, REL, 0, 0],  # other relation: no parent
    ]
    assert chain_parents(rows) == [None, 2, 0, None]


# ---------------------------------------------------------------------------------------------
# Teacher JSONL


def _write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_teacher_records_give_one_example_per_sentence(tmp_path):
    text = "Suede formed in Bath. " + PARIS
    shift = len("Suede formed in Bath. ")
    facts = [
        Fact("a", 0, "Suede", "formed in", "Bath", [Span(0, 5)], [Span(6, 15)], [Span(16, 20)])
    ]
    for f in paris_facts():
        f.sentence = 1
        for name in ("subject_spans", "relation_spans", "object_spans"):
            setattr(f, name, [Span(s.start + shift, s.end + shift) for s in getattr(f, name)])
        facts.append(f)
    record = {"id": "doc1", "text": text, "facts": [f.to_dict() for f in facts]}
    path = _write_lines(tmp_path / "teacher.jsonl", [json.dumps(record)])
    first, second = read_teacher_jsonl(path)
    assert (first.text, first.id) == ("Suede formed in Bath.", "doc1:0")
    assert first.rows == [[ARG1, REL, REL, ARG2, 0, 0, 0, 0]]
    assert (second.text, second.id, second.rows, second.parents) == (
        PARIS,
        "doc1:1",
        PARIS_ROWS,
        [None, 0, None],
    )


def test_teacher_fact_lines_need_their_text(tmp_path):
    lines = [json.dumps(f.to_dict()) for f in paris_facts()]
    path = _write_lines(tmp_path / "extract.jsonl", lines)
    with pytest.raises(
        ValueError, match=r"facts without their text .* `enoki extract --format teacher` .* text="
    ):
        list(read_teacher_jsonl(path))
    (example,) = read_teacher_jsonl(path, text=PARIS)
    assert (example.text, example.rows, example.parents) == (PARIS, PARIS_ROWS, [None, 0, None])
    assert example.id == "extract:0"


def test_teacher_sentences_without_facts_are_kept_as_negatives_unless_asked(tmp_path):
    record = {"text": PARIS + " It rained.", "facts": [f.to_dict() for f in paris_facts()]}
    path = _write_lines(tmp_path / "t.jsonl", [json.dumps(record)])
    examples = list(read_teacher_jsonl(path))
    assert [(e.text, len(e.rows)) for e in examples] == [(PARIS, 3), ("It rained.", 0)]
    assert [e.text for e in read_teacher_jsonl(path, keep_empty=False)] == [PARIS]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", r"t\.jsonl:2: not valid JSON"),
        ('{"text": 3, "facts": []}', r"t\.jsonl:2: field 'text': expected a string, got int"),
        ('{"text": "A b.", "facts": {}}', r"t\.jsonl:2: field 'facts': expected a list"),
        (
            '{"text": "A b.", "facts": [{"id": "x", "subject": "A"}]}',
            r"t\.jsonl:2: field 'facts\[0\]': missing field 'relation'",
        ),
        (
            '{"text": "A b.", "facts": [{"id": "x", "subject": "A", "relation": "b", '
            '"object": "", "subject_spans": [[0, 9]]}]}',
            r"t\.jsonl:2: field 'facts\[0\]'\.subject_spans\[0\]: span 0:9 lies outside the "
            r"text of length 4 \(spans are character offsets into the text, not UTF-8 byte "
            r"offsets\)$",
        ),
        (
            '{"text": "A b.", "facts": [{"id": "x", "subject": "A", "relation": "b", '
            '"object": "", "relation_spans": [{"start": 2}]}]}',
            r"facts\[0\]'\.relation_spans\[0\]: expected \{'start': int, 'end': int\}",
        ),
        ('{"foo": 1}', r"t\.jsonl:2: neither a \{text, facts\} record nor a fact"),
    ],
)
def test_teacher_jsonl_errors_name_the_line_and_field(tmp_path, line, message):
    good = json.dumps({"text": "A b.", "facts": []})
    path = _write_lines(tmp_path / "t.jsonl", [good, line])
    with pytest.raises(ValueError, match=message):
        list(read_teacher_jsonl(path))


def test_teacher_counts_name_every_fact_that_gave_no_row(tmp_path):
    facts = [f.to_dict() for f in paris_facts()]
    # "It" and "'s" lie in one word "It's": the subject takes it, no relation word is left
    contraction = Fact("f1.0", 1, "It", "'s", "big", [Span(38, 40)], [Span(40, 42)], [Span(43, 46)])
    no_spans = Fact("f1.1", 1, "It", "is", "big", [], [], [])
    records = [
        {"text": PARIS + " It's big.", "facts": [*facts, contraction.to_dict()]},
        {"text": "Rome is old.", "facts": [no_spans.to_dict()]},
        {"text": PARIS, "facts": facts},
    ]
    path = _write_lines(tmp_path / "t.jsonl", [json.dumps(r) for r in records])
    counts: Counter[str] = Counter()
    examples = list(read_teacher_jsonl(path, counts=counts))
    assert [len(e.rows) for e in examples] == [3, 0, 0, 3]
    assert counts == {"facts": 8, "rows": 6, "no_spans": 1, "no_subject_or_relation": 1}
    # a reader that stops early counts only the examples it took
    counts = Counter()
    assert len(list(islice(read_teacher_jsonl(path, counts=counts), 1))) == 1
    assert counts == {"facts": 3, "rows": 3, "no_spans": 0, "no_subject_or_relation": 0}


def test_teacher_parent_must_be_among_the_facts(tmp_path):
    fact = paris_facts()[1].to_dict()
    path = _write_lines(tmp_path / "t.jsonl", [json.dumps({"text": PARIS, "facts": [fact]})])
    with pytest.raises(ValueError, match=r"has parent 'f0\.0', which is not among its facts"):
        list(read_teacher_jsonl(path))


# ---------------------------------------------------------------------------------------------
# OIE4


def test_oie4_round_trip_is_exact_for_rows(tmp_path):
    paris = facts_to_example(PARIS, paris_facts(), source="t")
    words = tokenize_words("Suede formed in Bath in 1989.")
    suede = GridExample(
        "Suede formed in Bath in 1989.",
        words,
        [[ARG1, REL, REL, ARG2, LOC_TMP, LOC_TMP, 0, 0, 0, 0], [ARG1, REL, 0, 0, 0, 0, 0, 0, 0, 0]],
        [None, None],
        "t",
    )
    empty = GridExample("Nothing here.", tokenize_words("Nothing here."), [], [], "t")
    path = tmp_path / "train.oie4"
    write_oie4([paris, suede, empty], path)
    assert path.read_text(encoding="utf-8").split("\n")[:4] == [
        "Paris , the capital of France , is big . [unused1] [unused2] [unused3]",
        "ARG1 NONE NONE ARG2 NONE NONE NONE NONE NONE NONE REL NONE NONE",
        "ARG1 NONE NONE ARG2 ARG2 ARG2 NONE NONE NONE NONE REL NONE NONE",
        "ARG1 NONE NONE NONE NONE NONE NONE REL ARG2 NONE NONE NONE NONE",
    ]
    assert "ARG1 REL REL ARG2 LOC LOC NONE NONE NONE NONE" in path.read_text(encoding="utf-8")
    back = read_oie4(path)
    assert [b.rows for b in back] == [paris.rows, suede.rows, []]
    assert [b.text for b in back] == [
        "Paris , the capital of France , is big .",
        "Suede formed in Bath in 1989 .",
        "Nothing here .",
    ]
    assert [b.word_texts() for b in back] == [e.word_texts() for e in (paris, suede, empty)]
    assert back[0].parents == [None, 0, None]


def test_oie4_reads_openie6_tokens_and_label_aliases(tmp_path):
    path = tmp_path / "openie6.txt"
    path.write_text(
        "the people 's choice won [unused1] [unused2] [unused3]\n"
        "ARG1 ARG1 ARG1 ARG1 REL TIME NONE NONE\n"
        "ARGS NONE NONE NONE REL NONE NONE NONE\n",
        encoding="utf-8",
    )
    (example,) = read_oie4(path)
    # "'s" is two words here ("'" and "s"); both take the token's label
    assert example.word_texts() == ["the", "people", "'", "s", "choice", "won"]
    assert example.rows == [
        [ARG1, ARG1, ARG1, ARG1, ARG1, REL, LOC_TMP, 0, 0],
        [ARG2, 0, 0, 0, 0, REL, 0, 0, 0],
    ]


def test_oie4_errors_name_the_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("a b [unused1] [unused2] [unused3]\nARG1 REL NONE NONE\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.txt:2: 4 labels for 2 words \+ 3 sentinels"):
        read_oie4(path)
    path.write_text("a b [unused1] [unused2] [unused3]\nARG1 VERB NONE NONE NONE\n")
    with pytest.raises(ValueError, match=r"bad\.txt:2: unknown label 'VERB'"):
        read_oie4(path)
    path.write_text("a b\nARG1 REL\n")
    with pytest.raises(ValueError, match=r"bad\.txt:1: a sentence line must end with"):
        read_oie4(path)
