"""NLI verifiers: (premise, hypothesis) pairs in, entailment / neutral / contradiction out.

:class:`NLICrossEncoder` runs any ``AutoModelForSequenceClassification`` checkpoint (a local
directory or a hub id) on one of two backends behind the same interface:

- ``torch``: ``transformers`` + ``torch`` (GPU or CPU);
- ``onnx``: an ``onnxruntime`` CPU session over ``<dir>/model.onnx``, which needs neither torch
  nor (when ``tokenizer.json`` and ``config.json`` are there) ``transformers``.

The label order is read from ``config.id2label`` and never assumed. A verifier failure (an
unloadable graph, non-finite or misshapen logits, a crashing session) raises
:class:`VerifierError`; it is never turned into a default probability.

A checkpoint's ``manifest.json`` (written by :mod:`enoki_hd.export.onnx`) is the one source of
truth for how it runs: its ``inference`` block (``{"backend": "onnx", "max_length": 256}``) gives
the defaults for every way of loading it, and an explicit option the checkpoint cannot honour is a
``ValueError``, never ignored.
"""

from __future__ import annotations

import importlib.util
import inspect
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, cast, runtime_checkable

import numpy as np
from tokenizers import Encoding, Regex, Tokenizer, normalizers

from enoki_hd.export.onnx import VERIFIER_KIND, sha256_file
from enoki_hd.lru import LRUCache
from enoki_hd.runtime.files import (
    load_local_config,
    load_local_tokenizer,
    position_count,
    read_json,
)
from enoki_hd.runtime.onnx import (
    create_session,
    intra_op_threads,
    quantizes_activations_per_batch,
)
from enoki_hd.text import INVISIBLE_CHARACTERS
from enoki_hd.types import NLIScores

logger = logging.getLogger(__name__)

Backend = Literal["torch", "onnx"]

# The inputs a sequence-classification graph may declare, in the order tokenizers produce them.
MODEL_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
DEFAULT_MAX_LENGTH = 512
DEFAULT_BATCH_SIZE = 32  # pairs per forward pass, for graphs whose rows do not depend on each other
MISSING_MODEL_HINT = (
    "run `make train-verifier` to build the shipped verifier, or pass a hub id / local path"
)
MANIFEST_FILE = "manifest.json"
# The manifest settings a checkpoint's loading takes its defaults from.
INFERENCE_SETTINGS = ("backend", "max_length")
# The files a verifier reads besides its graph (a missing graph is "build it", not "restore it").
CHECKPOINT_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json")
TORCH_WEIGHT_FILES = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
RESTORE_HINT = (
    "restore the shipped files (`git checkout -- checkpoints/` or a fresh clone), or rebuild "
    "the checkpoint with `make export`"
)

_LABEL_ALIASES = {
    "entailment": "entailment",
    "entail": "entailment",
    "entailed": "entailment",
    "neutral": "neutral",
    "contradiction": "contradiction",
    "contradict": "contradiction",
    "contradicted": "contradiction",
    "not_entailment": "not_entailment",
    "non_entailment": "not_entailment",
}


class VerifierError(RuntimeError):
    """The verifier could not produce valid probabilities (a failure, not a verdict)."""


@runtime_checkable
class Verifier(Protocol):
    """Anything that scores (premise, hypothesis) pairs with NLI probabilities."""

    name: str
    max_length: int

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        """Scores for each ``(premise, hypothesis)`` pair, in input order."""
        ...

    def count_tokens(self, text: str) -> int:
        """Number of tokens of ``text`` alone, without special tokens."""
        ...


