"""Benchmark loaders: real rows from the shared folder, handmade rows and malformed rows."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from enoki_hd.eval.datasets import (
    BENCHMARKS,
    Benchmark,
    BenchmarkConfigError,
    ClaimGold,
    DatasetError,
    EntityGold,
    EvalExample,
    SentenceGold,
    benchmark_from_config,
    load_benchmark,
    load_carb,
    load_enokiqa,
    load_factcheck,
    load_halluentity,
    load_mushroom,
    load_psiloqa_csv,
    load_psiloqa_hub,
    load_ragtruth,
    load_ragtruth_processed,
    load_sentence_sample,
    load_wice,
)
from enoki_hd.text import anchor
from enoki_hd.types import Span

MUSHROOM = "benchmarks/mushroom_dev30/mushroom.en-tst.v1.dev30.with_context.jsonl"
PSILOQA = "benchmarks/psiloqa_en50"
RAGTRUTH_FIXTURE = "fixtures/ragtruth_labels/response_sample.jsonl"
FACTCHECK = "benchmarks/factcheck_bench/factcheck_gpt_dev30.jsonl"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "benchmarks"


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def write_csv(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def span_texts(text: str, spans: list[Span]) -> list[str]:
    return [text[s.start : s.end] for s in spans]


# ---------------------------------------------------------------------------------------------
# Schema
# ---------------------------------------------------------------------------------------------


def test_example_and_benchmark_round_trip_through_json():
    example = EvalExample(
        id="x",
        question="q?",
        context="ctx",
        answer="Paris is big.",
        gold_spans=[Span(0, 5)],
        soft_labels=[{"start": 0, "end": 5, "prob": 0.5}],
        sentence_labels=[
            SentenceGold(Span(0, 13), "Paris is big.", True),
            SentenceGold(None, "x", False),
        ],
        claim_labels=[ClaimGold("Paris is big", True, "partially_supported")],
        entity_labels=[EntityGold(Span(0, 5), "Paris", True), EntityGold(None, "Rome", False)],
        example_label=True,
        metadata={"missing_context": False},
    )
    benchmark = Benchmark(
        "toy", "span", [example], references={"a": [[Span(1, 2)]]}, dropped={"label_na": 1}
    )
    restored = Benchmark.from_dict(json.loads(json.dumps(benchmark.to_dict())))
    assert restored == benchmark


def test_dataset_error_is_a_value_error_with_location():
    error = DatasetError("f.jsonl", 3, "answer", "must be a string, got int")
    assert isinstance(error, ValueError)
    assert str(error) == "f.jsonl:3: field 'answer' must be a string, got int"


# ---------------------------------------------------------------------------------------------
# MuSHROOM
# ---------------------------------------------------------------------------------------------


def test_mushroom_dev30_real_rows(shared_dir: Path):
    benchmark = load_mushroom(shared_dir / MUSHROOM)
    assert (benchmark.level, len(benchmark)) == ("span", 30)
    assert benchmark.flagged == {} and benchmark.dropped == {}
    assert all(e.context and e.example_label for e in benchmark.examples)
    by_id = {e.id: e for e in benchmark.examples}
    mayor = by_id["tst-en-107"]
    assert mayor.question == "Who is the mayor of Jonquery?"
    assert mayor.gold_spans == [Span(22, 38), Span(58, 62)]
    assert span_texts(mayor.answer, mayor.gold_spans) == ["Jonas Gahr Støre", "2013"]
    assert len(mayor.soft_labels) == 6
    assert mayor.soft_labels[1] == {"start": 22, "end": 38, "prob": 1.0}
    assert span_texts(by_id["tst-en-106"].answer, by_id["tst-en-106"].gold_spans) == ["Skyfall"]
    assert mayor.metadata["lang"] == "EN"


def test_mushroom_official_rows_without_context_are_kept_and_counted(tmp_path: Path):
    rows = [
        {"id": "a", "model_input": "Q?", "model_output_text": " Paris.", "hard_labels": [[1, 6]]},
        {"id": "b", "model_input": "Q?", "model_output_text": "No.", "hard_labels": []},
    ]
    benchmark = load_mushroom(write_jsonl(tmp_path / "m.jsonl", rows))
    assert [e.context for e in benchmark.examples] == ["", ""]
    assert all(e.metadata["missing_context"] for e in benchmark.examples)
    assert benchmark.flagged == {"missing_context": 2}
    assert [e.example_label for e in benchmark.examples] == [True, False]
    assert benchmark.examples[0].soft_labels is None


def test_mushroom_malformed_hard_labels(tmp_path: Path):
    rows = [
        {"id": "a", "model_output_text": "abc", "hard_labels": [[0, 1]]},
        {"id": "b", "model_output_text": "abc", "hard_labels": [[1, 9]]},
    ]
    path = write_jsonl(tmp_path / "m.jsonl", rows)
    with pytest.raises(DatasetError) as info:
        load_mushroom(path)
    assert str(info.value) == (
        f"{path}:2: field 'hard_labels' must be a list of [start, end] pairs "
        "with 0 <= start <= end <= len(model_output_text)"
    )


def test_mushroom_duplicate_id_and_bad_json(tmp_path: Path):
    row = {"id": "a", "model_output_text": "abc", "hard_labels": []}
    path = write_jsonl(tmp_path / "m.jsonl", [row, row])
    with pytest.raises(DatasetError, match=r"m\.jsonl:2: field 'id' repeats the id 'a' of line 1"):
        load_mushroom(path)
    path.write_text('{"id": "a"\n', "utf-8")
    with pytest.raises(DatasetError, match=r"m\.jsonl:1: is not valid JSON"):
        load_mushroom(path)


# ---------------------------------------------------------------------------------------------
# PsiloQA
# ---------------------------------------------------------------------------------------------


def test_psiloqa_en50_real_annotator_files(shared_dir: Path):
    benchmark = load_psiloqa_csv(shared_dir / PSILOQA)
    assert (benchmark.level, len(benchmark)) == ("span", 50)
    assert list(benchmark.references) == ["1_annotator", "2_annotator", "3_annotator", "gpt"]
    assert all(len(spans) == 50 for spans in benchmark.references.values())
    assert [e.gold_spans for e in benchmark.examples] == benchmark.references["1_annotator"]
    assert all("[HAL]" not in e.answer and "[/HAL]" not in e.answer for e in benchmark.examples)
    assert all(e.context for e in benchmark.examples)
    assert sum(e.example_label for e in benchmark.examples) == 48

    index = [e.id for e in benchmark.examples].index("psiloqa_microsoft/Phi-4-mini-instruct_19369")
    example = benchmark.examples[index]
    assert example.answer.startswith(
        'Primera Air Scandinavia was originally founded in Sweden under the name "Primera Air '
        'Sweden" in 2006. It was established'
    )
    assert (
        example.question
        == "Where was Primera Air Scandinavia originally founded and under what name?"
    )
    assert example.gold_spans[:2] == [Span(50, 56), Span(72, 92)]
    assert span_texts(example.answer, example.gold_spans[:2]) == ["Sweden", '"Primera Air Sweden"']
    assert benchmark.references["2_annotator"][index] == [Span(50, 506)]
    third = benchmark.references["3_annotator"][index]
    assert span_texts(example.answer, third[:2]) == ["Sweden", '"Primera Air Sweden" in 2006']
    assert example.metadata["gold_annotator"] == "1_annotator"


def psilo_row(annotated: str, **overrides: str) -> dict[str, str]:
    row = {
        "id": "p1",
        "question": "Where is Paris?",
        "wiki_passage": "Paris is in France.",
        "annotated_span": annotated,
    }
    row.update(overrides)
    return row


def test_psiloqa_tag_stripping_and_whitespace_remap(tmp_path: Path):
    first = write_csv(tmp_path / "a.csv", [psilo_row("Paris is in [HAL]Spain[/HAL].")])
    second = write_csv(tmp_path / "b.csv", [psilo_row("Paris  is in\n[HAL]Spain.[/HAL]")])
    benchmark = load_psiloqa_csv([first, second], gold="b")
    example = benchmark.examples[0]
    assert example.answer == "Paris is in Spain."
    assert benchmark.references == {"a": [[Span(12, 17)]], "b": [[Span(12, 18)]]}
    assert example.gold_spans == [Span(12, 18)]
    assert benchmark.flagged == {"whitespace_remapped": 1}


def test_psiloqa_an_unknown_gold_annotator_names_the_key_and_the_files(tmp_path: Path):
    first = write_csv(tmp_path / "a.csv", [psilo_row("Paris is in [HAL]Spain[/HAL].")])
    second = write_csv(tmp_path / "b.csv", [psilo_row("Paris is in [HAL]Spain[/HAL].")])
    with pytest.raises(ValueError) as info:
        load_psiloqa_csv([first, second], gold="c")
    assert str(info.value) == (
        "benchmark.gold (the annotator whose spans are gold) must name one of the annotator "
        "files: a, b; got 'c'"
    )


def test_psiloqa_malformed_rows(tmp_path: Path):
    unbalanced = write_csv(tmp_path / "a.csv", [psilo_row("Paris [HAL]is in Spain.")])
    with pytest.raises(DatasetError) as info:
        load_psiloqa_csv([unbalanced])
    assert (
        str(info.value)
        == f"{unbalanced}:2: field 'annotated_span' has unbalanced [HAL]…[/HAL] tags"
    )

    first = write_csv(tmp_path / "b.csv", [psilo_row("Paris is in [HAL]Spain[/HAL].")])
    edited = write_csv(tmp_path / "c.csv", [psilo_row("Paris is in [HAL]Italy[/HAL].")])
    with pytest.raises(DatasetError) as info:
        load_psiloqa_csv([first, edited])
    assert str(info.value) == (
        f"{edited}:2: field 'annotated_span' with [HAL] tags removed differs from the answer in b.csv:2"
    )


def test_psiloqa_hub_schema(tmp_path: Path):
    rows = [
        {
            "id": "h1",
            "lang": "en",
            "question": "Where?",
            "wiki_passage": "Paris is in France.",
            "llm_answer": "In Spain.",
            "labels": [[3, 8]],
        },
        {
            "id": "h2",
            "lang": "de",
            "question": "Wo?",
            "wiki_passage": "x",
            "llm_answer": "Da.",
            "labels": [],
        },
    ]
    path = write_jsonl(tmp_path / "h.jsonl", rows)
    benchmark = load_psiloqa_hub(path, lang="en")
    assert len(benchmark) == 1 and benchmark.dropped == {"other_lang": 1}
    assert span_texts(benchmark.examples[0].answer, benchmark.examples[0].gold_spans) == ["Spain"]
    rows[0]["labels"] = [[3, 80]]
    write_jsonl(path, rows)
    with pytest.raises(DatasetError) as info:
        load_psiloqa_hub(path)
    assert str(info.value) == (
        f"{path}:1: field 'labels' must be a list of [start, end] pairs with 0 <= start <= end <= len(llm_answer)"
    )


# ---------------------------------------------------------------------------------------------
# RAGTruth
# ---------------------------------------------------------------------------------------------


def test_ragtruth_fixture_labels_without_sources(shared_dir: Path):
    path = shared_dir / RAGTRUTH_FIXTURE
    benchmark = load_ragtruth(path)
    raw = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    assert len(benchmark) == 40
    assert benchmark.flagged == {"missing_context": 40}
    assert all(e.context == "" and e.metadata["missing_context"] for e in benchmark.examples)
    assert sum(len(e.gold_spans) for e in benchmark.examples) == 18
    for example, row in zip(benchmark.examples, raw, strict=True):
        assert example.id == row["id"]
        expected = sorted(row["labels"], key=lambda label: (label["start"], label["end"]))
        assert span_texts(example.answer, example.gold_spans) == [
            label["text"] for label in expected
        ]
        assert example.example_label == bool(row["labels"])
    assert load_ragtruth(path, split="train").dropped == {"other_split": 40}


def ragtruth_files(tmp_path: Path, labels: list[dict[str, Any]]) -> tuple[Path, Path]:
    sources = [
        {
            "source_id": "1",
            "task_type": "QA",
            "source_info": {
                "question": "Where is Paris?",
                "passages": "passage 1: Paris is in France.",
            },
            "prompt": "Answer ...",
        },
        {
            "source_id": "2",
            "task_type": "Summary",
            "source_info": "News text.",
            "prompt": "Summarize ...",
        },
        {
            "source_id": "3",
            "task_type": "Data2txt",
            "source_info": {"name": "Café", "stars": 4.5},
            "prompt": "Write ...",
        },
    ]
    responses = [
        {
            "id": "10",
            "source_id": "1",
            "model": "m",
            "response": "Paris is in Spain.",
            "labels": labels,
            "split": "test",
        },
        {
            "id": "11",
            "source_id": "2",
            "model": "m",
            "response": "A summary.",
            "labels": [],
            "split": "test",
        },
        {
            "id": "12",
            "source_id": "3",
            "model": "m",
            "response": "A café.",
            "labels": [],
            "split": "train",
        },
    ]
    return write_jsonl(tmp_path / "response.jsonl", responses), write_jsonl(
        tmp_path / "source_info.jsonl", sources
    )


def test_ragtruth_contexts_per_task_and_reanchoring(tmp_path: Path):
    shifted = [{"start": 0, "end": 5, "text": "Spain", "label_type": "Evident Conflict"}]
    response_path, source_path = ragtruth_files(tmp_path, shifted)
    benchmark = load_ragtruth(response_path, source_path)
    qa, summary, data = benchmark.examples
    assert (qa.question, qa.context) == ("Where is Paris?", "passage 1: Paris is in France.")
    assert (summary.question, summary.context) == (None, "News text.")
    assert data.context == '{\n  "name": "Café",\n  "stars": 4.5\n}'
    assert [e.metadata["task_type"] for e in benchmark.examples] == ["QA", "Summary", "Data2txt"]
    assert qa.gold_spans == [Span(12, 17)]
    assert qa.metadata["labels"][0]["start"] == 12
    assert benchmark.flagged == {"reanchored_label": 1}
    assert len(load_ragtruth(response_path, source_path, split="test")) == 2


def test_ragtruth_malformed_label(tmp_path: Path):
    bad = [{"start": 0, "end": 5, "text": "Italy", "label_type": "Evident Conflict"}]
    response_path, source_path = ragtruth_files(tmp_path, bad)
    with pytest.raises(DatasetError) as info:
        load_ragtruth(response_path, source_path)
    assert str(info.value) == (
        f"{response_path}:1: field 'labels' item 0: text 'Italy' is not at [0, 5) of response "
        "and does not occur there exactly once"
    )


def test_ragtruth_processed_schema(tmp_path: Path):
    row = {
        "id": 7,
        "query": "Where is Paris?",
        "context": "Paris is in France.",
        "output": "Paris is in Spain.",
        "hallucination_labels": json.dumps([{"start": 12, "end": 17, "label": "Evident Conflict"}]),
        "task_type": "QA",
        "split": "test",
    }
    path = write_jsonl(tmp_path / "p.jsonl", [row])
    example = load_ragtruth_processed(path).examples[0]
    assert (example.id, example.question) == ("7", "Where is Paris?")
    assert span_texts(example.answer, example.gold_spans) == ["Spain"]
    row["hallucination_labels"] = json.dumps([{"start": 12, "end": 99, "label": "x"}])
    write_jsonl(path, [row])
    with pytest.raises(DatasetError) as info:
        load_ragtruth_processed(path)
    assert str(info.value) == (
        f"{path}:1: field 'hallucination_labels' must be a list of {{start, end, text}} objects "
        "with 0 <= start <= end <= len(output)"
    )
    row["hallucination_labels"] = "[{"
    write_jsonl(path, [row])
    with pytest.raises(
        DatasetError, match=r"p\.jsonl:1: field 'hallucination_labels' is not valid JSON"
    ):
        load_ragtruth_processed(path)


# ---------------------------------------------------------------------------------------------
# Factcheck-Bench
# ---------------------------------------------------------------------------------------------


def test_factcheck_sentence_level_real_rows(shared_dir: Path):
    benchmark = load_factcheck(shared_dir / FACTCHECK)
    assert (benchmark.level, len(benchmark)) == ("sentence", 90)
    assert benchmark.dropped == {"label_na": 6}
    assert sum(e.example_label for e in benchmark.examples) == 41
    first = benchmark.examples[0]
    assert first.id == "0/sentence1"
    assert first.question == "What is the average height of female Presidents of the United States?"
    assert first.answer.startswith("There have been only four female presidents")
    assert first.sentence_labels == [SentenceGold(Span(0, len(first.answer)), first.answer, True)]
    assert first.context.startswith("There have been no female presidents")
    span = first.metadata["sentence_span"]
    assert (
        first.metadata["response"][span["start"] : span["end"]] == first.metadata["sentence_text"]
    )


def test_factcheck_claim_level_real_rows(shared_dir: Path):
    benchmark = load_factcheck(shared_dir / FACTCHECK, level="claim")
    assert (benchmark.level, len(benchmark)) == ("claim", 219)
    assert benchmark.dropped == {"label_unknown": 6}
    assert Counter(e.claim_labels[0].label for e in benchmark.examples) == {
        "True": 162,
        "False": 57,
    }
    first = benchmark.examples[0]
    assert first.id == "0/sentence1/0"
    assert first.claim_labels == [ClaimGold(first.answer, True, "False")]


def test_factcheck_malformed_claim_columns(tmp_path: Path):
    sentence = {
        "text": "Paris is in Spain.",
        "decontext": "Paris is in Spain.",
        "sentence_factuality_label": False,
        "claims": ["Paris is in Spain."],
        "claims_factuality_label": [False, True],
        "human_evidence": ["NA"],
        "auto_evidence": [["Paris is in France."]],
    }
    row = {
        "prompt": "Where?",
        "response": "Paris is in Spain.",
        "sentences": {"sentence1": sentence},
    }
    path = write_jsonl(tmp_path / "f.jsonl", [row])
    with pytest.raises(DatasetError) as info:
        load_factcheck(path)
    assert str(info.value) == (
        f"{path}:1: field 'sentences.sentence1.claims_factuality_label' must have one entry per claim (1), got 2"
    )


def test_factcheck_claim_checkworthiness_that_is_not_a_list_names_the_field(tmp_path: Path):
    """A number there raised TypeError from inside the message that reports it."""
    sentence = {
        "text": "Paris is in France.",
        "sentence_factuality_label": True,
        "claims": ["Paris is in France."],
        "claims_factuality_label": [True],
        "human_evidence": ["NA"],
        "auto_evidence": [["Paris is in France."]],
        "claim_checkworthiness": 5,
    }
    row = {"prompt": "Where?", "response": "Paris is in France.", "sentences": {"s1": sentence}}
    path = write_jsonl(tmp_path / "f.jsonl", [row])
    with pytest.raises(DatasetError) as info:
        load_factcheck(path)
    assert str(info.value) == (
        f"{path}:1: field 'sentences.s1.claim_checkworthiness' must be a list with one entry "
        "per claim (1), got int"
    )


# ---------------------------------------------------------------------------------------------
# Sentence samples (RAGTruth-250 / ANAH-250)
# ---------------------------------------------------------------------------------------------


def test_ragtruth_sentence_sample_real_rows(shared_dir: Path):
    benchmark = load_benchmark("ragtruth_sent48", shared_dir)
    assert (benchmark.name, benchmark.level, len(benchmark)) == ("ragtruth_sent48", "sentence", 48)
    assert benchmark.flagged == {}
    assert sum(e.example_label for e in benchmark.examples) == 24
    for example in benchmark.examples:
        (label,) = example.sentence_labels
        assert example.answer[label.span.start : label.span.end] == label.text.strip()
    # "3." occurs twice in this answer: anchoring alone refuses, the sentence order places it
    repeated = next(e for e in benchmark.examples if e.id == "16418:6")
    assert anchor(repeated.answer, "3.") is None
    assert repeated.sentence_labels[0].span == Span(320, 322)


def test_sentence_sample_without_output_and_malformed(tmp_path: Path):
    rows = [{"sentence": "Paris is big.", "reference": "Paris is big.", "gold_supported": "true"}]
    path = write_jsonl(tmp_path / "s.jsonl", rows)
    example = load_sentence_sample(path).examples[0]
    assert (example.answer, example.context, example.example_label) == (
        "Paris is big.",
        "Paris is big.",
        False,
    )
    assert example.sentence_labels == [SentenceGold(Span(0, 13), "Paris is big.", False)]
    rows[0]["gold_supported"] = "maybe"
    write_jsonl(path, rows)
    with pytest.raises(DatasetError) as info:
        load_sentence_sample(path)
    assert str(info.value) == f"{path}:1: field 'gold_supported' must be true or false"


# ---------------------------------------------------------------------------------------------
# HalluEntity and EnokiQA (handmade rows: no release file in the shared folder)
# ---------------------------------------------------------------------------------------------


def test_halluentity_entities_and_contexts(tmp_path: Path):
    rows = [
        {
            "prompt": "Tell me a bio of Ann.",
            "response": "Ann was born in Oslo in 1950.",
            "entity": ["Ann", "Oslo", "1950", "Rome"],
            "entity_label": [True, False, True, False],
        }
    ]
    path = write_jsonl(tmp_path / "he.jsonl", rows)
    contexts = write_csv(tmp_path / "ctx.csv", [{"text": "Ann was born in Bergen in 1950."}])
    benchmark = load_halluentity(path, contexts)
    example = benchmark.examples[0]
    assert benchmark.level == "entity"
    assert example.context == "Ann was born in Bergen in 1950."
    assert example.entity_labels == [
        EntityGold(Span(0, 3), "Ann", False),
        EntityGold(Span(16, 20), "Oslo", True),
        EntityGold(Span(24, 28), "1950", False),
        EntityGold(None, "Rome", True),
    ]
    assert example.example_label is True
    assert benchmark.flagged == {"entity_not_located": 1}
    assert load_halluentity(path).flagged == {"entity_not_located": 1, "missing_context": 1}

    rows[0]["entity_label"] = [True]
    write_jsonl(path, rows)
    with pytest.raises(DatasetError) as info:
        load_halluentity(path)
    assert (
        str(info.value)
        == f"{path}:1: field 'entity_label' must have one label per entity (4), got 1"
    )


def test_halluentity_pieces_that_concatenate_to_the_response(tmp_path: Path):
    rows = [
        {
            "response": "Ann is tall.",
            "entity": ["Ann", " is ", "tall", "."],
            "entity_label": [1, 1, 0, 1],
        }
    ]
    example = load_halluentity(write_jsonl(tmp_path / "he.jsonl", rows)).examples[0]
    assert [e.span for e in example.entity_labels] == [
        Span(0, 3),
        Span(3, 7),
        Span(7, 11),
        Span(11, 12),
    ]
    assert [e.hallucinated for e in example.entity_labels] == [False, False, True, False]


def test_enokiqa_with_fact_labels(tmp_path: Path):
    rows = [
        {
            "id": "test_0",
            "question": "Where is Paris?",
            "answer": "Paris is in Spain.",
            "paragraph_context": "Paris is in France.",
            "facts": [
                {
                    "fact": "Paris is in Spain",
                    "span_text": "Spain",
                    "span_start": 12,
                    "span_end": 17,
                    "entailment": 0.1,
                    "neutral": 0.2,
                    "contradiction": 0.7,
                    "hall_prob": 0.9,
                },
                {"subject": "Paris", "relation": "is", "object": "a city", "label": "entailment"},
            ],
        },
        {"question": "Q?", "answer": "A.", "context": "C."},
    ]
    path = write_jsonl(tmp_path / "e.jsonl", rows)
    benchmark = load_enokiqa(path)
    first, second = benchmark.examples
    assert first.context == "Paris is in France."
    assert first.claim_labels == [
        ClaimGold("Paris is in Spain", True, "contradiction"),
        ClaimGold("Paris is a city", False, "entailment"),
    ]
    assert first.metadata["fact_spans"] == [{"start": 12, "end": 17}, None]
    assert first.example_label is True
    assert (second.id, second.context, second.claim_labels, second.example_label) == (
        "line-2",
        "C.",
        None,
        None,
    )
    assert benchmark.flagged == {"no_facts": 1}  # kept, but nothing of it is scored

    rows[0]["facts"][1] = {"fact": "Paris is a city"}
    write_jsonl(path, rows)
    with pytest.raises(DatasetError) as info:
        load_enokiqa(path)
    assert (
        str(info.value) == f"{path}:1: field 'facts' item 1 needs a 'label' string or a 'hall_prob'"
    )


# ---------------------------------------------------------------------------------------------
# WiCE
# ---------------------------------------------------------------------------------------------


def test_wice_full_documents_and_oracle_chunks(shared_dir: Path):
    full = load_benchmark("wice_dev", shared_dir)
    oracle = load_benchmark("wice_dev_oracle", shared_dir)
    assert (full.level, len(full), len(oracle)) == ("claim", 349, 349)
    assert [e.id for e in full.examples] == [e.id for e in oracle.examples]
    assert Counter(e.claim_labels[0].label for e in full.examples) == {
        "partially_supported": 191,
        "supported": 115,
        "not_supported": 43,
    }
    # one claim is 'supported' in claims_dev but its chunks say 'partially_supported'
    assert sum(e.example_label for e in full.examples) == 234
    assert sum(e.example_label for e in oracle.examples) == 235

    claim, chunked = full.examples[0], oracle.examples[0]
    assert claim.id == "dev02986"
    assert claim.claim_labels == [ClaimGold(claim.answer, True, "partially_supported")]
    assert claim.metadata["supporting_sentences"] == [[5, 15], [15, 17]]
    for example in (claim, chunked):
        first_support = example.metadata["supporting_spans"][0][0]
        sentence = example.context[first_support["start"] : first_support["end"]]
        assert sentence == "Media Play News is the voice of the home entertainment industry."
    assert chunked.metadata["supporting_sentences"] == [[5, 15], [15, 17]]
    assert len(chunked.context) < len(claim.context)


def test_wice_malformed_label(tmp_path: Path):
    row = {
        "label": "mostly_supported",
        "supporting_sentences": [],
        "claim": "c",
        "evidence": ["e"],
        "meta": {"id": "d1"},
    }
    path = write_jsonl(tmp_path / "w.jsonl", [row])
    with pytest.raises(DatasetError) as info:
        load_wice(path)
    assert str(info.value) == (
        f"{path}:1: field 'label' must be one of supported, partially_supported, not_supported"
    )


def test_wice_a_first_row_without_supporting_sentences_names_that_field(tmp_path: Path):
    """It was read as a chunk file and blamed meta.chunk_idx, which no row of it has."""
    row = {"label": "supported", "claim": "c", "evidence": ["e"], "meta": {"id": "d1"}}
    path = write_jsonl(tmp_path / "w.jsonl", [row])
    with pytest.raises(DatasetError) as info:
        load_wice(path)
    assert str(info.value) == f"{path}:1: field 'supporting_sentences' is missing"


# ---------------------------------------------------------------------------------------------
# CaRB
# ---------------------------------------------------------------------------------------------


def test_carb_dev_gold(shared_dir: Path):
    carb = load_carb(
        shared_dir / "data/carb/dev_sentences.txt", shared_dir / "data/carb/dev_gold.tsv"
    )
    assert (len(carb.sentences), len(carb.gold), carb.n_tuples) == (641, 638, 2548)
    first = carb.sentences[0]
    assert first.startswith("Although in Flanders , the Flemish Region")
    bush = next(s for s in carb.gold if s.startswith("Earlier this year , President Bush"))
    assert carb.gold[bush][0] == (
        "President Bush",
        "made a final `` take - it - or - leave it '' offer on",
        ["the minimum wage", "Earlier this year"],
    )
    assert carb.gold[bush][1] == ("Bush", "is", ["President"])


def test_carb_gold_sentence_not_in_sentence_file(tmp_path: Path):
    sentences = tmp_path / "s.txt"
    sentences.write_text("Ann sleeps .\n", "utf-8")
    gold = tmp_path / "g.tsv"
    gold.write_text("Ann sleeps .\tsleeps\tAnn\n Bob runs .\truns\tBob\n", "utf-8")
    with pytest.raises(DatasetError) as info:
        load_carb(sentences, gold)
    assert str(info.value) == f"{gold}:2: field 'sentence' is not in s.txt"


# ---------------------------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------------------------


def test_registry_loads_every_benchmark(shared_dir: Path):
    expected = {
        "mushroom_dev30": ("span", 30),
        "psiloqa_en50": ("span", 50),
        "ragtruth_sent48": ("sentence", 48),
        "factcheck_dev30": ("sentence", 90),
        "factcheck_dev30_claims": ("claim", 219),
        "wice_dev": ("claim", 349),
        "wice_dev_oracle": ("claim", 349),
        "capabilities": ("claim", 156),  # the repository's own suite
        "capabilities_fresh": ("claim", 130),  # its held-out suite, measured once
        "spans_fresh": ("span", 120),  # the held-out span set, measured once
        "capabilities_markdown": ("span", 42),  # the repository's own Markdown suite
        "verbatim": ("span", 235),  # context sentences of four of them, given back
    }
    assert set(BENCHMARKS) == set(expected)
    for name, (level, count) in expected.items():
        benchmark = load_benchmark(name, str(shared_dir))
        assert (benchmark.name, benchmark.level, len(benchmark)) == (name, level, count)


def test_unknown_benchmark_lists_known_names(tmp_path: Path):
    with pytest.raises(
        ValueError,
        match=r"unknown benchmark 'mushroom'; known: capabilities, capabilities_fresh, capabilities_markdown, ",
    ):
        load_benchmark("mushroom", tmp_path)


def test_missing_benchmark_files_name_the_path_and_the_variable(tmp_path: Path):
    with pytest.raises(FileNotFoundError) as info:
        load_benchmark("wice_dev", tmp_path)
    message = str(info.value)
    assert str(tmp_path / "benchmarks/wice_dev/claims_dev.jsonl") in message
    assert "ENOKI_SHARED_DIR" in message


def test_a_file_with_a_byte_order_mark_reads_like_one_without(tmp_path: Path):
    """Excel and Notepad start UTF-8 files with a BOM: JSONL failed with 'Unexpected UTF-8
    BOM', the PsiloQA CSV with "field 'id' is missing from the header"."""
    jsonl, folder = tmp_path / "mushroom.jsonl", tmp_path / "psiloqa"
    jsonl.write_bytes(b"\xef\xbb\xbf" + (FIXTURES / "mushroom.jsonl").read_bytes())
    folder.mkdir()
    for csv_file in (FIXTURES / "psiloqa").glob("*.csv"):
        (folder / csv_file.name).write_bytes(b"\xef\xbb\xbf" + csv_file.read_bytes())
    assert load_mushroom(jsonl).examples == load_mushroom(FIXTURES / "mushroom.jsonl").examples
    plain = load_psiloqa_csv(FIXTURES / "psiloqa")
    assert load_psiloqa_csv(folder).examples == plain.examples


