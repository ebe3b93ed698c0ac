"""PTB detokenisation with offsets, triple alignment, and the OpenIE training-set loaders."""

from __future__ import annotations

from collections import Counter

import pytest

from enoki_hd.igl.align import (
    Alignment,
    align_triple,
    detokenize,
    load_lsoie_gpt,
    load_oie2016,
)
from enoki_hd.igl.labels import ARG1, ARG2, REL
from enoki_hd.text import tokenize_words
from enoki_hd.types import Span

# ---------------------------------------------------------------------------------------------
# Detokenisation


@pytest.mark.parametrize(
    ("ptb", "text", "spans"),
    [
        ("people 's", "people's", [(0, 6), (6, 8)]),
        ("-LRB- 1989 -RRB-", "(1989)", [(0, 1), (1, 5), (5, 6)]),
        (
            "`` Hello , '' he said .",
            '"Hello," he said.',
            [(0, 1), (1, 6), (6, 7), (7, 8), (9, 11), (12, 16), (16, 17)],
        ),
        (
            "He did n't pay $ 5 ;",
            "He didn't pay $5;",
            [(0, 2), (3, 6), (6, 9), (10, 13), (14, 15), (15, 16), (16, 17)],
        ),
        (
            "` quoted ' a -- b",
            "'quoted' a -- b",
            [(0, 1), (1, 7), (7, 8), (9, 10), (11, 13), (14, 15)],
        ),
        ('a " b " c', 'a "b" c', [(0, 1), (2, 3), (3, 4), (4, 5), (6, 7)]),
        ("-LSB- 3 -RSB- 50 %", "[3] 50%", [(0, 1), (1, 2), (2, 3), (4, 6), (6, 7)]),
    ],
)
def test_detokenize_gives_natural_text_and_token_offsets(ptb, text, spans):
    tokens = ptb.split()
    got_text, got_spans = detokenize(tokens)
    assert got_text == text
    assert got_spans == [Span(a, b) for a, b in spans]
    escapes = {
        "-LRB-": "(",
        "-RRB-": ")",
        "-LSB-": "[",
        "-RSB-": "]",
        "``": '"',
        "''": '"',
        "`": "'",
    }
    assert [s.text(got_text) for s in got_spans] == [escapes.get(t, t) for t in tokens]


def test_detokenize_empty():
    assert detokenize([]) == ("", [])


# ---------------------------------------------------------------------------------------------
# Alignment


def align(text: str, subject: str, relation: str, obj: str):
    words = tokenize_words(text)
    dropped: Counter[str] = Counter()
    alignment = align_triple(text, words, subject, relation, obj, dropped=dropped)

    def part(indices):
        return " ".join(words[i].text(text) for i in indices)

    if alignment is None:
        return None, dropped
    return (
        part(alignment.subject),
        alignment.sentinels,
        part(alignment.relation),
        part(alignment.object),
        alignment.exact,
    ), dropped


TRACK = "The track was in excellent condition, running through the trees."


def test_exact_parts_are_found_whole_and_case_insensitive():
    words = tokenize_words(TRACK)
    alignment = align_triple(TRACK, words, "the track", "was in", "excellent condition")
    assert alignment == Alignment((0, 1), (2, 3), (4, 5), (), exact=True, cost=0.0)
    assert alignment.row(len(words)) == [ARG1, ARG1, REL, REL, ARG2, ARG2] + [0] * 6 + [0, 0, 0]
    # a word inside a longer word is no match: "rain" is not in "trees" or "running"
    assert align(TRACK, "The track", "was in", "rain")[1] == Counter(object_unaligned=1)


def test_reordered_object_is_aligned_as_two_chunks():
    got, _ = align(
        "In some animals, the nerves form a nerve net.",
        "the nerves",
        "form",
        "a nerve net in some animals",
    )
    assert got == ("the nerves", (), "form", "In some animals a nerve net", False)


def test_paraphrase_with_a_dropped_function_word():
    got, _ = align(
        "Another explanation lies in the forces of the Sun and Moon.",
        "Another explanation",
        "lies in",
        "the forces of the Sun and the Moon",
    )
    assert got == ("Another explanation", (), "lies in", "the forces of the Sun and Moon", False)
    # content words match after normalisation (plural, possessive)
    got, _ = align(
        "The church stands against homophobia.", "the Church", "stand against", "homophobia"
    )
    assert got == ("The church", (), "stands against", "homophobia", False)