@dataclass(frozen=True)
class NLILabelMap:
    """Where each NLI label sits in the model's output.

    ``contradiction`` is None for a 2-label model (``entailment`` / ``not_entailment``), whose
    ``not_entailment`` probability is reported as neutral.
    """

    entailment: int
    neutral: int
    contradiction: int | None
    num_labels: int

    @classmethod
    def from_id2label(cls, id2label: Mapping[int | str, str]) -> NLILabelMap:
        """Map ``config.id2label`` names (any case, ``-``/space/``_`` alike) to NLI labels.

        Raises:
            ValueError: the names are not {entailment, neutral, contradiction} or
                {entailment, not_entailment}; the message lists the labels found.
        """
        found = {int(i): str(name) for i, name in id2label.items()}
        canonical: dict[str, int] = {}
        for index, name in found.items():
            key = _LABEL_ALIASES.get(name.strip().lower().replace("-", "_").replace(" ", "_"))
            if key is None or key in canonical:
                canonical = {}
                break
            canonical[key] = index
        if len(found) == 3 and set(canonical) == {"entailment", "neutral", "contradiction"}:
            return cls(canonical["entailment"], canonical["neutral"], canonical["contradiction"], 3)
        if len(found) == 2 and set(canonical) == {"entailment", "not_entailment"}:
            return cls(canonical["entailment"], canonical["not_entailment"], None, 2)
        raise ValueError(
            f"cannot map the model's labels {dict(sorted(found.items()))} to NLI labels; "
            "expected names entailment/neutral/contradiction (or entailment/not_entailment) "
            "in config.id2label"
        )

    def scores(self, probs: np.ndarray) -> list[NLIScores]:
        """``probs: (pairs, num_labels)`` in model order → one :class:`NLIScores` per row."""
        contradiction = (
            probs[:, self.contradiction]
            if self.contradiction is not None
            else np.zeros(len(probs), dtype=probs.dtype)
        )
        return [
            NLIScores(float(e), float(n), float(c))
            for e, n, c in zip(
                probs[:, self.entailment], probs[:, self.neutral], contradiction, strict=True
            )
        ]


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = logits.astype(np.float64)
    z -= z.max(axis=-1, keepdims=True)
    np.exp(z, out=z)
    return z / z.sum(axis=-1, keepdims=True)


def _transformers_available() -> bool:
    try:
        return importlib.util.find_spec("transformers") is not None
    except (ImportError, ValueError):  # a half-imported or deliberately blocked module
        return False


def _looks_like_path(ref: str) -> bool:
    # Hub ids are "name" or "org/name"; anything else that does not exist is a missing path.
    return (
        Path(ref).is_absolute()
        or ref.startswith((".", "~"))
        or "\\" in ref
        or ref.count("/") > 1
        or ref.endswith("/")
    )


def _resolve_model(model: str | Path) -> tuple[str, Path | None]:
    """``(reference, local directory)``; the directory is None for a hub id."""
    path = Path(model).expanduser()
    if path.is_dir():
        return str(path), path
    if path.exists():
        raise ValueError(f"expected a model directory, got the file {path}")
    if isinstance(model, Path) or _looks_like_path(str(model)):
        raise FileNotFoundError(f"NLI verifier not found at {path}: {MISSING_MODEL_HINT}")
    return str(model), None


class _TorchSession:
    """``AutoModelForSequenceClassification`` in eval mode; torch is imported only here."""

    def __init__(
        self,
        ref: str,
        *,
        device: str,
        local_files_only: bool,
        revision: str | None,
        trust_remote_code: bool,
        is_hub_id: bool,
    ) -> None:
        import torch
        from transformers import AutoModelForSequenceClassification

        self._torch = torch
        try:
            model = AutoModelForSequenceClassification.from_pretrained(
                ref,
                local_files_only=local_files_only,
                revision=revision,
                trust_remote_code=trust_remote_code,
            )
        except OSError as err:
            if not is_hub_id:
                raise
            raise FileNotFoundError(
                f"NLI verifier {ref!r} is neither a local directory nor a loadable hub id "
                f"({err}): {MISSING_MODEL_HINT}"
            ) from err
        self.device = torch.device(device)
        self.model = model.to(self.device).eval()
        self.id2label = dict(model.config.id2label)
        accepted = inspect.signature(self.model.forward).parameters
        self.input_names = tuple(name for name in MODEL_INPUTS if name in accepted)

    def run(self, inputs: dict[str, np.ndarray]) -> np.ndarray:
        """``inputs: name → (batch, seq)`` → ``logits: (batch, num_labels)`` as float32."""
        torch = self._torch
        with torch.inference_mode():
            tensors = {k: torch.from_numpy(v).to(self.device) for k, v in inputs.items()}
            logits = self.model(**tensors).logits
        return logits.float().cpu().numpy()


_ONNX_INT_TYPES = {"tensor(int64)": np.int64, "tensor(int32)": np.int32}


