"""Answer sentences the context states word for word (enoki_hd.verify.quoted): which count,
and the exact context span each is found at."""

from __future__ import annotations

import random

from enoki_hd.text import segment_sentences
from enoki_hd.types import Span
from enoki_hd.verify.quoted import _fold, _fold_by_character, quoted_sentences

CONTEXT = (
    "The footbridge opened in 1893. Critics claim that the bridge is unsafe. "
    "The council voted 7 to 2 to close it for repairs.\n"
    "- Repairs will take six weeks\n"
    "Ferries run every hour (weekdays only)."
)


def found(answer: str, context: str = CONTEXT) -> dict[int, str]:
    spans = segment_sentences(answer, backend="regex")
    return {i: s.text(context) for i, s in quoted_sentences(answer, spans, context).items()}


def test_a_whole_context_sentence_is_found_with_its_full_stop() -> None:
    answer = "The council voted 7 to 2 to close it for repairs. It was built by Telford."
    spans = segment_sentences(answer, backend="regex")
    start = CONTEXT.index("The council")
    assert quoted_sentences(answer, spans, CONTEXT) == {
        0: Span(start, start + len("The council voted 7 to 2 to close it for repairs."))
    }


def test_a_sentence_inside_a_longer_context_sentence_is_not_quoted() -> None:
    # the context reports the claim, it does not make it
    assert found("The bridge is unsafe.") == {}
    assert found("The council voted 7 to 2.") == {}
    assert found("Opened in 1893.") == {}


def test_case_quotes_dashes_spaces_and_the_final_mark_do_not_matter() -> None:
    context = "It’s the town’s oldest   bridge — built in 1893.\nNothing else survives."
    assert found("it's the town's oldest bridge - built in 1893!", context) == {
        0: "It’s the town’s oldest   bridge — built in 1893."
    }


def test_lines_and_closing_brackets_bound_a_sentence() -> None:
    assert found("Repairs will take six weeks.") == {0: "Repairs will take six weeks"}
    assert found("Ferries run every hour (weekdays only).") == {
        0: "Ferries run every hour (weekdays only)."
    }


def test_compatibility_characters_are_read_as_what_they_spell() -> None:
    context = "The oﬃcial ﬁgures came in 1994. They were revised later."
    assert found("The official figures came in 1994.", context) == {
        0: "The oﬃcial ﬁgures came in 1994."
    }


def test_an_accent_written_as_a_separate_mark_is_the_composed_letter() -> None:
    # "a" + U+0301 was folded one character at a time, so the context's copy of the answer's
    # sentence was no copy and went to the verifier; the span keeps the last letter's mark
    decomposed = "The Cafe\u0301 Lumen opened in 1990. It closed in 2001."
    composed = "The Café Lumen opened in 1990. It closed in 2001."
    assert found("The Café Lumen opened in 1990.", decomposed) == {
        0: "The Cafe\u0301 Lumen opened in 1990."
    }
    assert found("The Cafe\u0301 Lumen opened in 1990.", composed) == {
        0: "The Café Lumen opened in 1990."
    }
    ends_on_mark = "They met at the cafe\u0301\nIt closed."
    assert found("They met at the café", ends_on_mark) == {0: "They met at the cafe\u0301"}


def test_short_sentences_and_empty_contexts_are_left_alone() -> None:
    assert found("Yes. Ferries run.", "Yes. Ferries run. Buses do not.") == {}
    assert found("The footbridge opened in 1893.", "   ") == {}
    answer = "The footbridge opened in 1893."
    assert quoted_sentences(answer, segment_sentences(answer), CONTEXT, min_words=6) == {}


def test_the_first_occurrence_as_a_whole_sentence_is_reported() -> None:
    context = "He said the ferry runs daily. The ferry runs daily. The ferry runs daily."
    start = context.index("The ferry")
    spans = segment_sentences("The ferry runs daily.", backend="regex")
    assert quoted_sentences("The ferry runs daily.", spans, context) == {
        0: Span(start, start + len("The ferry runs daily."))
    }


def test_numbered_list_items_are_sentences_of_their_own() -> None:
    context = "Steps:\n1. Unplug the heater before cleaning it.\n2) Wipe the grille."
    assert found("Unplug the heater before cleaning it. Wipe the grille now.", context) == {
        0: "Unplug the heater before cleaning it."
    }


def test_a_sentence_is_never_found_across_a_blank_line_or_two_passages() -> None:
    assert found("Marie Curie was born in Paris.", "Marie Curie was born\n\nin Paris.") == {}
    assert found("Marie Curie was born in Paris.", "Marie Curie was born\nin Paris.") == {
        0: "Marie Curie was born\nin Paris."
    }
    assert found("The pass is open all winter.", "Note:\n\nThe pass is open all winter.") == {
        0: "The pass is open all winter."
    }


def test_the_folded_text_is_the_same_by_whole_string_operations_as_by_the_character_loop() -> None:
    """A long context is folded by whole-string operations; the character loop is the
    definition (and gives the offsets of a match): both give the same text on every mix of
    white space, line breaks, ligatures, case folds that grow, marks and invisible characters."""
    assert _fold(" Straße\u00a0ﬁnal\u2028\u2028Next  “line”\n\tend. ") == (
        'strasse final\u2029next "line"\nend.'
    )
    rng = random.Random(0)
    alphabet = [*"aB Z.!\n\r\t", "\u2028", "\u2029", "\xa0", "\u3000", "\x85", "\x1c", "\x1f",
                "\u00ad", "\u200b", "ß", "ﬁ", "İ", "ꭰ", "Ꭰ", "\u0301", "é", "¨", "⑴", "’", "“",
                "—", "Ａ", "½", "\u212a", "\x00"]  # fmt: skip
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        assert _fold(text) == _fold_by_character(text)[0], repr(text)


def test_a_match_is_reported_at_its_offsets_in_the_unfolded_context() -> None:
    context = "Intro.\n\n  The ﬁrst  STRASSE opened in 1990.  Later text."
    answer = "The first straße opened in 1990."
    assert {
        i: s.text(context)
        for i, s in quoted_sentences(answer, segment_sentences(answer), context).items()
    } == {0: "The ﬁrst  STRASSE opened in 1990."}


def test_a_sentence_after_a_one_word_label_is_quoted() -> None:
    """ "Note: I am not thin-skinned when it comes to the outdoors." (a RAGTruth context) states
    the answer's sentence; the verifier called the answer's "I am not thin-skinned"
    contradicted by it, and the answer was flagged."""
    context = "Bedbugs. Infested. Note: I am not thin-skinned when it comes to the outdoors. Yes."
    answer = "I am not thin-skinned when it comes to the outdoors."
    assert found(answer, context) == {0: "I am not thin-skinned when it comes to the outdoors."}
    assert found(answer, context[len("Bedbugs. Infested. ") :]) == found(answer, context)
    # a label inside a sentence, or of more than one word, reports the claim
    for prefix in ("He wrote the Note: ", "Critics often claim: "):
        assert found(answer, prefix + answer) == {}