def test_a_file_not_in_utf8_names_its_line_and_the_conversion(tmp_path: Path):
    text = (FIXTURES / "mushroom.jsonl").read_text(encoding="utf-8")
    latin1 = tmp_path / "latin1.jsonl"
    latin1.write_bytes(text.replace("m2", "m2é").encode("latin-1"))
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "m2" in row)
    with pytest.raises(DatasetError) as info:
        load_mushroom(latin1)
    assert str(info.value) == (
        f"{latin1}:{line}: is not UTF-8 text (byte 0xe9); convert the file: iconv -f <enc> "
        f"-t UTF-8 {latin1} > {latin1}.utf8, <enc> being its encoding (e.g. LATIN1, CP1252)"
    )
    utf16 = tmp_path / "utf16.csv"
    utf16.write_text("id,question\n", encoding="utf-16")
    with pytest.raises(DatasetError) as info:
        load_psiloqa_csv(utf16)
    assert str(info.value) == (
        f"{utf16}:1: is UTF-16 text, not UTF-8; convert the file: iconv -f UTF-16 -t UTF-8 "
        f"{utf16} > {utf16}.utf8"
    )


@pytest.mark.parametrize("encoding", ["UTF-16LE", "UTF-16BE"])
def test_utf16_without_a_byte_order_mark_names_the_conversion(tmp_path: Path, encoding: str):
    """All-ASCII UTF-16 decodes as UTF-8 with a NUL byte next to each character; it gave a
    JSON parse error."""
    path = tmp_path / "utf16.jsonl"
    path.write_bytes((FIXTURES / "mushroom.jsonl").read_text("utf-8").encode(encoding))
    with pytest.raises(DatasetError) as info:
        load_mushroom(path)
    assert str(info.value) == (
        f"{path}:1: holds NUL bytes ({encoding} text without a byte-order mark?), not UTF-8 "
        f"text; convert the file: iconv -f {encoding} -t UTF-8 {path} > {path}.utf8"
    )