class _OnnxSession:
    """An ``onnxruntime`` CPU session fed only the inputs its graph declares.

    Raises:
        VerifierError: onnxruntime cannot load the graph; the message names the file, its
            sha256 and the one ``expected_sha256`` (from the manifest), and how to restore it.
    """

    def __init__(self, path: Path, *, sha256: str, expected_sha256: str | None) -> None:
        import onnxruntime as ort

        threads = intra_op_threads()  # a bad $ENOKI_ONNX_THREADS is no fault of the graph's
        try:
            self.session = create_session(path, threads=threads)
        except Exception as err:  # InvalidProtobuf, Fail, ...: onnxruntime has no common base
            raise VerifierError(
                unloadable_graph_message(path, err, sha256, expected_sha256, ort.__version__)
            ) from err
        declared = {i.name: i.type for i in self.session.get_inputs()}
        unknown = sorted(set(declared) - set(MODEL_INPUTS))
        if unknown:
            raise ValueError(
                f"ONNX graph {path} declares inputs {unknown} that a sequence-classification "
                f"verifier does not feed (known: {list(MODEL_INPUTS)})"
            )
        self.input_names = tuple(name for name in MODEL_INPUTS if name in declared)
        self._dtypes = {name: _ONNX_INT_TYPES.get(declared[name], np.int64) for name in declared}
        outputs = [o.name for o in self.session.get_outputs()]
        self._output = "logits" if "logits" in outputs else outputs[0]

    def run(self, inputs: dict[str, np.ndarray]) -> np.ndarray:
        """``inputs: name → (batch, seq)`` → ``logits: (batch, num_labels)``."""
        feed = {name: inputs[name].astype(self._dtypes[name]) for name in self.input_names}
        return self.session.run([self._output], feed)[0]


def unloadable_graph_message(
    path: Path,
    err: Exception,
    sha256: str,
    expected: str | None,
    ort_version: str,
    *,
    graph: str = "ONNX verifier graph",
    restore: str = RESTORE_HINT,
    rebuild: str = "`make export`",
) -> str:
    """One line: which file, why, whether its bytes are the shipped ones, and the fix
    (``restore`` for a damaged file, ``rebuild`` for one that was never shipped or that this
    onnxruntime cannot run); ``graph`` says which model it is (the tagger's says so)."""
    reason = " ".join(str(err).split())
    if expected is None:
        state = f"sha256 {sha256}; no {MANIFEST_FILE} records the expected one"
        fix = f"re-export it with {rebuild} or pass another checkpoint"
    elif sha256 != expected:
        state = f"sha256 {sha256}, but {MANIFEST_FILE} expects {expected}: corrupt or truncated"
        fix = restore
    else:
        state = f"sha256 {sha256} matches {MANIFEST_FILE}, so the file is intact"
        fix = (
            f"onnxruntime {ort_version} cannot run it: install the version pinned in "
            f"pyproject.toml, or re-export it with {rebuild}"
        )
    return f"cannot load the {graph} {path} ({state}): {reason}; {fix}"


def _read_json(path: Path) -> dict[str, Any]:
    """The JSON object in ``path`` ({} when there is no such file).

    Raises:
        VerifierError: the file is not a JSON object (a damaged checkpoint), naming it and the fix.
    """
    try:
        return read_json(path)
    except ValueError as err:
        raise VerifierError(f"{err}; {RESTORE_HINT}") from err


def read_manifest(directory: Path) -> dict[str, Any]:
    """The checkpoint's ``manifest.json`` ({} when it has none), its ``inference`` block checked.

    Raises:
        VerifierError: the manifest is not a JSON object, its ``inference`` or ``files`` is not
            one (a damaged checkpoint), or it is another model's (its ``kind`` is not a
            verifier's: the folder is no verifier).
        ValueError: ``inference`` holds an unknown setting or an impossible value.
    """
    path = directory / MANIFEST_FILE
    manifest = _read_json(path)
    kind = manifest.get("kind", VERIFIER_KIND)
    if kind != VERIFIER_KIND:
        raise VerifierError(
            f"{directory} is not a verifier checkpoint: its {MANIFEST_FILE} records kind "
            f"{kind!r}, not {VERIFIER_KIND!r}; point verifier.path (--verifier) at a verifier "
            "such as checkpoints/verifier-minilm"
        )
    for key in ("inference", "files"):
        if not isinstance(manifest.get(key) or {}, dict):
            raise VerifierError(
                f"{path}: {key} must be an object, got {type(manifest[key]).__name__}; "
                f"{RESTORE_HINT}"
            )
    inference = manifest.get("inference") or {}
    unknown = sorted(set(inference) - set(INFERENCE_SETTINGS))
    if unknown:
        raise ValueError(
            f"{path}: unknown inference settings {unknown}; known: {list(INFERENCE_SETTINGS)}"
        )
    if inference.get("backend", "onnx") not in ("torch", "onnx"):
        raise ValueError(
            f"{path}: inference.backend must be 'torch' or 'onnx', got {inference['backend']!r}"
        )
    length = inference.get("max_length")
    # a bool is an int to isinstance: "max_length": true ran at max_length 1, never truncating
    if length is not None and (
        isinstance(length, bool) or not isinstance(length, int) or length < 1
    ):
        raise ValueError(f"{path}: inference.max_length must be a positive integer, got {length!r}")
    return manifest


