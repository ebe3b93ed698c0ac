"""The iterative grid labelling tagger (after OpenIE6) on any ``transformers`` encoder.

A sentence is encoded once by the backbone without its last ``k`` layers. Each extraction
depth then re-applies those ``k`` layers to the hidden states of the previous depth, reads each
word at its first sub-token and labels it NONE / ARG1 / REL / ARG2 / LOC_TMP / TYPE with one
linear classifier: depth ``d`` is the ``d``-th extraction, one row of the grid. With
``label_embeddings`` the labels the previous depth predicted (argmax, as OpenIE6 does in
training too) are embedded and added to the hidden states at the word positions before the
next depth's layers, so each depth knows what was extracted before it; without them (the
reference's classifier-only variant) depths differ only by the repeated layers.

Backbones come through ``AutoModel``; the layers to repeat are found on BERT-like encoders
(``encoder.layer``: BERT, RoBERTa, ELECTRA, MiniLM, ...) and on ModernBERT (``layers``, with
its rotary position embeddings, sliding-window layers and final norm). The model is a
``PreTrainedModel`` registered with the Auto classes under ``model_type="enoki_igl"``, so
``save_pretrained`` / ``from_pretrained`` work without ``trust_remote_code`` once this module
is imported.

Inputs: ``input_ids`` / ``attention_mask`` (batch, tokens); ``word_index`` (batch, words) long,
the position of each word's first sub-token (the three sentinels are the last words);
``word_mask`` (batch, words) bool.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal

import torch
from torch import nn
from transformers import AutoConfig, AutoModel, PretrainedConfig, PreTrainedModel
from transformers.masking_utils import (
    create_bidirectional_mask,
    create_bidirectional_sliding_window_mask,
)
from transformers.utils import ModelOutput

from enoki_hd.igl.labels import LABELS, NONE, SENTINELS
from enoki_hd.igl.loss import hungarian_loss, position_loss

__all__ = ["IGLConfig", "IGLOutput", "IGLTagger"]

logger = logging.getLogger(__name__)

LossType = Literal["hungarian", "position"]

# Encoders with an ``encoder.layer`` list whose layers need more than (hidden, mask): relative
# position inputs the tagger does not build.
_UNSUPPORTED_BERT_LIKE = frozenset({"deberta", "deberta-v2", "funnel", "mpnet"})


class IGLConfig(PretrainedConfig):
    """Configuration of :class:`IGLTagger`.

    ``backbone`` is the encoder's configuration as a dict (``PretrainedConfig.to_dict()``, with
    ``model_type``); ``depth`` the number of extraction depths (rows); ``iterative_layers`` how
    many of the encoder's last layers are re-applied per depth; ``label_embeddings`` whether the
    previous depth's labels are fed to the next; ``dropout`` on the word representations before
    the classifier; ``sentinel_token_ids`` the ids of the three sentinel tokens in the
    tokenizer the model was built with.
    """

    model_type = "enoki_igl"

    backbone: dict[str, Any] | None = None
    depth: int = 3
    iterative_layers: int = 2
    label_embeddings: bool = True
    dropout: float = 0.1
    sentinel_token_ids: list[int] | None = None

    def __post_init__(self, **kwargs: Any) -> None:
        if self.id2label is None and kwargs.get("num_labels") in (None, len(LABELS)):
            self.id2label = dict(enumerate(LABELS))
            self.label2id = {name: i for i, name in enumerate(LABELS)}
        super().__post_init__(**kwargs)
        if self.depth < 1:
            raise ValueError(f"depth must be at least 1, got {self.depth}")
        if self.iterative_layers < 0:
            raise ValueError(f"iterative_layers must be >= 0, got {self.iterative_layers}")

    def backbone_config(self) -> PretrainedConfig:
        """The backbone's configuration object, rebuilt from :attr:`backbone`."""
        if not self.backbone or "model_type" not in self.backbone:
            raise ValueError(
                "IGLConfig.backbone must be a transformers config dict with a 'model_type'; "
                "build the tagger with IGLTagger.from_backbone(name_or_config)"
            )
        fields = dict(self.backbone)
        return AutoConfig.for_model(fields.pop("model_type"), **fields)


@dataclass
class IGLOutput(ModelOutput):
    """``logits`` (batch, depth, words, num_labels); ``loss`` when labels were given."""

    loss: torch.Tensor | None = None
    logits: torch.Tensor | None = None


