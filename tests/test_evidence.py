"""Evidence selection and aggregation, with a deterministic word-overlap verifier."""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from enoki_hd.text import segment_sentences
from enoki_hd.types import Evidence, EvidenceFocus, NLIScores, Span
from enoki_hd.verify.evidence import (
    DEFAULT_EMBEDDER_NAME,
    EvidenceIndex,
    EvidenceSelector,
    _cut_long_sentences,
    aggregate,
    default_embedder,
    minilm_embedder,
    segment_context,
    split_to_budget,
)
from enoki_hd.verify.nli import VerifierError

ENTAILS = NLIScores(0.9, 0.05, 0.05)
NEUTRAL = NLIScores(0.1, 0.8, 0.1)
CONTRADICTS = NLIScores(0.05, 0.05, 0.9)


def words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


class WordVerifier:
    """Contradiction if the premise says "not <w>" for a hypothesis word w; entailment if every
    hypothesis word is in the premise; else neutral. One token per whitespace-separated word."""

    name = "words"

    def __init__(self, max_length: int = 64) -> None:
        self.max_length = max_length
        self.calls: list[list[tuple[str, str]]] = []
        self.counted: list[str] = []

    def count_tokens(self, text: str) -> int:
        self.counted.append(text)
        return len(text.split())

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        self.calls.append(list(pairs))
        scores = []
        for premise, hypothesis in pairs:
            if any(f"not {w}" in premise.lower() for w in words(hypothesis)):
                scores.append(CONTRADICTS)
            elif words(hypothesis) <= words(premise):
                scores.append(ENTAILS)
            else:
                scores.append(NEUTRAL)
        return scores


def window_texts(windows: list[Evidence], context: str) -> list[str]:
    for w in windows:
        assert w.text == context[w.start : w.end]
    return [w.text for w in windows]


def test_segment_context_uses_text_segmenter() -> None:
    context = "Paris is in France. The sky is blue."
    assert segment_context(context, sentence_backend="regex") == segment_sentences(
        context, backend="regex"
    )
    index = EvidenceIndex(context, sentence_backend="regex")
    assert index.sentence_texts() == ["Paris is in France.", "The sky is blue."]


def test_window_chunks_overlap_by_one_sentence() -> None:
    context = "Paris is in France. The sky is blue.\n\nCats are not dogs. Rain is wet."
    index = EvidenceIndex(context, sentence_backend="regex")
    selector = EvidenceSelector(strategy="window", max_premise_tokens=8)
    windows = selector.windows(index, "anything", verifier=WordVerifier())
    assert window_texts(windows, context) == [
        "Paris is in France. The sky is blue.",
        "The sky is blue.\n\nCats are not dogs.",
        "Cats are not dogs. Rain is wet.",
    ]
    assert (windows[1].start, windows[1].end) == (20, 56)


def test_default_budget_leaves_room_for_hypothesis_and_specials() -> None:
    verifier = WordVerifier(max_length=20)
    assert EvidenceSelector().premise_budget(verifier, "three word hypothesis") == 14
    assert EvidenceSelector(max_premise_tokens=5).premise_budget(verifier, "x") == 5
    with pytest.raises(ValueError, match="leaving no room for a premise"):
        EvidenceSelector().premise_budget(verifier, "w " * 17)


def test_any_entailing_window_wins_over_a_contradiction() -> None:
    context = "Cats are dogs. The sky is blue. Cats are not dogs."
    index = EvidenceIndex(context, sentence_backend="regex")
    verifier = WordVerifier()
    selector = EvidenceSelector(strategy="window", max_premise_tokens=4)
    [decision] = selector.verify(verifier, index, ["cats are dogs"])
    assert decision.label == "supported"
    assert decision.evidence == Evidence(0, 14, "Cats are dogs.")
    assert decision.probs == ENTAILS
    assert decision.n_windows == 3


def test_contradiction_wins_over_neutral() -> None:
    context = "The sky is blue. Cats are not dogs. Rain is wet."
    index = EvidenceIndex(context, sentence_backend="regex")
    selector = EvidenceSelector(strategy="window", max_premise_tokens=4)
    [decision] = selector.verify(WordVerifier(), index, ["cats are dogs"])
    assert decision.label == "contradicted"
    assert decision.evidence == Evidence(17, 35, "Cats are not dogs.")
    assert decision.probs == CONTRADICTS


def test_aggregate_picks_the_deciding_window() -> None:
    windows = [Evidence(i, i + 1, str(i)) for i in range(4)]
    weak = NLIScores(0.5, 0.3, 0.2)
    strong = NLIScores(0.8, 0.1, 0.1)
    decision = aggregate(windows, [CONTRADICTS, weak, strong, NEUTRAL])
    assert (decision.label, decision.evidence, decision.probs) == ("supported", windows[2], strong)
    mild = NLIScores(0.2, 0.3, 0.5)
    decision = aggregate(windows, [NEUTRAL, mild, CONTRADICTS, NEUTRAL])
    assert (decision.label, decision.evidence) == ("contradicted", windows[2])
    least_bad = NLIScores(0.4, 0.5, 0.1)
    decision = aggregate(windows, [NEUTRAL, least_bad, NLIScores(0.1, 0.5, 0.4), NEUTRAL])
    assert (decision.label, decision.evidence, decision.probs) == (
        "unverifiable",
        windows[1],
        least_bad,
    )
    assert decision.n_windows == 4


