"""The encoder extractor: facts from the distilled IGL tagger, one encoder pass per sentence.

answer → sentences (:func:`enoki_hd.text.segment_sentences` unless given) → words
(:func:`enoki_hd.text.tokenize_words`) → sub-token windows of whole words with the three
sentinels appended (:func:`enoki_hd.igl.data.encode_example`, exactly as in training) → batches
of windows sorted by length → the tagger's ``predict_with_scores`` (ONNX Runtime or torch):
``depth`` label rows per window and the probability of each chosen label → rows over the
sentence's words, a negation the tagger left out given to the part beside it
(:func:`enoki_hd.igl.decode.keep_negations`) → each row read against the sentence's dependency
parse, a clause the sentence does not assert dropped, a verbless piece of a longer row dropped,
an existential clause or a clause with a noun subject no row states added
(:mod:`enoki_hd.extract.asserted`) →
:func:`enoki_hd.igl.decode.decode_rows` → facts with spans into the answer.

A checkpoint directory holds either

- ``model.onnx`` (inputs ``input_ids``, ``attention_mask``, ``word_index``, ``word_mask``;
  outputs ``labels`` and ``probs``, both (batch, depth, words)), ``tokenizer.json`` and a
  ``manifest.json`` (written by :func:`enoki_hd.igl.export.export_tagger`), run with
  ``onnxruntime`` and ``tokenizers`` only; or
- a ``save_pretrained`` directory of :class:`enoki_hd.igl.model.IGLTagger` with its tokenizer,
  run with torch.

The manifest's ``inference`` block (``backend``, ``max_length``, ``depth``) gives the defaults
of every way of loading a checkpoint; an explicit option the checkpoint cannot honour is a
``ValueError``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
from spacy.tokens import Doc
from tokenizers import Tokenizer

from enoki_hd.export.onnx import sha256_file
from enoki_hd.extract import register
from enoki_hd.extract.asserted import (
    asserted_row,
    clauses_added,
    existentials_added,
    fragments_dropped,
    object_completed,
    object_filled,
    pieces_joined,
    relation_filled,
    relation_implicit,
    relation_parsed,
    subject_filled,
    subjects_distributed,
    word_of_tokens,
)
from enoki_hd.extract.rules.families.polarity import modality_text, negated_text
from enoki_hd.extract.rules.language import DEFAULT_MIN_ENGLISH_SHARE
from enoki_hd.extract.rules.markdown import mask_markdown
from enoki_hd.igl.data import EncodedWindow, encode_example
from enoki_hd.igl.decode import (
    Split,
    dangling_articles_dropped,
    decode_rows,
    edges_trimmed,
    keep_negations,
    negation_positions,
)
from enoki_hd.igl.labels import ARG1, ARG2, LOC_TMP, NONE, REL, SENTINELS, GridExample
from enoki_hd.runtime.batching import length_batches
from enoki_hd.runtime.files import pad_token_id, position_count, read_json
from enoki_hd.runtime.onnx import create_session, intra_op_threads
from enoki_hd.text import (
    DEFAULT_SPACY_MODEL,
    load_spacy_pipeline,
    segment_sentences,
    tokenize_words,
)
from enoki_hd.types import Fact, Span
from enoki_hd.verify.evidence import require_fraction, require_int
from enoki_hd.verify.loading import (
    default_checkpoint_dir,
    portable_reference,
    resolve_checkpoint,
)
from enoki_hd.verify.nli import VerifierError, unloadable_graph_message

logger = logging.getLogger(__name__)

Backend = Literal["onnx", "torch"]

TAGGER_ENV = "ENOKI_TAGGER"
DEFAULT_TAGGER_NAME = "tagger-minilm"
MANIFEST_FILE = "manifest.json"
# The manifest's ``kind`` of a tagger (a verifier's folder holds a manifest too).
TAGGER_KIND = "igl-tagger"
ONNX_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
TORCH_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
# The manifest settings loading takes its defaults from.
INFERENCE_SETTINGS = ("backend", "max_length", "depth")
# The graph's interface (igl.export writes it, this module feeds it).
MODEL_INPUTS = ("input_ids", "attention_mask", "word_index", "word_mask")
MODEL_OUTPUTS = ("labels", "probs")
DEFAULT_MAX_LENGTH = 512
MISSING_HINT = "run `make distill` to train, export and ship the tagger, or pass path=<directory>"
TAGGER_RESTORE_HINT = (
    f"restore the shipped files (`git checkout -- checkpoints/{DEFAULT_TAGGER_NAME}` or a fresh "
    "clone)"
)
# The fix for a tagger file that cannot be read: the shipped one is restored, any other rebuilt.
TAGGER_DAMAGED_HINT = f"{TAGGER_RESTORE_HINT}, or rebuild the tagger with `make distill`"
# Labels decode_rows reads on a sentence word; on a sentinel it reads REL only.
_WORD_LABELS = np.array([label in (ARG1, REL, ARG2, LOC_TMP) for label in range(6)])
_ONNX_TYPES = {"tensor(int64)": np.int64, "tensor(int32)": np.int32, "tensor(bool)": np.bool_}


def default_tagger_path() -> Path:
    """The shipped tagger: ``$ENOKI_TAGGER`` or ``checkpoints/tagger-minilm`` (under
    ``$ENOKI_CHECKPOINTS`` when set, like the verifier's)."""
    env = os.environ.get(TAGGER_ENV)
    return Path(env) if env else default_checkpoint_dir() / DEFAULT_TAGGER_NAME


# ---------------------------------------------------------------------------------------------
# Tokenisation: the slice of a transformers fast tokenizer encode_example reads, over the
# tokenizers library alone (no transformers needed at inference).


class _Encoded:
    def __init__(self, ids: list[int], word_ids: list[int | None]) -> None:
        self._ids, self._word_ids = ids, word_ids

    def __getitem__(self, key: str) -> list[int]:
        if key != "input_ids":
            raise KeyError(key)
        return self._ids

    def word_ids(self) -> list[int | None]:
        return self._word_ids


class WordTokenizer:
    """A ``tokenizers.Tokenizer`` answering the calls :func:`enoki_hd.igl.data.encode_example`
    makes on a transformers fast tokenizer (``tokenizer(words, is_split_into_words=True)``,
    ``word_ids()``, ``num_special_tokens_to_add``, ``pad_token_id``): both run the same
    ``tokenizer.json``, so windows are those of training."""

    is_fast = True

    def __init__(self, tokenizer: Tokenizer, *, pad_token_id: int) -> None:
        self.tokenizer = Tokenizer.from_str(tokenizer.to_str())
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        self.pad_token_id = pad_token_id
        self.all_special_tokens = [
            t.content for t in self.tokenizer.get_added_tokens_decoder().values() if t.special
        ]

    @classmethod
    def from_dir(cls, directory: Path) -> WordTokenizer:
        """The tokenizer saved in ``directory`` (``tokenizer.json``; the pad token from
        ``tokenizer_config.json``).

        Raises:
            FileNotFoundError: there is no ``tokenizer.json``.
            TaggerError: ``tokenizer.json`` or ``tokenizer_config.json`` cannot be read (a
                damaged checkpoint), naming the file and the fix.
        """
        path = directory / TOKENIZER_FILE
        if not path.is_file():
            raise FileNotFoundError(
                f"no {TOKENIZER_FILE} in {directory}: the tagger's fast tokenizer (with the "
                f"sentinels {', '.join(SENTINELS)}) must be saved beside the model; {MISSING_HINT}"
            )
        try:
            tokenizer = Tokenizer.from_file(str(path))
        except Exception as err:  # the tokenizers library raises a bare Exception
            reason = " ".join(str(err).split())
            raise TaggerError(
                f"cannot load the tagger's tokenizer {path}: {reason}; {TAGGER_DAMAGED_HINT}"
            ) from err
        settings = _read_json(directory / "tokenizer_config.json")
        return cls(tokenizer, pad_token_id=pad_token_id(tokenizer, settings))

    def __call__(
        self, words: list[str], *, is_split_into_words: bool, truncation: bool = False
    ) -> _Encoded:
        if not is_split_into_words or truncation:
            raise ValueError("WordTokenizer encodes whole pre-split words, never truncating")
        encoding = self.tokenizer.encode(words, is_pretokenized=True)
        return _Encoded(list(encoding.ids), list(encoding.word_ids))

    def num_special_tokens_to_add(self, pair: bool = False) -> int:
        processor = self.tokenizer.post_processor
        return processor.num_special_tokens_to_add(pair) if processor is not None else 0


def pad_windows(windows: Sequence[EncodedWindow]) -> dict[str, np.ndarray]:
    """Right-pad windows into a batch: ``input_ids`` / ``attention_mask`` (batch, tokens)
    int64, ``word_index`` (batch, words) int64, ``word_mask`` (batch, words) bool — what
    :func:`enoki_hd.igl.data.collate` builds, in numpy and without labels."""
    tokens = max(len(w.input_ids) for w in windows)
    width = max(len(w.word_index) for w in windows)
    batch = {
        "input_ids": np.full((len(windows), tokens), windows[0].pad_token_id, dtype=np.int64),
        "attention_mask": np.zeros((len(windows), tokens), dtype=np.int64),
        "word_index": np.zeros((len(windows), width), dtype=np.int64),
        "word_mask": np.zeros((len(windows), width), dtype=np.bool_),
    }
    for b, w in enumerate(windows):
        batch["input_ids"][b, : len(w.input_ids)] = w.input_ids
        batch["attention_mask"][b, : len(w.input_ids)] = 1
        batch["word_index"][b, : len(w.word_index)] = w.word_index
        batch["word_mask"][b, : len(w.word_mask)] = w.word_mask
    return batch


def row_confidences(labels: np.ndarray, probs: np.ndarray, num_words: int) -> list[float]:
    """Per row, the mean probability of the labels decoding reads (ARG1 / REL / ARG2 /
    LOC_TMP on a word, REL on a sentinel); 0.0 for a row with none.

    ``labels``, ``probs``: (rows, num_words + 3).
    """
    read = _WORD_LABELS[labels]
    read[:, num_words:] = labels[:, num_words:] == REL
    counts = read.sum(axis=1)
    sums = np.where(read, probs, 0.0).sum(axis=1)
    return [float(s / c) if c else 0.0 for s, c in zip(sums, counts, strict=True)]


# ---------------------------------------------------------------------------------------------
# Sessions


class TaggerError(VerifierError):
    """The tagger's graph cannot be loaded or is not the one its manifest describes (a damaged
    or mixed-up checkpoint). A :class:`~enoki_hd.verify.nli.VerifierError`, so it is reported
    like a verifier that cannot load: one line naming the file and the fix (CLI exit 1)."""


class _OnnxTagger:
    """An ``onnxruntime`` session of a tagger graph.

    Raises:
        TaggerError: onnxruntime cannot load the graph (the message names the file, its
            ``sha256``, the ``expected_sha256`` of the manifest and how to restore it), or the
            graph is unrolled to another depth than ``depth`` (the manifest's; None: any).
    """

    def __init__(
        self,
        graph: Path,
        *,
        sha256: str | None = None,
        expected_sha256: str | None = None,
        depth: int | None = None,
    ) -> None:
        import onnxruntime as ort

        threads = intra_op_threads()  # a bad $ENOKI_ONNX_THREADS is no fault of the graph's
        try:
            self.session = create_session(graph, threads=threads)
        except Exception as err:  # InvalidProtobuf, Fail, ...: onnxruntime has no common base
            raise TaggerError(
                unloadable_graph_message(
                    graph,
                    err,
                    sha256 or sha256_file(graph),
                    expected_sha256,
                    ort.__version__,
                    graph="ONNX tagger graph",
                    restore=TAGGER_RESTORE_HINT,
                    rebuild="`make distill`",
                )
            ) from err
        declared = {i.name: i.type for i in self.session.get_inputs()}
        outputs = [o.name for o in self.session.get_outputs()]
        if set(declared) != set(MODEL_INPUTS) or not set(MODEL_OUTPUTS) <= set(outputs):
            raise ValueError(
                f"{graph} takes {sorted(declared)} and returns {outputs}; a tagger graph takes "
                f"{list(MODEL_INPUTS)} and returns {list(MODEL_OUTPUTS)} "
                "(export it with enoki_hd.igl.export.export_tagger)"
            )
        # labels: (batch, depth, words), the depth fixed when the loop was unrolled at export
        shape = next(o.shape for o in self.session.get_outputs() if o.name == "labels")
        unrolled = shape[1] if len(shape) == 3 else None
        if depth is not None and isinstance(unrolled, int) and unrolled != depth:
            sha256 = sha256 or sha256_file(graph)
            raise TaggerError(
                f"the ONNX tagger graph {graph} (sha256 {sha256}) is unrolled to depth "
                f"{unrolled}, but {MANIFEST_FILE} records depth {depth}"
                + ("" if expected_sha256 is None else f" and sha256 {expected_sha256}")
                + f": the graph is not this checkpoint's; {TAGGER_RESTORE_HINT}, or copy the "
                "graph together with its manifest"
            )
        self._dtypes = {name: _ONNX_TYPES.get(kind, np.int64) for name, kind in declared.items()}

    def run(self, batch: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        feed: dict[str, np.ndarray] = {
            name: batch[name].astype(self._dtypes[name]) for name in MODEL_INPUTS
        }
        labels, probs = self.session.run(list(MODEL_OUTPUTS), feed)
        return labels.astype(np.int64), probs.astype(np.float32)


class _TorchTagger:
    def __init__(self, directory: Path, *, device: str, depth: int) -> None:
        import torch

        from enoki_hd.igl.model import IGLTagger

        self._torch = torch
        self.device = torch.device(device)
        model: Any = IGLTagger.from_pretrained(directory)
        self.model = model.to(self.device).eval()
        self.depth = depth

    def run(self, batch: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        torch = self._torch
        with torch.inference_mode():
            tensors = {k: torch.from_numpy(v).to(self.device) for k, v in batch.items()}
            labels, probs = self.model.predict_with_scores(**tensors, depth=self.depth)
        return labels.cpu().numpy().astype(np.int64), probs.float().cpu().numpy()


def _read_json(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``, a checkpoint file ({} when there is no such file).

    Raises:
        TaggerError: the file is not a JSON object (a damaged checkpoint), naming it and the fix.
    """
    try:
        return read_json(path)
    except ValueError as err:
        raise TaggerError(f"{err}; {TAGGER_DAMAGED_HINT}") from err


def read_manifest(directory: Path) -> dict[str, Any]:
    """The checkpoint's ``manifest.json`` ({} when it has none), its ``inference`` checked.

    Raises:
        TaggerError: the manifest, or its ``inference`` or ``files``, is not a JSON object,
            or it is another model's (its ``kind`` is not a tagger's: the folder is no tagger),
            or an ``inference`` setting is not one a checkpoint can hold (a backend other than onnx / torch, a ``max_length`` or
            ``depth`` that is no integer >= 1).
        ValueError: its ``inference`` block holds an unknown setting.
    """
    path = directory / MANIFEST_FILE
    manifest = _read_json(path)
    kind = manifest.get("kind", TAGGER_KIND)
    if kind != TAGGER_KIND:
        raise TaggerError(
            f"{directory} is not a tagger checkpoint: its {MANIFEST_FILE} records kind {kind!r}, "
            f"not {TAGGER_KIND!r}; point {TAGGER_ENV} (or path=) at a tagger such as "
            f"checkpoints/{DEFAULT_TAGGER_NAME}"
        )
    for key in ("inference", "files"):
        if not isinstance(manifest.get(key) or {}, dict):
            raise TaggerError(
                f"{path}: {key} must be an object, got {type(manifest[key]).__name__}; "
                f"{TAGGER_DAMAGED_HINT}"
            )
    unknown = sorted(set(manifest.get("inference") or {}) - set(INFERENCE_SETTINGS))
    if unknown:
        raise ValueError(
            f"{path}: unknown inference settings {unknown}; known: {list(INFERENCE_SETTINGS)}"
        )
    # a hand-edited value surfaced as a TypeError deep in loading, or (a backend) was ignored
    inference = manifest.get("inference") or {}
    backend = inference.get("backend")
    if backend not in (None, "onnx", "torch"):
        raise TaggerError(
            f"{path}: inference.backend must be 'onnx' or 'torch', got {backend!r}; "
            f"{TAGGER_DAMAGED_HINT}"
        )
    for key in ("max_length", "depth"):
        try:
            require_int(inference.get(key), f"inference.{key}", minimum=1, optional=True)
        except (TypeError, ValueError) as err:
            raise TaggerError(f"{path}: {err}; {TAGGER_DAMAGED_HINT}") from err
    return manifest


def _is_question(text: str) -> bool:
    """A sentence ending in ``?`` asks, it asserts nothing. Its last character decides, as its
    last token does in the rules extractor (:func:`enoki_hd.extract.rules.extractor.
    is_question`): a statement ending in a quoted question ("… asked the crowd "Who wants to
    hear Suede?"") asserts."""
    return text.rstrip().endswith("?")


@dataclass
class _Unit:
    """One sentence to tag: which answer, which sentence, its text, words and windows."""

    answer: int
    sentence: int
    start: int
    text: str
    words: list[Span]
    windows: list[EncodedWindow]


# A row's missing parts taken from its sentence's parse, in this order, each with the stat that
# counts the rows it changes (see ``asserted`` below and :mod:`enoki_hd.extract.asserted`).
_MENDS = (
    (relation_implicit, "implicit_relations"),
    (relation_filled, "filled_relations"),
    (relation_parsed, "parsed_relations"),
    (subject_filled, "filled_subjects"),
    (object_filled, "filled_objects"),
    (object_completed, "completed_objects"),
)


@register("encoder")
class EncoderExtractor:
    """Facts from the distilled iterative-grid-labeling tagger (:mod:`enoki_hd.igl`).

    Each sentence is tagged with ``depth`` label rows (one extraction each); a negation a row
    leaves out next to one of its parts joins that part ("UVA has never expelled …" is never
    read as "UVA expelled …"; :func:`~enoki_hd.igl.decode.keep_negations`); rows are decoded
    by :func:`~enoki_hd.igl.decode.decode_rows` (exact word spans into the answer, implicit
    relations, de-duplication, parents and deltas rebuilt from nesting). A fact's
    ``confidence`` is the mean of the probabilities of its row's labelled words; rows below
    ``min_confidence`` are dropped before decoding. Sentences that end in ``?`` are questions
    and yield no facts (as in the rules extractor). A sentence longer than ``max_length``
    sub-tokens is tagged in overlapping windows of whole words (never truncated); a sentence
    with one word longer than a window yields no facts and is counted in
    ``stats["rejected_sentences"]`` (logged). Ids are ``f{sentence}.{k}``, ``source``
    ``"encoder"``. A row is a coarse fact (whole clauses in its relation and object), so the
    detector also grounds a root fact's object alone (``coarse_roots``; see ``root_delta`` of
    :class:`~enoki_hd.verify.judge.FactJudge`).

    Args:
        path: the checkpoint directory (default :func:`default_tagger_path`).
        backend: ``"onnx"`` (``model.onnx``), ``"torch"`` (a ``save_pretrained`` directory) or
            ``"auto"`` (the manifest's, else onnx when ``model.onnx`` is there).
        sha256: when given (as :meth:`config` records it), the loaded graph / weights must
            have this sha256.
        max_length: sub-tokens per window, special tokens and sentinels included (default the
            manifest's ``inference.max_length``, else the position embeddings, at most 512).
        depth: extraction rows per sentence; an ONNX graph has its depth fixed at export.
        batch_size: windows per forward pass (the int8 graph's activation scales depend on the
            batch, so this can change outputs slightly).
        min_confidence: rows whose confidence is below this yield no fact; a sentence all
            of whose rows fall below it gets no row from the parse either (``asserted``).
        split: how a row's object is cut at its prepositions (``"none"``, ``"chain"``,
            ``"atoms"``; see :func:`~enoki_hd.igl.decode.decode_rows`).
        min_english_share: sentences whose English-lexicon share is below this are reported
            unparseable (:mod:`enoki_hd.extract.rules.language`).
        asserted: read each row against its sentence's dependency parse
            (:mod:`enoki_hd.extract.asserted`): a row stating a clause the sentence does not
            assert ("If red wine has been left overnight, …", "There is no record that …") is
            dropped, and a relative clause of a noun that is none keeps that noun's phrase as
            its subject ("no British commander named Robertson | led | …"); a row with a
            subject and an object but no relation takes the short verb group between them as
            its relation ("The alternative name … *is* the northern mink frog";
            ``stats["filled_relations"]``) or, when more stands between them, the verb that
            governs its object ("The Championships | *were held from* | February 24 to
            February 28"; ``stats["parsed_relations"]``), one with a relation and an object
            but no subject takes its verb's subject in the parse ("*It* | shares its western
            border with | Illinois"; ``stats["filled_subjects"]``), one with a subject and a
            relation but no object takes the relation's complement as its object ("Bass
            violins | were | *smaller*"; ``stats["filled_objects"]``), an object the tagger
            ended on a preposition takes the phrase it governs ("the home ground for *the
            Austrian football club*"; ``stats["completed_objects"]``), and the commas and
            conjunctions between pieces of a subject or object are kept ("Oberhof*,*
            Germany"; ``stats["joined_pieces"]``). A row of an order ("the computer | enable
            | disable it" of "toggle the switch … to enable or disable it") or whose subject
            its verb governs ("snowfall | provides information on") is dropped, a
            coordinated subject gives a row per conjunct ("Takeout | …", "catering | …";
            ``stats["distributed_subjects"]``), an existential clause no row states gets
            one ("there | was | no British commander named "Robertson"";
            ``stats["added_existentials"]``), and so does, in a sentence the tagger kept a row
            of, a clause with a noun subject and an object no row states ("the other | being |
            the port city Vlorë"; :func:`~enoki_hd.extract.asserted.clauses_added`,
            ``stats["added_clauses"]``), after a row whose relation holds no verb and whose
            words all belong to a longer row is dropped ("index | worse than | the national
            average"; :func:`~enoki_hd.extract.asserted.fragments_dropped`,
            ``stats["dropped_fragments"]``). Without it, the rows as tagged (an article
            without its noun still left out:
            :func:`~enoki_hd.igl.decode.dangling_articles_dropped`).
        spacy_model: the spaCy pipeline for segmentation, the language check and ``asserted``.
        device: torch backend only.
    """

    name = "encoder"
    # root facts carry whole clauses: their object is grounded alone too (FactJudge.root_delta)
    coarse_roots = True

    def __init__(
        self,
        *,
        path: str | Path | None = None,
        backend: Backend | Literal["auto"] = "auto",
        sha256: str | None = None,
        max_length: int | None = None,
        depth: int | None = None,
        batch_size: int = 32,
        min_confidence: float = 0.0,
        split: Split = "none",
        min_english_share: float = DEFAULT_MIN_ENGLISH_SHARE,
        asserted: bool = True,
        spacy_model: str = DEFAULT_SPACY_MODEL,
        device: str = "cpu",
    ) -> None:
        if backend not in ("auto", "onnx", "torch"):
            raise ValueError(f"backend must be 'auto', 'onnx' or 'torch', got {backend!r}")
        require_int(batch_size, "batch_size", minimum=1)
        require_fraction(min_confidence, "min_confidence")
        if split not in ("none", "chain", "atoms"):
            raise ValueError(f"split must be 'none', 'chain' or 'atoms', got {split!r}")
        require_fraction(min_english_share, "min_english_share")
        if not isinstance(asserted, bool):
            raise TypeError(f"asserted must be true or false, got {asserted!r}")
        require_int(max_length, "max_length", minimum=1, optional=True)
        require_int(depth, "depth", minimum=1, optional=True)
        directory = (
            Path(resolve_checkpoint(Path(path).expanduser()))
            if path is not None
            else default_tagger_path()
        )
        if not directory.is_dir():
            raise FileNotFoundError(f"no tagger checkpoint at {directory}: {MISSING_HINT}")
        self.path = directory
        self.manifest = read_manifest(directory)
        inference = self.manifest.get("inference") or {}
        self.backend: Backend = self._choose_backend(backend, inference.get("backend"))
        model_config = _read_json(directory / "config.json")
        self.depth = self._choose_depth(depth, inference.get("depth"), model_config)
        self.tokenizer = WordTokenizer.from_dir(directory)
        self.max_length = self._choose_max_length(
            max_length, inference.get("max_length"), model_config
        )
        self.batch_size = batch_size
        self.min_confidence = min_confidence
        self.split: Split = split
        self.min_english_share = min_english_share
        self.asserted = asserted
        self.spacy_model = spacy_model
        self.device = device
        missing = [s for s in SENTINELS if s not in self.tokenizer.all_special_tokens]
        if missing:
            raise ValueError(
                f"the tokenizer in {directory} lacks the sentinel special tokens {missing}; "
                "it is not the tagger's tokenizer"
            )
        self.session: _OnnxTagger | _TorchTagger
        if self.backend == "onnx":
            if device != "cpu":
                raise ValueError(f"the onnx backend runs on cpu only, got device={device!r}")
            weights = directory / ONNX_FILE
            self.sha256 = sha256_file(weights)
            recorded = (self.manifest.get("files") or {}).get(ONNX_FILE)
            self.session = _OnnxTagger(
                weights, sha256=self.sha256, expected_sha256=recorded, depth=self.depth
            )
            if recorded is not None and recorded != self.sha256:
                logger.warning(  # as the verifier's: a graph that runs is not refused
                    "%s has sha256 %s but %s records %s: its recorded metrics may not describe "
                    "it; %s",
                    weights,
                    self.sha256,
                    MANIFEST_FILE,
                    recorded,
                    TAGGER_RESTORE_HINT,
                )
        else:
            weights = next(directory / f for f in TORCH_WEIGHT_FILES if (directory / f).is_file())
            self.sha256 = sha256_file(weights)
            self.session = _TorchTagger(directory, device=device, depth=self.depth)
        if sha256 is not None and sha256 != self.sha256:
            raise ValueError(
                f"sha256: the config was written for a tagger with sha256 {sha256}, but "
                f"{weights} has {self.sha256}; the checkpoint changed since — drop sha256 to "
                "accept the new model"
            )
        self.stats = {
            "sentences": 0,
            "windows": 0,
            "model_calls": 0,
            "rejected_sentences": 0,
            "unasserted_rows": 0,
            "trimmed_edges": 0,
            "dangling_articles": 0,
            "implicit_relations": 0,
            "filled_relations": 0,
            "parsed_relations": 0,
            "filled_objects": 0,
            "filled_subjects": 0,
            "completed_objects": 0,
            "distributed_subjects": 0,
            "added_existentials": 0,
            "added_clauses": 0,
            "dropped_fragments": 0,
            "joined_pieces": 0,
        }

    def _choose_backend(self, backend: str, recorded: str | None) -> Backend:
        has_graph = (self.path / ONNX_FILE).is_file()
        has_weights = any((self.path / f).is_file() for f in TORCH_WEIGHT_FILES)
        if backend == "auto":
            if recorded in ("onnx", "torch"):
                backend = recorded
            else:
                backend = "onnx" if has_graph else "torch"
        if backend == "onnx" and not has_graph:
            raise FileNotFoundError(
                f"no {ONNX_FILE} in {self.path} (backend onnx); use backend 'torch' for a "
                f"save_pretrained directory, or {MISSING_HINT}"
            )
        if backend == "torch" and not has_weights:
            raise FileNotFoundError(
                f"no torch weights ({', '.join(TORCH_WEIGHT_FILES)}) in {self.path} (backend "
                f"torch); use backend 'onnx' for an exported tagger, or {MISSING_HINT}"
            )
        return "onnx" if backend == "onnx" else "torch"

    def _choose_depth(
        self, explicit: int | None, recorded: int | None, model_config: dict[str, Any]
    ) -> int:
        if self.backend == "onnx":
            if recorded is None and not (self.path / MANIFEST_FILE).is_file():
                raise TaggerError(
                    f"{self.path} holds {ONNX_FILE} but no {MANIFEST_FILE}, which records the "
                    "depth the graph was unrolled to: the folder is not a tagger checkpoint, or "
                    f"a damaged one; {TAGGER_DAMAGED_HINT}"
                )
            if recorded is None:
                raise TaggerError(
                    f"{self.path / MANIFEST_FILE} records no inference.depth, so the depth "
                    f"the graph was unrolled to is unknown; {TAGGER_DAMAGED_HINT}"
                )
            if explicit is not None and explicit != recorded:
                raise ValueError(
                    f"depth={explicit}, but the ONNX graph in {self.path} is unrolled to depth "
                    f"{recorded}; leave depth unset, or re-export with that depth"
                )
            return int(recorded)
        if explicit is not None:
            return int(explicit)
        return int(recorded or model_config.get("depth") or 3)

    def _choose_max_length(
        self, explicit: int | None, recorded: int | None, model_config: dict[str, Any]
    ) -> int:
        try:
            positions = position_count(
                (model_config.get("backbone") or {}).get("max_position_embeddings"),
                f"{self.path / 'config.json'}: backbone.max_position_embeddings",
            )
        except ValueError as err:
            raise TaggerError(f"{err}; {TAGGER_DAMAGED_HINT}") from err
        length = explicit or recorded or min(positions or DEFAULT_MAX_LENGTH, DEFAULT_MAX_LENGTH)
        if positions and length > positions:
            raise ValueError(
                f"max_length={length} exceeds the {positions} position embeddings of the "
                f"tagger in {self.path}"
            )
        specials = self.tokenizer.num_special_tokens_to_add(pair=False)
        if length <= specials + len(SENTINELS):
            raise ValueError(
                f"max_length must be an integer >= {specials + len(SENTINELS) + 1} (a window "
                f"holds {specials} special tokens and {len(SENTINELS)} sentinels besides its "
                f"words), got {length}"
            )
        return int(length)

    def config(self) -> dict[str, Any]:
        """The name and every option that changes the output (``get_extractor(**config())``
        rebuilds this extractor); ``sha256`` is that of the graph or weights as loaded."""
        out: dict[str, Any] = {
            "name": self.name,
            "path": portable_reference(self.path),
            "backend": self.backend,
            "sha256": self.sha256,
            "max_length": self.max_length,
            "depth": self.depth,
            "batch_size": self.batch_size,
            "min_confidence": self.min_confidence,
            "split": self.split,
            "min_english_share": self.min_english_share,
            "asserted": self.asserted,
            "spacy_model": self.spacy_model,
        }
        if self.backend == "torch":
            out["device"] = self.device
        return out

    def unparseable_sentences(self, answer: str, sentences: list[Span] | None = None) -> set[int]:
        """Indices of the sentences with no parseable English (the rules extractor's language
        check, :mod:`enoki_hd.extract.rules.language`): they yield no facts."""
        from enoki_hd.extract.rules.language import unparseable_sentences

        if sentences is None:
            sentences = segment_sentences(answer, model=self.spacy_model)
        return unparseable_sentences(
            answer, sentences, model=self.spacy_model, threshold=self.min_english_share
        )

    def extract(self, answer: str, *, sentences: list[Span] | None = None) -> list[Fact]:
        """Facts of ``answer`` with spans into the original answer (see the class docstring)."""
        (facts,) = self.extract_batch([answer], sentences=[sentences])
        return facts

    def extract_batch(
        self, answers: Sequence[str], *, sentences: Sequence[list[Span] | None] | None = None
    ) -> list[list[Fact]]:
        """:meth:`extract` for many answers, their sentences batched together."""
        if sentences is not None and len(sentences) != len(answers):
            raise ValueError(f"got {len(sentences)} sentence lists for {len(answers)} answers")
        units: list[_Unit] = []
        for a, answer in enumerate(answers):
            if not isinstance(answer, str):
                raise TypeError(f"answer must be str, got {type(answer).__name__}")
            spans = None if sentences is None else sentences[a]
            if spans is None:
                spans = segment_sentences(answer, model=self.spacy_model)
            # the tagger reads prose: markup, URLs and emoji are spaces (offsets unchanged)
            masked = mask_markdown(answer)
            for i, span in enumerate(spans):
                if not isinstance(span, Span) or span.end > len(answer):
                    raise ValueError(
                        f"sentence {span!r} is not a Span inside the answer of length {len(answer)}"
                    )
                unit = self._unit(masked, a, i, span)
                if unit is not None:
                    units.append(unit)
        outputs = self._tag([w for u in units for w in u.windows])
        docs: list[Doc] | list[None] = self._parse(units) if self.asserted else [None] * len(units)
        facts: list[list[Fact]] = [[] for _ in answers]
        position = 0
        for unit, doc in zip(units, docs, strict=True):
            tagged = outputs[position : position + len(unit.windows)]
            position += len(unit.windows)
            facts[unit.answer].extend(self._decode(unit, tagged, doc))
        return facts

    def _unit(self, answer: str, a: int, i: int, span: Span) -> _Unit | None:
        text = span.text(answer)
        words = tokenize_words(text)
        if not words or _is_question(text):
            return None
        self.stats["sentences"] += 1
        example = GridExample(text=text, words=words, rows=[], parents=[], source="inference")
        windows = encode_example(example, self.tokenizer, max_length=self.max_length)
        if not windows:
            self.stats["rejected_sentences"] += 1
            logger.warning(
                "sentence %d:%d has a word longer than max_length=%d sub-tokens; no facts "
                "extracted from it",
                span.start,
                span.end,
                self.max_length,
            )
            return None
        return _Unit(a, i, span.start, text, words, windows)

    def _parse(self, units: list[_Unit]) -> list[Doc]:
        """Each unit's sentence parsed (dependencies, tags and lemmas: what
        :func:`asserted_row` reads; the entity recogniser is not run)."""
        nlp = load_spacy_pipeline(self.spacy_model)
        skipped = [name for name in ("ner",) if name in nlp.pipe_names]
        return list(nlp.pipe((u.text for u in units), disable=skipped))

    def _tag(self, windows: list[EncodedWindow]) -> list[tuple[np.ndarray, np.ndarray]]:
        """``(labels, probs)`` per window, each (depth, window words + 3), in input order;
        windows of similar length are batched together (:func:`length_batches`), so that little
        padding is computed."""
        results: list[tuple[np.ndarray, np.ndarray]] = [(np.empty(0), np.empty(0))] * len(windows)
        lengths = [len(w.input_ids) for w in windows]
        for rows in length_batches(lengths, self.batch_size):
            labels, probs = self.session.run(pad_windows([windows[k] for k in rows]))
            self.stats["model_calls"] += 1
            for b, k in enumerate(rows):
                width = len(windows[k].word_index)
                results[k] = (labels[b, :, :width], probs[b, :, :width])
        self.stats["windows"] += len(windows)
        return results

    def _decode(
        self, unit: _Unit, tagged: list[tuple[np.ndarray, np.ndarray]], doc: Doc | None
    ) -> list[Fact]:
        """The facts of one sentence from its windows' rows (rows put back over all the
        sentence's words; overlapping windows' duplicates are merged by decode_rows), each row
        read against ``doc``, the sentence's parse, when given (:func:`asserted_row`)."""
        n = len(unit.words)
        token_words = word_of_tokens(doc, unit.words) if doc is not None else []
        negations = negation_positions(unit.text, unit.words)
        rows: list[np.ndarray] = []
        below = 0  # rows with a label that fell below min_confidence
        confidences: list[float] = []
        for window, (labels, probs) in zip(unit.windows, tagged, strict=True):
            m = window.num_words
            labels = np.where(np.asarray(window.word_mask)[None, :], labels, NONE)
            for row, score in zip(labels, row_confidences(labels, probs, m), strict=True):
                if score < self.min_confidence:
                    below += int(bool((row != NONE).any()))
                    continue
                full = np.full(n + len(SENTINELS), NONE, dtype=np.int64)
                full[window.word_start : window.word_start + m] = row[:m]
                full[n:] = row[m:]
                negated = np.array(
                    keep_negations(full, unit.text, unit.words, negations), dtype=np.int64
                )
                bare = dangling_articles_dropped(negated, unit.text, unit.words)
                self.stats["dangling_articles"] += int(bare is not negated)
                kept: np.ndarray | None = bare
                if doc is not None:
                    mended = bare
                    for mend, counted in _MENDS:
                        out = mend(mended, doc, unit.words, token_words)
                        self.stats[counted] += int(out is not mended)
                        mended = out
                    kept = asserted_row(mended, doc, unit.words, token_words)
                if kept is None:
                    self.stats["unasserted_rows"] += 1
                    continue
                if doc is not None:
                    joined = pieces_joined(kept, unit.text, unit.words)
                    self.stats["joined_pieces"] += int(joined is not kept)
                    kept = joined
                trimmed = edges_trimmed(kept, unit.text, unit.words)
                self.stats["trimmed_edges"] += int(trimmed is not kept)
                kept = trimmed
                distributed = (
                    subjects_distributed(kept, doc, unit.words, token_words)
                    if doc is not None
                    else [kept]
                )
                self.stats["distributed_subjects"] += int(len(distributed) > 1)
                rows += distributed
                confidences += [score] * len(distributed)
        if doc is not None:
            # a piece of a longer row's predicate read without it (asserted.fragments_dropped)
            keep = fragments_dropped(rows, doc, unit.words, token_words)
            self.stats["dropped_fragments"] += len(rows) - len(keep)
            rows = [rows[k] for k in keep]
            confidences = [confidences[k] for k in keep]
        kept_one = bool(confidences)
        # rows from the parse, at the confidence of the sentence's weakest row: an existential
        # clause no row states (asserted.existentials_added), unless every row the tagger gave
        # fell below min_confidence; a clause with a noun subject no row states
        # (asserted.clauses_added) only in a sentence the tagger kept a row of (one without is
        # judged whole)
        adders = [(existentials_added, "added_existentials", kept_one or not below)]
        adders.append((clauses_added, "added_clauses", kept_one))
        for adder, stat, wanted in adders:
            if doc is None or not wanted:
                continue
            extra = adder(rows, doc, unit.words, token_words)
            self.stats[stat] += len(extra)
            rows += extra
            confidences += [min(confidences, default=self.min_confidence)] * len(extra)
        facts = decode_rows(
            unit.text,
            unit.words,
            np.asarray(rows, dtype=np.int64).reshape(len(rows), n + len(SENTINELS)),
            confidences,
            offset=unit.start,
            sentence=unit.sentence,
            source=self.name,
            split=self.split,
        )
        # negated as the rules extractor marks it, so that the checks that do not hold under
        # negation ("the only band" against "one of many bands") skip "is not the only band";
        # its modal recorded as the rules extractor records it ("may cause" → "may"); and its
        # parts' text with the whitespace that blanked Markdown left collapsed ("the **Eiffel
        # Tower**" was read "the   Eiffel Tower")
        return [
            replace(
                f,
                subject=" ".join(f.subject.split()),
                relation=" ".join(f.relation.split()),
                object=" ".join(f.object.split()),
                negated=f.negated or negated_text(f.relation, f.object),
                modality=modality_text(f.relation),
            )
            for f in facts
        ]