def _require_recorded_files(directory: Path, manifest: Mapping[str, Any]) -> None:
    """Raise :class:`VerifierError` when a file the verifier reads and ``manifest`` records
    (``files``) is gone: without ``tokenizer.json`` transformers builds a tokenizer with no
    vocabulary from ``tokenizer_config.json`` alone, every word ``[UNK]``, and the verifier
    scored nonsense without a word."""
    recorded = manifest.get("files") or {}
    missing = [name for name in CHECKPOINT_FILES if name in recorded]
    missing = [name for name in missing if not (directory / name).is_file()]
    if missing:
        raise VerifierError(
            f"{directory} lacks {', '.join(missing)}, which its {MANIFEST_FILE} records: a "
            f"damaged checkpoint; {RESTORE_HINT}"
        )


def _has_torch_weights(directory: Path) -> bool:
    return any((directory / name).is_file() for name in TORCH_WEIGHT_FILES)


def _choose_backend(
    backend: Backend | Literal["auto"],
    ref: str,
    directory: Path | None,
    onnx_file: str,
    default: Backend | None,
) -> Backend:
    """The backend to run: ``default`` (the manifest's) or the graph's presence for ``auto``;
    an explicit choice the checkpoint cannot run is an error naming the config field, and a
    folder with neither a graph nor a transformers model a :class:`FileNotFoundError`."""
    if backend == "auto":
        if default is not None:
            return default
        if directory and (directory / onnx_file).is_file():
            return "onnx"
        if directory and not (directory / "config.json").is_file():
            # no graph and no transformers model: a folder that is no checkpoint at all
            raise FileNotFoundError(
                f"NLI verifier not found at {directory}: the folder holds neither {onnx_file} "
                f"(an exported checkpoint) nor config.json (a transformers model); "
                f"{MISSING_MODEL_HINT}"
            )
        return "torch"
    if backend == "onnx" and directory is None:
        raise ValueError(
            f"backend='onnx' (config `verifier.backend`) needs a local checkpoint directory "
            f"holding {onnx_file}, got the hub id {ref!r}; use backend 'torch' or 'auto' for a "
            "hub model, or export it with `make export`"
        )
    if backend == "torch" and directory is not None and not _has_torch_weights(directory):
        holds = f", only the ONNX graph {onnx_file}" if (directory / onnx_file).is_file() else ""
        raise ValueError(
            f"backend='torch' (config `verifier.backend`) cannot run {directory}: it holds no "
            f"PyTorch weights (model.safetensors or pytorch_model.bin){holds}; use backend "
            "'onnx' or 'auto', or point `verifier.path` at the trained transformers model "
            "directory"
        )
    return backend


def compat_normalized(tokenizer: Tokenizer) -> Tokenizer:
    """A copy of ``tokenizer`` that reads text in Unicode compatibility form first, as every
    lexical check does (:func:`enoki_hd.text.fold_compat`): the invisible characters scraped text
    carries inside words dropped, then NFKC — so "oﬃcial ﬁgures" in a PDF-extracted context,
    full-width "１９９４" and a decomposed "Cafe\u0301" reach the model as the words they are,
    not as unknown pieces. ASCII text tokenizes exactly as before."""
    copy = Tokenizer.from_str(tokenizer.to_str())
    steps = [normalizers.Replace(Regex(f"[{INVISIBLE_CHARACTERS}]"), ""), normalizers.NFKC()]
    if copy.normalizer is not None:
        steps.append(copy.normalizer)
    copy.normalizer = normalizers.Sequence(steps)
    return copy