@pytest.mark.parametrize("context", ["", "  \n\n "])
def test_empty_context_calls_no_model(context: str) -> None:
    verifier = WordVerifier()
    selector = EvidenceSelector()
    decisions = selector.verify(verifier, EvidenceIndex(context), ["a claim", "another"])
    assert verifier.calls == []
    assert selector.stats["pairs"] == 0
    for decision in decisions:
        assert decision.label == "unverifiable"
        assert decision.probs == NLIScores(0.0, 1.0, 0.0)
        assert decision.evidence is None
        assert decision.n_windows == 0


def test_all_hypotheses_go_in_one_predict_call() -> None:
    context = "Paris is in France. The sky is blue. Cats are not dogs. Rain is wet."
    index = EvidenceIndex(context, sentence_backend="regex")
    verifier = WordVerifier()
    selector = EvidenceSelector(strategy="window", max_premise_tokens=8)
    decisions = selector.verify(verifier, index, ["paris is in france", "cats are dogs", "moon"])
    assert len(verifier.calls) == 1
    assert len(verifier.calls[0]) == selector.stats["pairs"] == 9
    assert [d.label for d in decisions] == ["supported", "contradicted", "unverifiable"]
    assert selector.verify(verifier, index, []) == []
    assert len(verifier.calls) == 1


def test_wrong_number_of_scores_is_a_verifier_error() -> None:
    class Broken(WordVerifier):
        def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
            return super().predict(pairs)[:-1]

    index = EvidenceIndex("A b c. D e f.", sentence_backend="regex")
    with pytest.raises(VerifierError, match="returned 0 scores for 1 pairs"):
        EvidenceSelector().verify(Broken(), index, ["a"])


def long_context(n: int = 300, needle_at: int | None = 150) -> str:
    sentences = [f"Filler sentence number {i} talks about topic{i} at length." for i in range(n)]
    if needle_at is not None:
        sentences[needle_at] = "The Eiffel Tower stands in Paris."
    return " ".join(sentences)


def test_retrieve_sends_fewer_pairs_than_window_on_a_long_context() -> None:
    context = long_context()
    index = EvidenceIndex(context, sentence_backend="regex")
    hypothesis = "Eiffel Tower stands in Paris"
    window = EvidenceSelector(strategy="window", max_premise_tokens=60)
    retrieve = EvidenceSelector(strategy="retrieve", top_k=3, neighbours=1, max_premise_tokens=60)
    by_window = window.verify(WordVerifier(), index, [hypothesis])[0]
    by_retrieval = retrieve.verify(WordVerifier(), index, [hypothesis])[0]
    assert by_window.label == by_retrieval.label == "supported"
    assert "The Eiffel Tower stands in Paris." in by_retrieval.evidence.text
    assert retrieve.stats["pairs"] == 1  # only the needle shares a term with the hypothesis
    assert window.stats["pairs"] > 50

    s = index.sentences
    [evidence] = retrieve.windows(index, hypothesis, verifier=WordVerifier())
    assert (evidence.start, evidence.end) == (s[149].start, s[151].end)


def test_retrieved_windows_merge_and_fall_back() -> None:
    context = long_context(n=40, needle_at=20)
    index = EvidenceIndex(context, sentence_backend="regex")
    s = index.sentences
    selector = EvidenceSelector(top_k=3, neighbours=1, max_premise_tokens=100)
    # topic5, topic6 and topic30 → sentences 4..7 merged, and 29..31.
    windows = selector.windows(index, "topic5 topic6 topic30", verifier=WordVerifier())
    assert [(w.start, w.end) for w in windows] == [
        (s[4].start, s[7].end),
        (s[29].start, s[31].end),
    ]
    # No term in common: the whole context (in budget-sized chunks) is the evidence ...
    windows = selector.windows(index, "zebra", verifier=WordVerifier())
    assert windows[0].start == s[0].start and windows[-1].end == s[-1].end
    # ... up to fallback_sentences sentences of it; None: all of it.
    capped = EvidenceSelector(top_k=3, neighbours=1, max_premise_tokens=100, fallback_sentences=9)
    windows = capped.windows(index, "zebra", verifier=WordVerifier())
    assert windows[0].start == s[0].start and windows[-1].end == s[8].end
    uncapped = EvidenceSelector(top_k=3, max_premise_tokens=100, fallback_sentences=None)
    assert uncapped.windows(index, "zebra", verifier=WordVerifier())[-1].end == s[-1].end
    # ... and up to the sentences that end within fallback_chars characters of the first
    by_chars = EvidenceSelector(top_k=3, max_premise_tokens=100, fallback_chars=s[4].end + 5)
    windows = by_chars.windows(index, "zebra", verifier=WordVerifier())
    assert windows[0].start == s[0].start and windows[-1].end == s[4].end
    # a first sentence longer than the cap is still judged (never nothing)
    tiny = EvidenceSelector(top_k=3, max_premise_tokens=100, fallback_chars=1)
    assert [(w.start, w.end) for w in tiny.windows(index, "zebra", verifier=WordVerifier())] == [
        (s[0].start, s[0].end)
    ]
    # A short context is covered whole by the window strategy.
    short = EvidenceIndex("A b. C d. E f.", sentence_backend="regex")
    assert window_texts(
        selector.windows(short, "zebra", verifier=WordVerifier()), short.context
    ) == ["A b. C d. E f."]