def test_implicit_relation_words_go_to_the_sentinels():
    paris = "Paris, the capital of France, is big."
    assert align(paris, "Paris", "is the capital of", "France")[0] == (
        "Paris",
        (0,),
        "the capital of",
        "France",
        False,
    )
    assert align(paris, "Paris", "is", "big")[0] == ("Paris", (), "is", "big", True)
    # any form of "be" goes to [is]; "of" and "from" to their own sentinels
    born = "Sereno, born in Manila, sings."
    assert align(born, "Sereno", "was born in", "Manila")[0] == (
        "Sereno",
        (0,),
        "born in",
        "Manila",
        False,
    )
    assert align("Smith (Texas) sings.", "Smith", "is from", "Texas")[0] == (
        "Smith",
        (0, 2),
        "",
        "Texas",
        False,
    )
    words = tokenize_words(born)
    alignment = align_triple(born, words, "Sereno", "was born in", "Manila")
    assert alignment is not None
    assert alignment.row(len(words))[-3:] == [REL, 0, 0]


@pytest.mark.parametrize(
    ("text", "triple", "reason"),
    [
        ("The prime has 17 digits.", ("Berlin", "has", "17 digits"), "subject_unaligned"),
        ("The prime has 17 digits.", ("The prime", "has", "18 digits"), "object_unaligned"),
        # content word absent
        (
            "The prime has 17 digits.",
            ("17 digits", "are a type of", "the prime"),
            "relation_unaligned",
        ),
        # a relation of function words only must match whole
        ("The prime has 17 digits.", ("17 digits", "is had by", "the prime"), "relation_unaligned"),
        # negations are never dropped
        ("Fiji ratified it in 1995.", ("Fiji", "did not ratify", "it"), "relation_unaligned"),
        # too loose: "was in exile during" → "[is] exile" leaves two function words out
        (
            "During his exile, Pushkin wrote.",
            ("Pushkin", "was in exile during", "his exile"),
            "relation_unaligned",
        ),
        # subject and object can only take the same words
        ("As a person ages the skin dries.", ("a person", "ages", "as a person"), "overlap"),
    ],
)
def test_unalignable_triples_are_dropped_with_a_reason(text, triple, reason):
    got, dropped = align(text, *triple)
    assert got is None
    assert dropped == Counter({reason: 1})


def test_empty_object_is_allowed():
    assert align("39 people have been rescued.", "39 people", "have been rescued", "")[0] == (
        "39 people",
        (),
        "have been rescued",
        "",
        True,
    )


# ---------------------------------------------------------------------------------------------
# Loaders

LSOIE = (
    "source\ttarget\n"
    "The track was in excellent condition , running through the trees .\t"
    "subject <is> The track <and> relation <is> was in <and> object <is> excellent condition"
    " <then> subject <is> The track <and> relation <is> running through <and> object <is> the trees"
    " <then> subject <is> The track <and> relation <is> was in <and> object <is> excellent condition"
    " <then> subject <is> The track <and> relation <is> was in <and> object <is> excellent"
    " <then> garbage\n"
    "Plans to artificially oxygenate areas of the Baltic Sea have been proposed .\t"
    "subject <is> Plans <and> relation <is> have been proposed <and> object <is> \n"
    "`` Rahab '' -LRB- 1989 -RRB- is Lisa 's dog .\t"
    '"subject <is> ""Rahab"" <and> relation <is> is <and> object <is> Lisa \'s dog'
    ' <then> subject <is> Rahab <and> relation <is> are a type of <and> object <is> animals"\n'
    "Herat , capital of the Kartid dynasty , fell .\t"
    "subject <is> Herat <and> relation <is> is capital of <and> object <is> the Kartid dynasty\n"
    "Nothing aligns here .\tsubject <is> Berlin <and> relation <is> is <and> object <is> big\n"
)