class NLICrossEncoder:
    """NLI cross-encoder over a sequence-classification checkpoint, on torch or ONNX.

    Pairs are tokenized with ``truncation="only_first"`` (the premise may be cut, the
    hypothesis never) to ``max_length`` tokens, sorted by length, scored in micro-batches of
    ``batch_size`` padded to their longest pair, and returned in input order. Scores are kept
    in a bounded LRU cache keyed by ``(premise, hypothesis)``.

    A graph that quantises activations with one range per batch tensor (dynamic int8, as the
    shipped verifier is: :func:`~enoki_hd.runtime.onnx.quantizes_activations_per_batch`) gives
    a pair different probabilities in different batches — by up to ~0.4 in a logit on the
    detector's pairs — so by default it scores each pair alone, unpadded: a pair's scores are
    then a function of the pair only (the same in any answer, batch or cache state), and on
    the detector's long pairs this is also faster than padded batches of 32 (README,
    "Each pair scored alone").

    A checkpoint directory with a ``manifest.json`` runs as its ``inference`` block says
    (``backend``, ``max_length``) unless an option is given explicitly. An explicit
    ``max_length`` that differs from the manifest's is allowed (logged at INFO and reported by
    :meth:`config`); one the checkpoint cannot honour raises ``ValueError``.

    ``stats`` counts ``pairs`` asked for, ``cache_hits``, ``model_calls`` (forward passes) and
    ``truncated`` premises — evidence selection should keep the last at zero.

    Args:
        model: a checkpoint directory or a hub id.
        backend: ``"torch"``, ``"onnx"`` or ``"auto"``: the manifest's ``inference.backend``,
            else onnx when ``<model>/<onnx_file>`` exists, else torch.
        batch_size: pairs per forward pass; None: 1 for a graph that quantises activations
            per batch (see above), else 32. An explicit size is honoured either way.
        max_length: tokens per pair including special tokens, at most the model's position
            embeddings; default the manifest's ``inference.max_length``, else the tokenizer's
            ``model_max_length`` capped at 512 (and at the position embeddings).
        device: torch device; the onnx backend runs on ``"cpu"`` only.
        cache_size: LRU entries; 0 disables the cache.
        onnx_file: graph file name inside the checkpoint directory.
        local_files_only, revision, trust_remote_code: passed to ``from_pretrained``.

    Raises:
        FileNotFoundError: the model path (or its ONNX graph) does not exist.
        ValueError: labels in ``config.id2label`` cannot be mapped to NLI labels, or an option
            does not fit the checkpoint (the message names the ``verifier.*`` config field).
        VerifierError: the checkpoint is damaged (the ONNX graph, the manifest, the config or a
            tokenizer file cannot be read).
    """

    def __init__(
        self,
        model: str | Path,
        *,
        backend: Literal["torch", "onnx", "auto"] = "auto",
        batch_size: int | None = None,
        max_length: int | None = None,
        device: str = "cpu",
        cache_size: int = 4096,
        onnx_file: str = "model.onnx",
        local_files_only: bool = False,
        revision: str | None = None,
        trust_remote_code: bool = False,
    ) -> None:
        if backend not in ("torch", "onnx", "auto"):
            raise ValueError(
                f"backend (config `verifier.backend`) must be 'torch', 'onnx' or 'auto', "
                f"got {backend!r}"
            )
        if batch_size is not None and batch_size < 1:
            raise ValueError(
                f"batch_size (config `verifier.batch_size`) must be >= 1, got {batch_size}"
            )
        if cache_size < 0:
            raise ValueError(f"cache_size must be >= 0, got {cache_size}")
        if max_length is not None and max_length < 1:
            raise ValueError(
                f"max_length (config `verifier.max_length`) must be >= 1, got {max_length}"
            )
        ref, directory = _resolve_model(model)
        self.manifest = read_manifest(directory) if directory is not None else {}
        if directory is not None:
            _require_recorded_files(directory, self.manifest)
        inference = self.manifest.get("inference") or {}
        backend = _choose_backend(backend, ref, directory, onnx_file, inference.get("backend"))
        self.name = ref
        self.backend: Backend = backend
        self.batch_size = DEFAULT_BATCH_SIZE if batch_size is None else batch_size
        self.cache_size = cache_size
        self.onnx_file = onnx_file
        self.revision = revision
        self.sha256: str | None = None
        self.stats = {"pairs": 0, "cache_hits": 0, "model_calls": 0, "truncated": 0}
        self._cache: LRUCache[tuple[str, str], tuple[float, float, float]] = LRUCache(cache_size)
        self._warned_truncation = False
        hub_kw: dict[str, Any] = {
            "local_files_only": local_files_only,
            "revision": revision,
            "trust_remote_code": trust_remote_code,
        }

        if backend == "torch":
            self._session: _TorchSession | _OnnxSession = _TorchSession(
                ref, device=device, is_hub_id=directory is None, **hub_kw
            )
            id2label = self._session.id2label
            config = self._session.model.config.to_dict()
        else:
            assert directory is not None  # _choose_backend refuses onnx for a hub id
            if device != "cpu":
                raise ValueError(
                    f"the onnx backend runs on cpu only, got device={device!r} "
                    "(config `verifier.device`); use device 'cpu' or backend 'torch'"
                )
            graph = directory / onnx_file
            if not graph.is_file():
                raise FileNotFoundError(
                    f"ONNX verifier graph not found at {graph}: {MISSING_MODEL_HINT}"
                )
            config = self._onnx_config(directory)
            id2label = config.get("id2label") or {}
            self.sha256 = sha256_file(graph)
            expected = (self.manifest.get("files") or {}).get(onnx_file)
            self._session = _OnnxSession(graph, sha256=self.sha256, expected_sha256=expected)
            if batch_size is None and quantizes_activations_per_batch(graph):
                self.batch_size = 1
            if expected is not None and expected != self.sha256:
                logger.warning(
                    "%s has sha256 %s but %s records %s: its recorded metrics may not describe "
                    "it; %s",
                    graph,
                    self.sha256,
                    MANIFEST_FILE,
                    expected,
                    RESTORE_HINT,
                )
        self.label_map = NLILabelMap.from_id2label(id2label)

        tokenizer, model_max_length, pad_id = self._load_tokenizer(ref, directory, hub_kw)
        where = f"{directory / 'config.json'}" if directory is not None else f"{ref} config"
        try:
            positions = position_count(
                config.get("max_position_embeddings"), f"{where}: max_position_embeddings"
            )
        except ValueError as err:
            raise VerifierError(f"{err}; {RESTORE_HINT}") from err
        self.max_length = self._choose_max_length(
            max_length, inference.get("max_length"), model_max_length, positions
        )
        self.pad_token_id = pad_id
        tokenizer = compat_normalized(tokenizer)
        # Two copies of the tokenizer: one never truncates (for counting), one truncates pairs.
        self._counter = Tokenizer.from_str(tokenizer.to_str())
        self._counter.no_truncation()
        self._counter.no_padding()
        self._pair_tokenizer = Tokenizer.from_str(tokenizer.to_str())
        self._pair_tokenizer.no_padding()
        self._pair_tokenizer.enable_truncation(self.max_length, strategy="only_first")
        processor = self._pair_tokenizer.post_processor
        self.pair_special_tokens = processor.num_special_tokens_to_add(True) if processor else 0

    def _choose_max_length(
        self,
        explicit: int | None,
        recorded: int | None,
        model_max_length: int | None,
        positions: int | None,
    ) -> int:
        """``explicit``, else the manifest's ``recorded`` length, else the tokenizer's limit
        capped at 512; never beyond the model's ``positions`` embeddings."""
        if explicit is not None:
            if positions and explicit > positions:
                raise ValueError(
                    f"max_length={explicit} (config `verifier.max_length`) exceeds the "
                    f"{positions} position embeddings of {self.name}; use at most {positions}, "
                    "or null for the checkpoint's own setting"
                )
            if recorded is not None and explicit != recorded:
                logger.info(
                    "%s: max_length=%d overrides the manifest's inference.max_length=%d",
                    self.name,
                    explicit,
                    recorded,
                )
            return int(explicit)
        if recorded is not None:
            if positions and recorded > positions:
                raise ValueError(
                    f"{MANIFEST_FILE} of {self.name} records inference.max_length={recorded}, "
                    f"beyond the model's {positions} position embeddings; re-export it with "
                    "`make export`"
                )
            return int(recorded)
        limit = min(model_max_length or DEFAULT_MAX_LENGTH, DEFAULT_MAX_LENGTH)
        return min(limit, int(positions)) if positions else limit

    def config(self) -> dict[str, Any]:
        """Every setting that can change this verifier's outputs, for reports and cache keys.

        ``batch_size`` is among them: padding, and a dynamically quantised graph's per-batch
        activation ranges, make a pair's probabilities depend on the batch it is scored in
        (1, the default for such a graph, scores each pair alone).
        ``sha256`` is that of the ONNX graph as loaded (onnx backend only). ``path`` is the
        checkpoint directory or hub id, a shipped checkpoint by its bare name
        (:func:`~enoki_hd.verify.loading.portable_reference`): the mapping is a ``verifier`` config node that
        :func:`enoki_hd.verify.loading.load_verifier_from_config` rebuilds this verifier from.
        """
        from enoki_hd.verify.loading import portable_reference  # loading imports this module

        out: dict[str, Any] = {
            "path": portable_reference(self.name),
            "backend": self.backend,
            "max_length": self.max_length,
            "batch_size": self.batch_size,
        }
        if isinstance(self._session, _OnnxSession):
            out["onnx_file"] = self.onnx_file
            out["sha256"] = self.sha256
        else:
            out["device"] = str(self._session.device)
            out["revision"] = self.revision
        return out

    @staticmethod
    def _onnx_config(directory: Path) -> dict[str, Any]:
        # read directly, never through AutoConfig: transformers imports torch when installed
        try:
            return load_local_config(directory)
        except FileNotFoundError as err:
            raise FileNotFoundError(f"{err}: {MISSING_MODEL_HINT}") from err
        except ValueError as err:  # a damaged file: named, and how to restore it
            raise VerifierError(f"{err}; {RESTORE_HINT}") from err

    @staticmethod
    def _load_tokenizer(
        ref: str, directory: Path | None, hub_kw: dict[str, Any]
    ) -> tuple[Tokenizer, int | None, int]:
        """``(fast tokenizer, model_max_length or None, pad id)``: a local directory's
        ``tokenizer.json`` read directly (no transformers, so no torch), else ``AutoTokenizer``
        (hub ids and directories saved without the fast tokenizer file)."""
        if directory is not None and (directory / "tokenizer.json").is_file():
            try:
                local = load_local_tokenizer(directory)
            except ValueError as err:  # a damaged file: named, and how to restore it
                raise VerifierError(f"{err}; {RESTORE_HINT}") from err
            return local.tokenizer, local.model_max_length, local.pad_token_id
        if _transformers_available():
            from transformers import AutoTokenizer

            hf_tokenizer = AutoTokenizer.from_pretrained(ref, **hub_kw)
            backend = getattr(hf_tokenizer, "backend_tokenizer", None)
            if backend is None:
                raise ValueError(
                    f"the tokenizer of {ref!r} has no fast (tokenizers) backend; "
                    "save it with a tokenizer.json"
                )
            if len(hf_tokenizer) <= len(hf_tokenizer.all_special_tokens):
                raise VerifierError(
                    f"the tokenizer of {ref!r} has no vocabulary, only its special tokens: "
                    f"{directory or ref} holds no tokenizer.json (nor vocab.txt); save the "
                    "tokenizer beside the model"
                )
            pad_id = hf_tokenizer.pad_token_id
            return backend, hf_tokenizer.model_max_length, 0 if pad_id is None else pad_id
        raise FileNotFoundError(
            f"no tokenizer.json in {directory or ref}; the onnx backend without transformers "
            "needs the fast tokenizer file"
        )

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` alone (no special tokens, no truncation)."""
        return len(self._counter.encode(text, add_special_tokens=False).ids)

    def count_tokens_batch(self, texts: Sequence[str]) -> list[int]:
        """:meth:`count_tokens` for many texts at once (tokenized in parallel)."""
        encodings = self._counter.encode_batch(list(texts), add_special_tokens=False)
        return [len(e.ids) for e in encodings]

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        """NLI probabilities for each ``(premise, hypothesis)`` pair, in input order.

        Raises:
            ValueError: a hypothesis alone does not fit into ``max_length``.
            VerifierError: the model failed or returned non-finite / misshapen logits.
        """
        self.stats["pairs"] += len(pairs)
        results: list[tuple[float, float, float] | None] = [None] * len(pairs)
        pending: dict[tuple[str, str], list[int]] = {}
        for position, (premise, hypothesis) in enumerate(pairs):
            key = (premise, hypothesis)
            cached = self._cache.get(key)
            if cached is not None:
                self.stats["cache_hits"] += 1
                results[position] = cached
            else:
                pending.setdefault(key, []).append(position)
        if pending:
            unique = list(pending)
            for key, scores in zip(unique, self._score(unique), strict=True):
                values = (scores.entailment, scores.neutral, scores.contradiction)
                self._cache.put(key, values)
                for position in pending[key]:
                    results[position] = values
        # every position is filled now, from the cache or from the model
        filled = cast(list[tuple[float, float, float]], results)
        return [NLIScores(*values) for values in filled]

    def _encode(self, pairs: list[tuple[str, str]]) -> list[Encoding]:
        try:
            encodings = self._pair_tokenizer.encode_batch(pairs)
        except Exception as err:  # tokenizers raises a bare Exception on impossible truncation
            room = self.max_length - self.pair_special_tokens
            too_long = [h for _, h in pairs if self.count_tokens(h) >= room]
            if not too_long:
                raise
            raise ValueError(
                f"hypothesis {too_long[0][:80]!r} has {self.count_tokens(too_long[0])} tokens, "
                f"leaving no room for a premise within max_length={self.max_length}; "
                "split the hypothesis"
            ) from err
        truncated = sum(1 for e in encodings if e.overflowing)
        if truncated:
            self.stats["truncated"] += truncated
            if not self._warned_truncation:
                self._warned_truncation = True
                logger.warning(
                    "%s: %d premise(s) truncated to fit max_length=%d; evidence selection "
                    "should pass windows that fit (counted in stats['truncated'])",
                    self.name,
                    truncated,
                    self.max_length,
                )
        return encodings

    def _pad(self, encodings: list[Encoding]) -> dict[str, np.ndarray]:
        """Right-pad to the longest encoding: each input ``(batch, longest)`` int64."""
        longest = max(len(e.ids) for e in encodings)
        shape = (len(encodings), longest)
        inputs = {
            "input_ids": np.full(shape, self.pad_token_id, dtype=np.int64),
            "attention_mask": np.zeros(shape, dtype=np.int64),
            "token_type_ids": np.zeros(shape, dtype=np.int64),
        }
        for row, encoding in enumerate(encodings):
            n = len(encoding.ids)
            inputs["input_ids"][row, :n] = encoding.ids
            inputs["attention_mask"][row, :n] = 1
            inputs["token_type_ids"][row, :n] = encoding.type_ids
        return {name: inputs[name] for name in self._session.input_names}

    def _score(self, pairs: list[tuple[str, str]]) -> list[NLIScores]:
        encodings = self._encode(pairs)
        order = sorted(range(len(pairs)), key=lambda i: len(encodings[i].ids))
        probs = np.empty((len(pairs), self.label_map.num_labels), dtype=np.float64)
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            inputs = self._pad([encodings[i] for i in rows])
            try:
                logits = self._session.run(inputs)
            except Exception as err:  # any backend failure is a verifier error, never a score
                raise VerifierError(
                    f"{self.backend} verifier {self.name!r} failed on a batch of {len(rows)} "
                    f"pairs: {err}"
                ) from err
            self.stats["model_calls"] += 1
            self._check_logits(logits, rows, pairs)
            probs[rows] = _softmax(logits)
        return self.label_map.scores(probs)

    def _check_logits(
        self, logits: np.ndarray, rows: list[int], pairs: list[tuple[str, str]]
    ) -> None:
        expected = (len(rows), self.label_map.num_labels)
        if logits.shape != expected:
            raise VerifierError(
                f"verifier {self.name!r} returned logits of shape {tuple(logits.shape)}, "
                f"expected {expected}"
            )
        finite = np.isfinite(logits).all(axis=-1)
        if not finite.all():
            first = rows[int(np.argmin(finite))]
            raise VerifierError(
                f"verifier {self.name!r} returned non-finite logits for "
                f"{int((~finite).sum())} of {len(rows)} pairs (e.g. hypothesis "
                f"{pairs[first][1][:80]!r})"
            )


def load_verifier(path_or_id: str | Path, **kwargs: Any) -> NLICrossEncoder:
    """An :class:`NLICrossEncoder` for a checkpoint directory or hub id (``backend="auto"``)."""
    return NLICrossEncoder(path_or_id, **kwargs)