class IGLTagger(PreTrainedModel):
    """Iterative grid labelling: ``depth`` rows of word labels from one encoder pass."""

    config_class = IGLConfig
    config: IGLConfig
    base_model_prefix = "backbone"
    main_input_name = "input_ids"
    supports_gradient_checkpointing = True

    def __init__(self, config: IGLConfig) -> None:
        super().__init__(config)
        backbone = AutoModel.from_config(config.backbone_config())
        self._kind, self.iterative_layers, self.final_norm = _split_backbone(
            backbone, config.iterative_layers
        )
        self.backbone = backbone
        hidden_size = backbone.config.hidden_size
        num_labels = config.num_labels or len(LABELS)
        self.label_embeddings = (
            nn.Embedding(num_labels, hidden_size) if config.label_embeddings else None
        )
        self.dropout = nn.Dropout(config.dropout)
        self.classifier = nn.Linear(hidden_size, num_labels)
        self.post_init()

    @classmethod
    def from_backbone(
        cls,
        backbone: str | PretrainedConfig,
        *,
        tokenizer: Any = None,
        local_files_only: bool = False,
        revision: str | None = None,
        trust_remote_code: bool = False,
        **cfg: Any,
    ) -> IGLTagger:
        """A tagger on a pretrained encoder (local path or hub id) or a random one (a config).

        With ``tokenizer``, the :data:`SENTINELS` are added to it as special tokens when it
        lacks them (the tokenizer is changed in place), the embeddings are grown when the
        vocabulary outgrows them, and their ids are stored in the config. ``cfg`` are
        :class:`IGLConfig` fields (``depth``, ``iterative_layers``, ``label_embeddings``,
        ``dropout``).
        """
        if isinstance(backbone, PretrainedConfig):
            encoder = AutoModel.from_config(backbone, trust_remote_code=trust_remote_code)
        else:
            encoder = AutoModel.from_pretrained(
                backbone,
                local_files_only=local_files_only,
                revision=revision,
                trust_remote_code=trust_remote_code,
            )
        sentinel_ids = None
        if tokenizer is not None:
            vocabulary = tokenizer.get_vocab()
            if any(token not in vocabulary for token in SENTINELS):
                tokenizer.add_special_tokens({"additional_special_tokens": list(SENTINELS)})
            if len(tokenizer) > encoder.get_input_embeddings().num_embeddings:
                encoder.resize_token_embeddings(len(tokenizer))
            sentinel_ids = [int(i) for i in tokenizer.convert_tokens_to_ids(list(SENTINELS))]
        config = IGLConfig(
            backbone=encoder.config.to_dict(), sentinel_token_ids=sentinel_ids, **cfg
        )
        model = cls(config)
        # swap the random encoder built from the config for the pretrained one
        model._kind, model.iterative_layers, model.final_norm = _split_backbone(
            encoder, config.iterative_layers
        )
        model.backbone = encoder
        return model

    def _init_weights(self, module: nn.Module) -> None:
        std = float((self.config.backbone or {}).get("initializer_range", 0.02))
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=std)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=std)
        else:
            super()._init_weights(module)

    def get_input_embeddings(self) -> nn.Module:
        return self.backbone.get_input_embeddings()

    def set_input_embeddings(self, value: nn.Module) -> None:
        self.backbone.set_input_embeddings(value)

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        word_index: torch.Tensor,
        word_mask: torch.Tensor,
        labels: torch.Tensor | None = None,
        loss_type: LossType = "hungarian",
        *,
        depth: int | None = None,
    ) -> IGLOutput:
        """``logits`` (batch, depth, words, num_labels); ``loss`` when ``labels`` (batch, rows,
        words, ``IGNORE``-padded) are given: Hungarian-matched (default) or positional."""
        logits = self._depth_logits(input_ids, attention_mask, word_index, word_mask, depth)
        loss = None
        if labels is not None:
            if loss_type == "hungarian":
                loss = hungarian_loss(logits, labels, word_mask)
            elif loss_type == "position":
                loss = position_loss(logits, labels, word_mask)
            else:
                raise ValueError(f"loss_type must be 'hungarian' or 'position', got {loss_type!r}")
        return IGLOutput(loss=loss, logits=logits)

    def predict(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        word_index: torch.Tensor,
        word_mask: torch.Tensor,
        *,
        depth: int | None = None,
    ) -> torch.Tensor:
        """Greedy label ids (batch, depth, words); NONE where ``word_mask`` is False."""
        labels, _ = self.predict_with_scores(
            input_ids, attention_mask, word_index, word_mask, depth=depth
        )
        return labels

    def predict_with_scores(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        word_index: torch.Tensor,
        word_mask: torch.Tensor,
        *,
        depth: int | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Greedy label ids (batch, depth, words), NONE where ``word_mask`` is False, and the
        probability of each chosen label (batch, depth, words), the material of a fact's
        confidence. The depth loop is unrolled to ``depth`` (default ``config.depth``) with no
        branch on tensor values, so the method traces to a fixed-depth ONNX graph."""
        logits = self._depth_logits(input_ids, attention_mask, word_index, word_mask, depth)
        probs, labels = logits.softmax(dim=-1).max(dim=-1)  # (batch, depth, words) each
        labels = labels.masked_fill(~word_mask.bool().unsqueeze(1), NONE)
        return labels, probs

    def _depth_logits(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        word_index: torch.Tensor,
        word_mask: torch.Tensor,
        depth: int | None,
    ) -> torch.Tensor:
        """Logits (batch, depth, words, num_labels) of the depth loop."""
        depth = self.config.depth if depth is None else int(depth)
        if depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        hidden = self.backbone(
            input_ids=input_ids, attention_mask=attention_mask
        ).last_hidden_state  # (batch, tokens, hidden)
        layer_inputs = self._layer_inputs(hidden, attention_mask)
        gather_index = word_index.unsqueeze(-1).expand(-1, -1, hidden.shape[-1])  # (b, w, h)
        word_weight = word_mask.unsqueeze(-1).to(hidden.dtype)  # (batch, words, 1)
        all_logits = []
        previous: torch.Tensor | None = None
        for _ in range(depth):
            if previous is not None and self.label_embeddings is not None:
                label_vectors = self.label_embeddings(previous) * word_weight  # (b, w, h)
                hidden = hidden.scatter_add(1, gather_index, label_vectors)
            hidden = self._apply_iterative_layers(hidden, layer_inputs)
            words = self.final_norm(hidden.gather(1, gather_index))  # (batch, words, hidden)
            logits = self.classifier(self.dropout(words))  # (batch, words, num_labels)
            all_logits.append(logits)
            previous = logits.argmax(dim=-1)
        return torch.stack(all_logits, dim=1)

    def _layer_inputs(self, hidden: torch.Tensor, attention_mask: torch.Tensor) -> dict[str, Any]:
        """Attention masks (and ModernBERT's rotary embeddings) for the repeated layers, built
        once with the backbone's own mask functions so they match its attention backend."""
        config = self.backbone.config
        if self._kind == "modernbert":
            mask_kwargs = {
                "config": config,
                "inputs_embeds": hidden,
                "attention_mask": attention_mask,
            }
            position_ids = torch.arange(hidden.shape[1], device=hidden.device).unsqueeze(0)
            layer_types = {layer.attention_type for layer in self.iterative_layers}
            return {
                "masks": {
                    "full_attention": create_bidirectional_mask(**mask_kwargs),
                    "sliding_attention": create_bidirectional_sliding_window_mask(**mask_kwargs),
                },
                "rotary": {
                    kind: self.backbone.rotary_emb(hidden, position_ids, kind)
                    for kind in layer_types
                },
            }
        return {
            "mask": create_bidirectional_mask(
                config=config, inputs_embeds=hidden, attention_mask=attention_mask
            )
        }

    def _apply_iterative_layers(
        self, hidden: torch.Tensor, layer_inputs: dict[str, Any]
    ) -> torch.Tensor:
        for layer in self.iterative_layers:
            if self._kind == "modernbert":
                output = layer(
                    hidden,
                    attention_mask=layer_inputs["masks"][layer.attention_type],
                    position_embeddings=layer_inputs["rotary"][layer.attention_type],
                )
            else:
                output = layer(hidden, layer_inputs["mask"])
            hidden = output[0] if isinstance(output, tuple) else output
        return hidden


def _split_backbone(backbone: Any, k: int) -> tuple[str, nn.ModuleList, nn.Module]:
    """Take the last ``k`` layers (and ModernBERT's final norm) out of ``backbone``, in place.

    Returns the layer-call convention (``"bert"`` or ``"modernbert"``), the removed layers and
    the norm that closes each depth (identity for post-norm BERT-like encoders). The pooler is
    dropped: the tagger never reads it.
    """
    model_type = backbone.config.model_type
    encoder: Any = getattr(backbone, "encoder", None)
    if model_type == "modernbert":
        layers = backbone.layers
        kind = "modernbert"
    elif isinstance(getattr(encoder, "layer", None), nn.ModuleList) and (
        model_type not in _UNSUPPORTED_BERT_LIKE
    ):
        layers = encoder.layer
        kind = "bert"
    else:
        raise ValueError(
            f"the IGL tagger cannot re-apply the layers of a {model_type!r} encoder: supported "
            "are ModernBERT and BERT-like encoders (encoder.layer called with hidden states and "
            "an attention mask: BERT, RoBERTa, XLM-R, ELECTRA, MiniLM)"
        )
    if not 0 <= k <= len(layers):
        raise ValueError(
            f"iterative_layers={k} but the {model_type} backbone has {len(layers)} layers"
        )
    base = nn.ModuleList(layers[: len(layers) - k])
    top = nn.ModuleList(layers[len(layers) - k :])
    final_norm: nn.Module = nn.Identity()
    if kind == "modernbert":
        backbone.layers = base
        final_norm = backbone.final_norm
        backbone.final_norm = nn.Identity()
    else:
        encoder.layer = base
    if getattr(backbone, "pooler", None) is not None:
        backbone.pooler = None
    return kind, top, final_norm


AutoConfig.register(IGLConfig.model_type, IGLConfig, exist_ok=True)
AutoModel.register(IGLConfig, IGLTagger, exist_ok=True)