def test_a_long_context_is_searched_in_the_singular_before_its_first_sentences() -> None:
    # "factors" is written nowhere in 300 sentences, "factor" once (sentence 150): the
    # hypothesis is judged around that sentence, not against the first 64 sentences.
    context = long_context(needle_at=None).replace(
        "Filler sentence number 150 talks about topic150 at length.", "Each factor was weighed."
    )
    index = EvidenceIndex(context, sentence_backend="regex")
    s = index.sentences
    assert index.bm25_scores("Several factors").max() == 0
    selector = EvidenceSelector(top_k=3, neighbours=1, max_premise_tokens=100)
    windows = selector.windows(index, "Several factors", verifier=WordVerifier())
    assert [(w.start, w.end) for w in windows] == [(s[149].start, s[151].end)]
    # a context within the cap is still judged whole, in the singular or not
    short = EvidenceIndex(" ".join(t.text(context) for t in s[120:180]), sentence_backend="regex")
    windows = selector.windows(short, "Several factors", verifier=WordVerifier())
    assert windows[0].start == 0 and windows[-1].end == len(short.context)


def test_token_counts_are_cached_per_context() -> None:
    index = EvidenceIndex(long_context(n=50, needle_at=None), sentence_backend="regex")
    verifier = WordVerifier()
    selector = EvidenceSelector(strategy="window")
    selector.windows(index, "first hypothesis", verifier=verifier)
    assert len(verifier.counted) == 50 + 1
    selector.windows(index, "second hypothesis", verifier=verifier)
    assert verifier.counted[51:] == ["second hypothesis"]


def test_retrieval_counts_only_the_sentences_around_its_hits() -> None:
    # 300 sentences: retrieval of the needle (sentence 150, one neighbour each side) counts
    # the tokens of sentences 149-151 and the hypothesis, not of the whole context; a window
    # pass afterwards counts the rest once, never those three again.
    context = long_context()
    index = EvidenceIndex(context, sentence_backend="regex")
    verifier = WordVerifier()
    retrieve = EvidenceSelector(strategy="retrieve", top_k=1, neighbours=1)
    (window,) = retrieve.windows(index, "Eiffel Tower stands in Paris", verifier=verifier)
    s = index.sentences
    assert (window.start, window.end) == (s[149].start, s[151].end)
    assert verifier.counted == [
        "Eiffel Tower stands in Paris",
        " " + s[149].text(context),
        " " + s[150].text(context),
        " " + s[151].text(context),
    ]
    counts = index.token_counts(verifier)
    assert len(verifier.counted) == 4 + 297
    assert list(counts[149:152]) == [9, 6, 9] and (counts > 0).all()


def test_long_sentence_is_split_into_pieces_that_cover_it() -> None:
    long_sentence = "Long " + " ".join(f"w{i}" for i in range(94)) + "."
    context = f"Short one. {long_sentence} Short two."
    index = EvidenceIndex(context, sentence_backend="regex")
    selector = EvidenceSelector(strategy="window", max_premise_tokens=10)
    windows = selector.windows(index, "x", verifier=WordVerifier())
    pieces = [w for w in windows if w.start >= 11 and w.end <= 11 + len(long_sentence)]
    assert [len(p.text.split()) for p in pieces] == [10] * 9 + [5]
    assert pieces[0].start == 11 and pieces[-1].end == 11 + len(long_sentence)
    for left, right in itertools.pairwise(pieces):
        assert context[left.end : right.start] == " "
    assert windows[0].text == "Short one." and windows[-1].text == "Short two."


def test_a_sentence_over_max_sentence_chars_is_indexed_in_pieces() -> None:
    # after the last clause comma in a piece's second half, else at its last space, else
    # (one word longer than a piece) at the limit; pieces trimmed, whitespace between them
    clauses = "Alpha beta gamma, delta epsilon zeta eta, theta iota kappa lambda mu"
    context = f"Short one. {clauses} nu xi omicron. Short two."
    index = EvidenceIndex(context, sentence_backend="regex", max_sentence_chars=30)
    assert index.sentence_texts() == [
        "Short one.",
        "Alpha beta gamma,",
        "delta epsilon zeta eta,",
        "theta iota kappa lambda mu nu",
        "xi omicron.",
        "Short two.",
    ]
    spaced = EvidenceIndex("aaaa bbbb cccc dddd eeee ffff", max_sentence_chars=12)
    assert spaced.sentence_texts() == ["aaaa bbbb", "cccc dddd", "eeee ffff"]
    word = EvidenceIndex("x" * 25 + " yy", max_sentence_chars=10)
    assert word.sentence_texts() == ["x" * 10, "x" * 10, "x" * 5 + " yy"]
    # a sentence no longer than the limit, and every sentence without one, stay whole
    assert EvidenceIndex(
        context, sentence_backend="regex", max_sentence_chars=200
    ).sentence_texts() == [
        "Short one.",
        f"{clauses} nu xi omicron.",
        "Short two.",
    ]
    assert EvidenceIndex(context, sentence_backend="regex").sentence_texts()[1] == (
        f"{clauses} nu xi omicron."
    )
    for piece in index.sentences:
        assert context[piece.start : piece.end] == piece.text(context)
    with pytest.raises(
        ValueError, match=r"max_sentence_chars must be an integer >= 1 or None, got 0"
    ):
        EvidenceIndex(context, max_sentence_chars=0)