def test_a_lone_surrogate_escape_names_its_line_and_field(tmp_path: Path):
    """It passed every check and failed at the end, writing results, with no line or field."""
    path = tmp_path / "surrogate.jsonl"
    path.write_text(
        '{"id": "a1", "model_input": "Q?", "model_output_text": "Rome.", "hard_labels": []}\n'
        '{"id": "a2", "model_input": "Q?", "model_output_text": "The \\ud800 Tower", '
        '"hard_labels": []}\n',
        encoding="utf-8",
    )
    with pytest.raises(DatasetError) as info:
        load_mushroom(path)
    assert str(info.value) == (
        f"{path}:2: field 'model_output_text' holds a lone surrogate (U+D800 at offset 4), "
        "which is no character; decode the text as UTF-8 (with errors='replace' if it is "
        "damaged)"
    )


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            {"name": "mushroom_dev30", "level": "span", "hub_id": None, "path": "my.jsonl"},
            "benchmark.path is read only with benchmark=file: use benchmark=file "
            "benchmark.format=<fmt> benchmark.path=… (formats: mushroom, psiloqa_csv, ",
        ),
        (
            {"name": "file", "path": "my.jsonl", "format": "enokiqa", "contxt_field": "x"},
            "unknown key benchmark.contxt_field (did you mean benchmark.context_field?); "
            "benchmark=file reads benchmark.name, benchmark.path, benchmark.format, ",
        ),
        (
            {"name": "mushroom_dev30", "hub_id": None, "split": "test"},
            "benchmark.split is read only with benchmark=file",
        ),
    ],
)
def test_a_benchmark_key_its_loader_would_ignore_is_refused(tmp_path: Path, config, message):
    """+benchmark.path=FILE on a registered benchmark (Hydra's own hint when benchmark.path=
    is refused) evaluated the registered set and ignored the file."""
    with pytest.raises(BenchmarkConfigError) as info:
        benchmark_from_config(config, tmp_path)
    assert str(info.value).startswith(message)