def test_load_lsoie_gpt(tmp_path):
    path = tmp_path / "lsoie.tsv"
    path.write_text(LSOIE, encoding="utf-8")
    examples, report = load_lsoie_gpt(path)
    assert [e.text for e in examples] == [
        "The track was in excellent condition, running through the trees.",
        '"Rahab" (1989) is Lisa\'s dog.',
        "Herat, capital of the Kartid dynasty, fell.",
    ]
    assert [e.id for e in examples] == ["lsoie_gpt:2", "lsoie_gpt:4", "lsoie_gpt:5"]
    track = examples[0]
    assert track.word_texts()[:6] == ["The", "track", "was", "in", "excellent", "condition"]
    tail = [0] * 6 + [0, 0, 0]
    # the chain "was in excellent" → "was in excellent condition" reads coarse to fine, where
    # its first row stood; the duplicate is gone
    assert track.rows == [
        [ARG1, ARG1, REL, REL, ARG2, 0, *tail],
        [ARG1, ARG1, REL, REL, ARG2, ARG2, *tail],
        [ARG1, ARG1, 0, 0, 0, 0, 0, REL, REL, ARG2, ARG2, 0, 0, 0, 0],
    ]
    assert track.parents == [None, 0, None]
    rahab = examples[1]
    assert rahab.word_texts() == ['"', "Rahab", '"', "(", "1989", ")", "is", "Lisa's", "dog", "."]
    assert rahab.rows == [[ARG1, ARG1, ARG1, 0, 0, 0, REL, ARG2, ARG2, 0, 0, 0, 0]]
    assert examples[2].rows == [[ARG1, 0, REL, REL, ARG2, ARG2, ARG2, 0, 0, 0, REL, 0, 0]]
    coverage = report.sources["lsoie_gpt"]
    assert coverage.to_dict() == {
        "sentences": 4,
        "sentences_with_rows": 3,
        "sentences_skipped": 1,
        "triples": 9,
        "aligned": 5,
        "exact": 4,
        "implicit": 1,
        "coverage": round(5 / 9, 4),
        "dropped": {
            "duplicate": 1,
            "malformed": 1,
            "relation_unaligned": 1,
            "subject_unaligned": 1,
        },
    }
    assert "lsoie_gpt: 3/4 sentences with rows, 5/9 triples aligned (55.6%" in report.format()


def test_load_lsoie_gpt_checks_the_header(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_text("sentence\ttriples\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.tsv:1: expected the header 'source<TAB>target'"):
        load_lsoie_gpt(path)


OIE2016_HEADER = "word_id\tword\tpred\tpred_id\thead_pred_id\tsent_id\trun_id\tlabel\n"


def conll_block(words: str, labels: str, sent_id: int, run_id: int) -> str:
    rows = [
        f"{i}\t{w}\tp\t[0]\t0\t{sent_id}\t{run_id}\t{x}"
        for i, (w, x) in enumerate(zip(words.split(), labels.split(), strict=True))
    ]
    return "\n".join(rows) + "\n\n"


def test_load_oie2016(tmp_path):
    dog = "Barbara 's dog left -LRB- in 1989 -RRB- ."
    text = (
        OIE2016_HEADER
        + conll_block(dog, "A0-B A0-I A0-I P-B O A1-B A1-I O O", 0, 0)
        + conll_block(dog, "A0-B A0-I A0-I P-B O A1-B A1-I O O", 0, 1)
        + conll_block(dog, "O O A1-B P-B O O O O O", 0, 2)
        + conll_block("It did n't rain .", "A0-B P-B P-I A1-B O", 1, 3)
    )
    path = tmp_path / "wiki.conll"
    path.write_text(text, encoding="utf-8")
    examples, report = load_oie2016(path)
    first, second = examples
    assert first.text == "Barbara's dog left (in 1989)."
    assert first.word_texts() == ["Barbara's", "dog", "left", "(", "in", "1989", ")", "."]
    assert first.rows == [[ARG1, ARG1, REL, 0, ARG2, ARG2, 0, 0, 0, 0, 0]]
    assert (second.text, second.rows) == ("It didn't rain.", [[ARG1, REL, ARG2, 0, 0, 0, 0]])
    assert [e.id for e in examples] == ["oie2016:0", "oie2016:1"]
    coverage = report.sources["oie2016"]
    assert (coverage.sentences, coverage.triples, coverage.aligned) == (2, 4, 2)
    assert coverage.dropped == Counter(duplicate=1, missing_subject=1)