def test_long_sentence_pieces_stay_inside_their_sentence_and_cover_it() -> None:
    # 2,000 random texts of words, clause marks and blanks, cut into random sentences: every
    # piece lies inside one sentence, is at most the limit long and not blank, the pieces are
    # in order without overlap, and every non-blank character of a sentence is in a piece
    rng = random.Random(0)
    for _ in range(2000):
        text = "".join(rng.choice("ab ,;:.\n") for _ in range(rng.randint(0, 300)))
        bounds = sorted(rng.sample(range(len(text) + 1), k=min(len(text) + 1, 5)))
        sentences = [Span(a, b) for a, b in itertools.pairwise(bounds) if b > a]
        limit = rng.randint(1, 50)
        pieces = _cut_long_sentences(text, sentences, limit)
        covered: set[int] = set()
        for piece in pieces:
            assert any(s.start <= piece.start and piece.end <= s.end for s in sentences)
            assert piece in sentences or (0 < piece.end - piece.start <= limit)
            assert piece in sentences or text[piece.start : piece.end].strip()
            covered.update(range(piece.start, piece.end))
        assert all(a.end <= b.start for a, b in itertools.pairwise(pieces))
        for s in sentences:
            if s.end - s.start <= limit:
                assert s in pieces  # a sentence within the limit stays whole
            assert all(i in covered for i in range(s.start, s.end) if not text[i].isspace())


def test_a_context_without_a_full_stop_is_searched_by_its_pieces() -> None:
    # 300 clauses joined by commas, one sentence: judged whole, every budget-sized piece of
    # it is a premise; indexed in pieces of at most 200 characters, retrieval finds the
    # needle's piece and its neighbours, as it finds a sentence
    clauses = [f"filler clause number {i} talks about topic{i} at length" for i in range(300)]
    clauses[150] = "the Eiffel Tower stands in Paris"
    context = ", ".join(clauses) + "."
    hypothesis = "Eiffel Tower stands in Paris"
    whole = EvidenceSelector(max_premise_tokens=120, max_sentence_chars=None)
    index = whole.build_index(context, sentence_backend="regex")
    assert len(index) == 1
    assert whole.verify(WordVerifier(), index, [hypothesis])[0].label == "supported"
    assert whole.stats["pairs"] > 20
    pieces = EvidenceSelector(max_premise_tokens=120, max_sentence_chars=200)
    index = pieces.build_index(context, sentence_backend="regex")
    assert len(index) > 40 and all(len(t) <= 200 for t in index.sentence_texts())
    decision = pieces.verify(WordVerifier(), index, [hypothesis])[0]
    assert decision.label == "supported"
    assert "the Eiffel Tower stands in Paris," in decision.evidence.text
    assert pieces.stats["pairs"] == 1
    s = index.sentences
    needle = next(i for i, t in enumerate(index.sentence_texts()) if "Eiffel" in t)
    assert (decision.evidence.start, decision.evidence.end) == (
        s[needle - 1].start,
        s[needle + 1].end,
    )