# ---------------------------------------------------------------------------------------------
# Verbatim probe
# ---------------------------------------------------------------------------------------------


def test_verbatim_answers_are_context_sentences_with_no_gold_span():
    from enoki_hd.eval.datasets.schema import Benchmark, EvalExample
    from enoki_hd.eval.datasets.verbatim import build_verbatim

    context = (
        "Short one. The bridge over the river was opened to traffic in 1932 by the mayor. "
        "It is 1,200 metres long and carries four lanes of the coastal road. "
        "Is this a question about the bridge and its long history?"
    )
    source = Benchmark("src", "span", [EvalExample("a", None, context, "x")] * 2)
    probe = build_verbatim({"src": source, "other": source}, per_set=1, seed=0)
    assert [(e.id, e.gold_spans, e.example_label) for e in probe.examples] == [
        ("src:0", [], False),
        ("other:0", [], False),
    ]
    candidates = {
        "The bridge over the river was opened to traffic in 1932 by the mayor.",
        "It is 1,200 metres long and carries four lanes of the coastal road.",
    }  # too short, and a question, are never taken
    assert {e.answer for e in probe.examples} <= candidates
    assert all(e.answer in e.context for e in probe.examples)
    both = build_verbatim({"src": source}, per_set=5)
    assert sorted(e.answer for e in both.examples) == sorted(candidates)  # one context, two
    with pytest.raises(ValueError, match="per_set must be >= 1, got 0"):
        build_verbatim({"src": source}, per_set=0)