def test_split_to_budget_cuts_an_oversized_word_into_characters() -> None:
    text = "ab " + "x" * 25 + " cd"
    units = [m.span() for m in re.finditer(r"\S+", text)]
    pieces = split_to_budget(text, units, 7, lambda t: (len(t) + 3) // 4)  # 4 chars per token
    assert [text[a:b] for a, b in pieces] == ["ab " + "x" * 25, "cd"]
    pieces = split_to_budget(text, units, 3, lambda t: (len(t) + 3) // 4)
    assert [text[a:b] for a, b in pieces] == ["ab", "x" * 12, "x" * 12, "x", "cd"]


class KeywordEmbedder:
    """Deterministic fake encoder: one dimension per topic, found by keyword."""

    topics = (("cat", "kitten", "feline"), ("rain", "storm", "weather"), ("car", "engine"))

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        return np.array(
            [[float(bool(words(t) & set(topic))) for topic in self.topics] + [0.1] for t in texts]
        )


def test_dense_fusion_finds_paraphrases_bm25_misses() -> None:
    context = "My car has an engine. A storm is coming. The cat sleeps. Roads are long. Sun."
    embedder = KeywordEmbedder()
    index = EvidenceIndex(context, sentence_backend="regex", embed=embedder)
    verifier = WordVerifier()
    for fusion in ("minmax", "rrf"):
        selector = EvidenceSelector(top_k=1, neighbours=0, dense_weight=0.8, fusion=fusion)
        assert window_texts(selector.windows(index, "a kitten", verifier=verifier), context) == [
            "The cat sleeps."
        ]
    assert embedder.calls == 1 + 2  # sentences once, then one call per query
    with pytest.raises(ValueError, match="embed="):
        EvidenceSelector(top_k=1, neighbours=0, dense_weight=0.5).windows(
            EvidenceIndex(context, sentence_backend="regex"), "a kitten", verifier=verifier
        )


def test_dense_weight_changes_which_sentence_is_retrieved() -> None:
    # BM25 alone takes the only sentence sharing a word ("sleeps"); the embedder puts
    # "feline" and "kitten" on one topic, so dense retrieval takes the paraphrase.
    context = "Nobody sleeps in the office. A kitten naps on the sofa. Markets fell. Rain is wet."
    hypothesis = "a feline sleeps"
    verifier = WordVerifier()
    lexical = EvidenceSelector(top_k=1, neighbours=0, max_premise_tokens=50)
    index = lexical.build_index(context, sentence_backend="regex")
    assert index.embed is None
    assert window_texts(lexical.windows(index, hypothesis, verifier=verifier), context) == [
        "Nobody sleeps in the office."
    ]
    embedder = KeywordEmbedder()
    dense = EvidenceSelector(
        top_k=1, neighbours=0, max_premise_tokens=50, dense_weight=0.8, embedder=embedder
    )
    index = dense.build_index(context, sentence_backend="regex")
    assert index.embed is embedder
    assert window_texts(dense.windows(index, hypothesis, verifier=verifier), context) == [
        "A kitten naps on the sofa."
    ]


def test_selector_config_lists_every_behaviour_changing_setting() -> None:
    assert EvidenceSelector().config() == {
        "strategy": "retrieve",
        "top_k": 3,
        "neighbours": 1,
        "dense_weight": 0.0,
        "fusion": "minmax",
        "max_premise_tokens": None,
        "embedder": None,
        "premises": ["window"],
        "fallback_sentences": 64,
        "fallback_chars": 20000,
        "restate_quantities": True,
        "value_sentences": True,
        "resolve_references": True,
        "max_sentence_chars": 1000,
        "query_windows": "off",
    }
    assert EvidenceSelector(dense_weight=0.3).config()["embedder"] == DEFAULT_EMBEDDER_NAME
    keyword = EvidenceSelector(dense_weight=0.3, fusion="rrf", embedder=KeywordEmbedder())
    assert keyword.config()["embedder"] == "KeywordEmbedder"
    assert keyword.config()["fusion"] == "rrf"


def test_focus_is_the_best_matching_sentence_of_the_deciding_window() -> None:
    context = "Paris is in France. The Eiffel Tower opened in 1889. Rain is wet."
    index = EvidenceIndex(context, sentence_backend="regex")
    selector = EvidenceSelector(strategy="window", max_premise_tokens=50)
    verifier = WordVerifier()
    [decision] = selector.verify(verifier, index, ["the eiffel tower opened in 1889"])
    assert decision.label == "supported"
    assert decision.evidence == Evidence(
        0, 65, context, EvidenceFocus(20, 52, "The Eiffel Tower opened in 1889.")
    )
    assert context[20:52] == "The Eiffel Tower opened in 1889."
    # Nothing in common with the hypothesis: no sentence to point at.
    [decision] = selector.verify(verifier, index, ["zebra"])
    assert decision.evidence is not None and decision.evidence.focus is None
    # A one-sentence window is its own focus.
    one = EvidenceSelector(strategy="window", max_premise_tokens=6)
    [decision] = one.verify(verifier, index, ["the eiffel tower opened in 1889"])
    assert decision.evidence == Evidence(20, 52, "The Eiffel Tower opened in 1889.")


def test_default_embedder_retrieves_a_paraphrase_end_to_end() -> None:
    context = (
        "The stock market fell sharply on Monday. A young cat naps on the warm sofa. "
        "Heavy rain is expected tomorrow. The bridge was closed for repairs."
    )
    hypothesis = "A kitten is sleeping."
    selector = EvidenceSelector(top_k=1, neighbours=0, dense_weight=1.0)
    index = selector.build_index(context, sentence_backend="regex")
    assert index.embed is default_embedder()
    [window] = selector.windows(index, hypothesis, verifier=WordVerifier())
    assert window.text == "A young cat naps on the warm sofa."


def test_windows_fit_a_real_verifier_without_truncation(tiny_nli_dir: Path) -> None:
    from enoki_hd.verify.nli import NLICrossEncoder

    verifier = NLICrossEncoder(tiny_nli_dir, backend="onnx", max_length=32)
    context = " ".join(
        f"Sentence {i} mentions the unbelievably interesting number {i * 7}." for i in range(12)
    )
    index = EvidenceIndex(context, sentence_backend="regex")
    for strategy in ("window", "retrieve"):
        selector = EvidenceSelector(strategy=strategy, top_k=1, neighbours=1)
        decisions = selector.verify(verifier, index, ["The number 21 is mentioned."])
        # retrieve: sentence 3 and its neighbours, one window each (two do not fit together)
        assert decisions[0].n_windows == (12 if strategy == "window" else 3)
    assert verifier.stats["truncated"] == 0


def test_selector_rejects_bad_options() -> None:
    with pytest.raises(ValueError, match="strategy"):
        EvidenceSelector(strategy="bm25")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="top_k"):
        EvidenceSelector(top_k=0)
    with pytest.raises(ValueError, match="dense_weight"):
        EvidenceSelector(dense_weight=1.5)
    with pytest.raises(
        ValueError, match=r"fallback_sentences must be an integer >= 1 or None, got 0"
    ):
        EvidenceSelector(fallback_sentences=0)
    with pytest.raises(ValueError, match=r"fallback_chars must be an integer >= 1 or None, got 0"):
        EvidenceSelector(fallback_chars=0)
    with pytest.raises(
        ValueError, match=r"max_sentence_chars must be an integer >= 100 or None, got 99"
    ):
        EvidenceSelector(max_sentence_chars=99)
    with pytest.raises(TypeError, match=r"max_sentence_chars must be .* got str '1000'"):
        EvidenceSelector(max_sentence_chars="1000")  # type: ignore[arg-type]
    with pytest.raises(
        ValueError, match=r"query_windows must be one of off, defer, any, got False"
    ):
        EvidenceSelector(query_windows=False)  # type: ignore[arg-type]


def test_index_keeps_offsets_into_the_context() -> None:
    context = "  Lead.  Next one.  "
    index = EvidenceIndex(context, sentences=[Span(9, 18), Span(2, 7), Span(0, 1)])
    assert index.sentences == [Span(2, 7), Span(9, 18)]  # sorted, blank span dropped


def test_bm25_index_does_not_flood_the_log(caplog: pytest.LogCaptureFixture) -> None:
    import logging

    caplog.set_level(logging.DEBUG)
    index = EvidenceIndex("Suede formed in London. They won a prize. The band split in 2003.")
    scores = index.bm25_scores("Where did Suede form?")
    assert scores.shape == (3,) and int(np.argmax(scores)) == 0
    assert not [r for r in caplog.records if r.name.startswith("bm25s")]


@pytest.mark.slow
def test_minilm_embedder_ranks_the_paraphrase_first() -> None:
    embed = minilm_embedder()
    vectors = embed(["A kitten is sleeping.", "The stock market fell.", "A young cat naps."])
    assert vectors.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[2] > vectors[0] @ vectors[1]


PREMISE_CONTEXT = (
    "Suede formed in London in 1989. The band has five members. Their debut album won a "
    "prize. They split in 2003. Brett Anderson sings. Mat Osman plays bass. The album sold "
    "well. Reviews were mixed. The tour ended in Oslo. Fans cheered."
)


def test_premise_granularities() -> None:
    from fakes import LexicalVerifier

    index = EvidenceIndex(PREMISE_CONTEXT, sentence_backend="regex")
    hypothesis = "The band split in 2003."
    # BM25 ranks "They split in 2003." (90:109) and "The band has five members." (32:58)
    selector = EvidenceSelector(premises=("window", "sentence", "pair"))
    premises = selector.premise_list(index, hypothesis, verifier=LexicalVerifier())
    assert [(p.start, p.end) for p in premises] == [
        (0, 131),  # the merged window: both sentences with a neighbour each side
        (32, 58),  # the single sentences
        (90, 109),
        (0, 58),  # each with its previous sentence, then each with its next
        (59, 109),
        (32, 89),
        (90, 131),
    ]
    single = EvidenceSelector(premises=("sentence",))
    assert [p.text for p in single.premise_list(index, hypothesis, verifier=LexicalVerifier())] == [
        "The band has five members.",
        "They split in 2003.",
    ]


def test_a_single_sentence_premise_decides_and_is_the_evidence() -> None:
    from fakes import LexicalVerifier

    index = EvidenceIndex(PREMISE_CONTEXT, sentence_backend="regex")
    # the window holds "not"-free sentences only; a single sentence is enough to entail
    selector = EvidenceSelector(premises=("sentence",))
    [decision] = selector.verify(LexicalVerifier(), index, ["They split in 2003."])
    assert decision.label == "supported"
    assert decision.evidence is not None and decision.evidence.text == "They split in 2003."


def test_sentence_premises_fall_back_to_the_windows_when_nothing_matches() -> None:
    from fakes import LexicalVerifier

    index = EvidenceIndex(PREMISE_CONTEXT, sentence_backend="regex")
    selector = EvidenceSelector(premises=("sentence",))
    premises = selector.premise_list(index, "Zebras graze.", verifier=LexicalVerifier())
    assert [(p.start, p.end) for p in premises] == [(0, len(PREMISE_CONTEXT))]
    [decision] = selector.verify(LexicalVerifier(), index, ["Zebras graze."])
    assert decision.evidence is not None and decision.n_windows == 1


@pytest.mark.parametrize("premises", [(), ("window", "window"), ("paragraph",)])
def test_bad_premises_are_an_error(premises) -> None:
    with pytest.raises(ValueError, match="premises must be distinct values of window, sentence"):
        EvidenceSelector(premises=premises)


TENT = (
    "Each Tamber tent weighs 1,850 grams. The packed size is 45 by 15 centimetres. "
    "It sleeps two adults."
)


def test_a_sentence_stating_a_value_of_the_hypothesis_is_also_judged_alone() -> None:
    index = EvidenceIndex(TENT, sentence_backend="regex")
    weighs = "The Tamber tent weighs 1.85 kg."  # 1,850 grams, in other words
    premises = EvidenceSelector().premise_list(index, weighs, verifier=WordVerifier())
    assert [p.text for p in premises] == [TENT, "Each Tamber tent weighs 1,850 grams."]
    off = EvidenceSelector(value_sentences=False)
    assert [p.text for p in off.premise_list(index, weighs, verifier=WordVerifier())] == [TENT]
    # a count is a value too
    counts = EvidenceSelector().premise_list(index, "It sleeps two.", verifier=WordVerifier())
    assert [p.text for p in counts] == [TENT, "It sleeps two adults."]
    # no value in the hypothesis, or none the context states: the window alone
    for hypothesis in ["The tent is green.", "The tent weighs 3 kg."]:
        premises = EvidenceSelector().premise_list(index, hypothesis, verifier=WordVerifier())
        assert [p.text for p in premises] == [TENT]


def test_the_verifier_reads_the_premise_restated_and_the_evidence_stays_the_context() -> None:
    index = EvidenceIndex(TENT, sentence_backend="regex")
    verifier = WordVerifier()
    hypothesis = "Each Tamber tent weighs 1.85 kg."
    [decision] = EvidenceSelector().verify(verifier, index, [hypothesis])
    assert [premise for premise, _ in verifier.calls[0]] == [
        TENT.replace("1,850 grams", "1.85 kg"),
        "Each Tamber tent weighs 1.85 kg.",
    ]
    assert decision.label == "supported"
    assert decision.evidence is not None
    assert decision.evidence.text == TENT  # both entail; the first best decides
    verifier = WordVerifier()
    [as_written] = EvidenceSelector(restate_quantities=False).verify(verifier, index, [hypothesis])
    assert [premise for premise, _ in verifier.calls[0]] == [
        TENT,
        "Each Tamber tent weighs 1,850 grams.",
    ]
    assert as_written.label == "unverifiable"


def test_a_premise_made_longer_by_its_restatement_is_cut_to_its_budget() -> None:
    """Restating "15:00" as "3 p.m." adds a word to a window chosen to fill its budget; the
    verifier's tokenizer would cut it (and warn), so it is cut here at its last word that fits,
    and the evidence stays the context's window."""
    context = "The shop opens at 09:00 and closes at 15:00 on weekdays."
    index = EvidenceIndex(context, sentence_backend="regex")
    hypothesis = "The shop closes at 3 p.m."
    verifier = WordVerifier()
    selector = EvidenceSelector(strategy="window", max_premise_tokens=11)  # the context's words
    [decision] = selector.verify(verifier, index, [hypothesis])
    assert [premise for premise, _ in verifier.calls[0]] == [
        "The shop opens at 09:00 and closes at 3 p.m. on"
    ]
    assert decision.evidence is not None
    assert decision.evidence.text == context
    # room for the restated window: it is read whole
    verifier = WordVerifier()
    EvidenceSelector(strategy="window", max_premise_tokens=12).verify(verifier, index, [hypothesis])
    assert [premise for premise, _ in verifier.calls[0]] == [
        "The shop opens at 09:00 and closes at 3 p.m. on weekdays."
    ]


@pytest.mark.parametrize(
    ("middle", "query"),
    [
        # compatibility form: a plain query finds what a PDF extraction wrote with ligatures
        # and a soft hyphen
        ("The o\ufb03cial \ufb01gures were pub\u00adlished in 1994.", "official figures published"),
        # spellings folded as grounding folds them: an American query finds British text
        ("The organisation moved to the city centre in 1994.", "organization center"),
    ],
)
def test_retrieval_reads_words_as_grounding_does(middle: str, query: str) -> None:
    """BM25 compares words as the grounding check does: the query finds the middle sentence
    and nothing else."""
    context = f"The museum opened in 1901. {middle} The garden has a pond."
    index = EvidenceIndex(context, sentence_backend="regex")
    scores = index.bm25_scores(query)
    assert int(np.argmax(scores)) == 1 and scores[1] > 0
    assert scores[0] == scores[2] == 0


# Four sentences: a fact's own retrieval (top_k=1, no neighbours) finds "Metal frames look
# light." on its words; its answer sentence finds the daybeds sentence.
QUERY_CONTEXT = (
    "Metal frames look light. The hotel has a pool. Guests say the daybeds of the old wing are "
    "sturdy. The lobby has a bar."
)
DAYBEDS = "Guests say the daybeds of the old wing are sturdy."


class ScriptedVerifier(WordVerifier):
    """The scores named for a premise, neutral for any other."""

    def __init__(self, scores: dict[str, NLIScores]) -> None:
        super().__init__(max_length=64)
        self.scores = scores

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        self.calls.append(list(pairs))
        return [self.scores.get(premise, NEUTRAL) for premise, _ in pairs]


def _query_decisions(mode: str, verifier: WordVerifier) -> list:
    index = EvidenceIndex(QUERY_CONTEXT, sentence_backend="regex")
    selector = EvidenceSelector(top_k=1, neighbours=0, query_windows=mode)  # type: ignore[arg-type]
    return selector.verify(
        verifier,
        index,
        ["Frames are metal.", "Frames are metal."],
        ["The daybeds of the old wing are sturdy and their frames are metal.", None],
    )


@pytest.mark.parametrize("mode", ["defer", "any"])
def test_a_window_found_for_the_facts_sentence_can_support_it(mode: str) -> None:
    verifier = ScriptedVerifier({DAYBEDS: ENTAILS})
    with_query, without = _query_decisions(mode, verifier)
    assert (with_query.label, with_query.evidence.text, with_query.n_windows) == (
        "supported",
        DAYBEDS,
        2,
    )
    # a hypothesis without a query is judged on its own windows only
    assert (without.label, without.evidence.text, without.n_windows) == (
        "unverifiable",
        "Metal frames look light.",
        1,
    )
    assert [p for p, _ in verifier.calls[0]] == [
        "Metal frames look light.",
        DAYBEDS,
        "Metal frames look light.",
    ]


def test_query_windows_off_judges_a_fact_on_its_own_windows() -> None:
    verifier = ScriptedVerifier({DAYBEDS: ENTAILS})
    decisions = _query_decisions("off", verifier)
    assert [(d.label, d.evidence.text, d.n_windows) for d in decisions] == [
        ("unverifiable", "Metal frames look light.", 1)
    ] * 2
    assert len(verifier.calls[0]) == 2


@pytest.mark.parametrize("mode", ["defer", "any"])
def test_a_window_found_for_the_facts_sentence_can_contradict_it(mode: str) -> None:
    decision, _ = _query_decisions(mode, ScriptedVerifier({DAYBEDS: CONTRADICTS}))
    assert (decision.label, decision.evidence.text, decision.n_windows) == (
        "contradicted",
        DAYBEDS,
        2,
    )


def test_a_borrowed_entailment_does_not_outweigh_the_facts_own_contradiction() -> None:
    scores = {DAYBEDS: ENTAILS, "Metal frames look light.": CONTRADICTS}
    deferred, _ = _query_decisions("defer", ScriptedVerifier(scores))
    assert (deferred.label, deferred.evidence.text) == (
        "contradicted",
        "Metal frames look light.",
    )
    any_window, _ = _query_decisions("any", ScriptedVerifier(scores))
    assert (any_window.label, any_window.evidence.text) == ("supported", DAYBEDS)


def test_query_windows_add_nothing_the_facts_own_premises_hold() -> None:
    index = EvidenceIndex(QUERY_CONTEXT, sentence_backend="regex")
    selector = EvidenceSelector(top_k=1, neighbours=0, query_windows="defer")
    verifier = ScriptedVerifier({})
    selector.verify(
        verifier,
        index,
        ["Frames are metal.", "Frames are metal.", "Frames are metal."],
        ["Frames are metal.", "Zebras gallop.", "Metal frames look light."],
    )
    # the query as the hypothesis, one sharing no word with the context, one retrieving
    # the fact's own window: no premise added
    assert [p for p, _ in verifier.calls[0]] == ["Metal frames look light."] * 3
    whole = EvidenceSelector(strategy="window", query_windows="any")
    [decision] = whole.verify(
        ScriptedVerifier({}), index, ["Frames are metal."], ["The daybeds are sturdy."]
    )
    assert decision.n_windows == 1  # the whole context is its window already
    with pytest.raises(ValueError, match="1 queries for 2 hypotheses"):
        selector.verify(verifier, index, ["a", "b"], ["a"])


def test_aggregate_lets_borrowed_windows_entail_unless_the_own_ones_contradict() -> None:
    windows = [Evidence(i, i + 1, str(i)) for i in range(4)]
    # an own window contradicts and none entails: the borrowed entailment does not count
    decision = aggregate(windows, [NEUTRAL, CONTRADICTS, ENTAILS, NEUTRAL], borrowed=2)
    assert (decision.label, decision.evidence) == ("contradicted", windows[1])
    # no own window contradicts: it does
    decision = aggregate(windows, [NEUTRAL, NEUTRAL, ENTAILS, CONTRADICTS], borrowed=2)
    assert (decision.label, decision.evidence) == ("supported", windows[2])
    # an own window entails too: the stronger entailment decides, as ever
    strong = NLIScores(0.97, 0.02, 0.01)
    decision = aggregate(windows, [ENTAILS, CONTRADICTS, strong, NEUTRAL], borrowed=2)
    assert (decision.label, decision.evidence) == ("supported", windows[2])
    # a borrowed contradiction counts; an unverifiable decision's evidence is an own window
    decision = aggregate(windows, [NEUTRAL, NEUTRAL, NEUTRAL, CONTRADICTS], borrowed=2)
    assert (decision.label, decision.evidence) == ("contradicted", windows[3])
    least_bad = NLIScores(0.45, 0.5, 0.05)
    decision = aggregate(windows, [NEUTRAL, NEUTRAL, least_bad, NEUTRAL], borrowed=2)
    assert (decision.label, decision.evidence) == ("unverifiable", windows[0])
    with pytest.raises(ValueError, match="borrowed must leave at least one of the 4 windows"):
        aggregate(windows, [NEUTRAL] * 4, borrowed=4)
