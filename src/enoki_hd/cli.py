"""``enoki`` command line: detect, detect-batch, serve, extract, teach, eval, version (and the project's make targets' entry points)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from enoki_hd import __version__

# EvidenceSelector's query_windows settings, written out: the CLI imports no model code to parse
QUERY_WINDOWS = ("off", "defer", "any")

logger = logging.getLogger(__name__)

DETECT_EXAMPLES = """\
examples:
  enoki detect --context context.txt --answer answer.txt
  echo "Paris is the capital of Germany." | enoki detect --context context.txt --answer -
  enoki detect --context ctx.txt --answer ans.txt --question "What is the capital?" --format md
  enoki detect --context ctx.txt --answer ans.txt --format json --stable --out report.json

  enoki detect --context ctx.txt --answer ans.txt --format html --out report.html
  enoki detect --context ctx.txt --answer ans.txt --fail-under 0.9 --fail-on-contradicted
  enoki detect --context ctx.txt --answer ans.txt --extractor none   # sentence level only
  enoki detect --context doc1.txt --context doc2.txt --answer ans.txt  # retrieved passages

exit codes: 0 done, 1 runtime error (e.g. a verifier failure), 2 usage error,
            3 faithfulness below --fail-under, or (under either gate) an answer not wholly
              checked (another language, nothing verifiable, an empty context) unless
              --allow-unchecked,
            4 contradiction with --fail-on-contradicted
"""


EVAL_EXAMPLES = """\
examples:
  enoki eval                                       # psiloqa_en50, shipped verifier
  enoki eval benchmark=wice_dev limit=20 verifier=window
  enoki eval benchmark=ragtruth_sent48 "methods=[detector,lexical_absent]"
  enoki eval --all                                 # every benchmark -> outputs/eval/summary.md
  enoki eval benchmark=file benchmark.path=my_set.jsonl benchmark.format=mushroom  # your own file

Arguments are Hydra overrides of configs/eval.yaml (the same runner as `make eval`).
benchmark=file reads a file of yours; benchmark.format is one of mushroom, psiloqa_csv,
psiloqa_hub, ragtruth, ragtruth_processed, factcheck, sentence_sample, wice, halluentity,
enokiqa, capabilities, span_set (configs/benchmark/file.yaml lists the extra keys, e.g.
benchmark.sources).
Outputs: outputs/eval/<benchmark>/<run_name>/ (metrics.json, predictions.jsonl, report.md,
thresholds.png); the report is printed.
"""


TEACH_EXAMPLES = """\
examples:
  enoki teach --input answers.jsonl --text-field answer --out teacher.jsonl \\
      --model Qwen2.5-7B-Instruct --base-url http://localhost:8000/v1 --workers 16
  enoki teach ... --limit 100 --max-cost 5 --price-in 0.15 --price-out 0.6   # a hosted API
  make distill ARGS="data.teacher_jsonl=[$PWD/teacher.jsonl]"

The key comes from OPENAI_API_KEY or a git-ignored .env (local servers need none). A rerun
skips the rows already written and retries the others.
exit codes: 0 every row written, 1 runtime error, 2 usage error,
            3 incomplete (rows failed or the cost cap stopped the run): rerun to finish
"""


_RESUMABLE = ("detect-batch", "teach", "eval")
SENTENCE_ENTAILMENT_HELP = (  # --sentence-entailment of detect, detect-batch and serve
    "opt-in (default: off): a fact that only the verifier's reading of it failed is supported "
    "when its whole sentence is entailed at least this much (0.7 in the README's runs: fewer "
    "false alarms on paraphrases, more missed errors in long compositional sentences)"
)


class UsageError(Exception):
    """A bad command-line argument: reported with exit code 2."""


def _read_text(argument: str, value: str, *, stdin_used: list[str]) -> str:
    """The text of a file argument (or ``-`` for standard input), as UTF-8.

    A leading byte-order mark is not part of the text (offsets count from after it); a file
    that is not UTF-8, a directory or text with NUL characters (UTF-16 read as UTF-8, or a
    binary file) is a usage error naming the argument and the fix."""
    if value == "-":
        if stdin_used:
            raise UsageError(
                f"argument {argument}: standard input is already used by {stdin_used[0]}; "
                "give a file for one of them"
            )
        stdin_used.append(argument)
        return _decoded(argument, "standard input", sys.stdin.buffer.read(), "")
    path = Path(value)
    if path.is_dir():
        raise UsageError(f"argument {argument}: {value} is a directory; give a text file")
    if not path.exists():  # not is_file(): a pipe is text too (`--context <(curl ...)`)
        raise UsageError(f"argument {argument}: file not found: {value}")
    return _decoded(argument, value, path.read_bytes(), value)


def _decoded(argument: str, source: str, raw: bytes, name: str) -> str:
    """``raw`` as UTF-8 text without a leading byte-order mark, or a usage error naming the
    argument, the byte and the ``iconv`` command that fixes it."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        fix = (
            f"it starts with a UTF-16 byte-order mark; convert it: iconv -f UTF-16 -t UTF-8 {name}"
            if raw.startswith((b"\xff\xfe", b"\xfe\xff"))
            else f"save it as UTF-8, e.g. iconv -f WINDOWS-1252 -t UTF-8 {name}"
        ).rstrip()
        raise UsageError(
            f"argument {argument}: {source} is not UTF-8 text ({err.reason} at byte "
            f"{err.start}); {fix}"
        ) from err
    return _checked_text(argument, source, text)


def _checked_text(argument: str, source: str, text: str) -> str:
    if "\x00" in text:
        raise UsageError(
            f"argument {argument}: {source} contains NUL characters (UTF-16 or a binary file?); "
            "give UTF-8 text"
        )
    return text


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="enoki",
        description="Find the parts of an LLM answer that the reference context does not support.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    detect = commands.add_parser(
        "detect",
        help="check an answer against its context",
        description="Check every sentence of an answer against the reference context.",
        epilog=DETECT_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    detect.add_argument(
        "--context",
        required=True,
        action="append",
        metavar="FILE|-",
        help="reference context; give it several times for several passages (retrieved "
        "documents): no evidence window spans two, and each evidence names its passage",
    )
    detect.add_argument("--answer", required=True, metavar="FILE|-", help="the LLM answer")
    detect.add_argument("--question", default=None, help="the question the answer replies to")
    detect.add_argument("--format", choices=("json", "md", "html"), default="json")
    detect.add_argument("--out", default=None, metavar="FILE", help="write here, not stdout")
    detect.add_argument(
        "--verifier",
        default=None,
        metavar="PATH|HUB_ID|NAME",
        help="NLI verifier (default: the shipped checkpoints/verifier-minilm; "
        "verifier-minilm-l3: the shipped 3-layer one, half the cost per pair)",
    )
    detect.add_argument(
        "--evidence",
        choices=("retrieve", "window"),
        default="retrieve",
        help="evidence selection strategy (default: retrieve)",
    )
    detect.add_argument("--top-k", type=int, default=3, help="sentences retrieved per hypothesis")
    detect.add_argument(
        "--query-windows",
        choices=QUERY_WINDOWS,
        default="off",
        help="also judge each fact against the windows retrieved for its answer sentence "
        "(defer: their entailment never outweighs the fact's own contradiction; default off)",
    )
    detect.add_argument(
        "--threshold",
        type=float,
        default=0.5,
        help="hallucination score at which a sentence is flagged (default 0.5)",
    )
    detect.add_argument(
        "--inherit-entailment",
        type=_inherit_value,
        default=0.5,
        metavar="ENTAILMENT",
        help="judge coarse-to-fine chains refinements first: an ancestor takes the decision of a "
        "refinement entailed at least this much instead of being judged (default 0.5: about "
        "40%% fewer NLI pairs on long answers; 'none': every fact is judged)",
    )
    detect.add_argument(
        "--sentence-entailment",
        type=_inherit_value,
        default=None,
        metavar="ENTAILMENT",
        help=SENTENCE_ENTAILMENT_HELP,
    )
    detect.add_argument(
        "--keep-citations",
        action="store_true",
        help="read citation markers ([1], [Doc 2], (Source 3)) as part of the answer's text "
        "(default: they are not part of any claim and are never checked or flagged)",
    )
    detect.add_argument(
        "--keep-frames",
        action="store_true",
        help='judge attribution frames ("According to the context, ", "In summary, ") as part '
        "of their sentence (default: they are not part of any claim)",
    )
    detect.add_argument(
        "--stable",
        action="store_true",
        help="leave timings out of JSON so that outputs can be diffed",
    )
    detect.add_argument(
        "--extractor",
        default="rules",
        help="fact extractor: rules (default), encoder (the distilled tagger) or none for "
        "sentence-level detection only",
    )
    detect.add_argument(
        "--verification",
        choices=("nli", "grounding", "hybrid"),
        default="hybrid",
        help="how a fact is judged (default hybrid: NLI + lexical grounding of its new words)",
    )
    detect.add_argument(
        "--selection",
        choices=("rules", "none"),
        default="rules",
        help="claim selection (default rules: headings, lead-ins, questions, remarks and "
        "opinions are reported not_a_claim and not checked; tables are checked cell by cell); "
        "none checks every sentence as written",
    )
    detect.add_argument(
        "--fail-under",
        type=float,
        default=None,
        metavar="FAITHFULNESS",
        help="exit 3 when faithfulness (supported / checked) is below this (a CI gate)",
    )
    detect.add_argument(
        "--fail-on-contradicted",
        action="store_true",
        help="exit 4 when any fact or sentence is contradicted by the context (a CI gate)",
    )
    detect.add_argument(
        "--allow-unchecked",
        action="store_true",
        help="let an answer that could not be (wholly) checked pass the gates; by default "
        "the gates fail closed on it with exit 3",
    )

    extract = commands.add_parser(
        "extract",
        help="print the anchored facts of a text as JSON lines",
        description="Extract anchored (subject, relation, object) facts with exact offsets.",
    )
    extract.add_argument("--answer", required=True, metavar="FILE|-", help="text to extract from")
    extract.add_argument(
        "--extractor", default="rules", help="extractor name: rules (default) or encoder"
    )
    extract.add_argument(
        "--format",
        choices=("facts", "teacher"),
        default="facts",
        help="facts (default): one fact a line; teacher: one {text, facts} line, the teacher "
        'JSONL make distill reads (append answers with >>, then ARGS="data.teacher=FILE")',
    )

    evaluate = commands.add_parser(
        "eval",
        help="evaluate on benchmarks (the runner of make eval)",
        description="Run the detector and the baselines on a benchmark and write its metrics.",
        epilog=EVAL_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    evaluate.add_argument(
        "overrides", nargs="*", metavar="KEY=VALUE", help="Hydra overrides of configs/eval.yaml"
    )
    evaluate.add_argument(
        "--all",
        action="store_true",
        help="every benchmark under the shared folder, then summary.md",
    )
    evaluate.add_argument(
        "--config-dir",
        default=None,
        metavar="DIR",
        help="folder holding eval.yaml (default: the shipped configs/)",
    )

    compare = commands.add_parser(
        "compare",
        help="two make eval runs of one benchmark, compared with a paired bootstrap",
        description="Is run A better than run B, or is the difference noise? Resamples the "
        "benchmark's examples and prints A minus B for every headline metric with its interval "
        "and the share of resamples in which A is ahead.",
        epilog="example:\n  enoki compare outputs/eval/mushroom_dev30/rules-shipped "
        "outputs/eval/mushroom_dev30/encoder-shipped",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    compare.add_argument("first", metavar="RUN_A", help="a run folder (the reference)")
    compare.add_argument("second", metavar="RUN_B", help="a run folder of the same benchmark")
    compare.add_argument(
        "--method", default="detector", help="whose predictions to compare (default: detector)"
    )
    compare.add_argument("--samples", type=int, default=1000, help="resamples (default: 1000)")
    compare.add_argument("--seed", type=int, default=0, help="resampling seed (default: 0)")
    compare.add_argument(
        "--level", type=float, default=0.95, help="interval coverage (default: 0.95)"
    )
    compare.add_argument(
        "--shared-dir",
        default=None,
        metavar="DIR",
        help="the shared data folder (default: the one the first run recorded)",
    )
    compare.add_argument(
        "--out", default=None, metavar="FILE", help="also write the result as JSON here"
    )

    teach = commands.add_parser(
        "teach",
        help="teacher triples for make distill from a chat model (resumable)",
        description="Extract anchored facts from every answer of a JSONL file with a chat model "
        "over an OpenAI-compatible endpoint; the output is what make distill reads.",
        epilog=TEACH_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    teach.add_argument("--input", required=True, metavar="FILE.jsonl", help="one answer per line")
    teach.add_argument(
        "--text-field", default="answer", help="the field holding the answer (default answer)"
    )
    teach.add_argument(
        "--id-field", default="id", help="the field holding a unique id (default id; else line N)"
    )
    teach.add_argument("--out", required=True, metavar="FILE.jsonl", help="teacher JSONL output")
    teach.add_argument("--model", required=True, help="the served model's name")
    teach.add_argument(
        "--base-url",
        default=None,
        metavar="URL",
        help="e.g. http://localhost:8000/v1 (default: $OPENAI_BASE_URL)",
    )
    teach.add_argument("--workers", type=int, default=8, help="requests in flight (default 8)")
    teach.add_argument("--limit", type=int, default=None, help="the first N rows only")
    teach.add_argument(
        "--prompt",
        default="incremental",
        help="incremental (default), flat, or a template file (see enoki_hd/llm/prompts)",
    )
    teach.add_argument(
        "--max-cost", type=float, default=None, metavar="USD", help="stop once this is spent"
    )
    teach.add_argument(
        "--price-in", type=float, default=0.0, metavar="USD", help="per million prompt tokens"
    )
    teach.add_argument(
        "--price-out", type=float, default=0.0, metavar="USD", help="per million output tokens"
    )
    teach.add_argument(
        "--timeout", type=float, default=60.0, help="seconds per attempt (default 60)"
    )
    teach.add_argument(
        "--max-retries", type=int, default=6, help="retries on 429/5xx/timeouts (default 6)"
    )
    teach.add_argument(
        "--max-tokens",
        type=int,
        default=1024,
        help="the longest completion a request may get (default 1024); a row whose answer is "
        "cut there fails",
    )
    teach.add_argument("--no-progress", action="store_true", help="no progress bar (logs and CI)")

    _add_detect_batch(commands)
    _add_serve(commands)
    commands.add_parser("version", help="print the version")
    return parser


DETECT_BATCH_EXAMPLES = """\
examples:
  enoki detect-batch --input rows.jsonl --out reports.jsonl
  enoki detect-batch --input rows.jsonl --out reports.jsonl --workers 4 --extractor encoder
  enoki detect-batch --input rows.jsonl --out reports.jsonl --ray auto --workers 64

Input: one JSON object a line, {"id"?, "answer", "context", "question"?}; "context" is a string
or a list of passages (retrieved documents). Output: one line per
input line, in input order: {"id", "line", "row_sha256", "report"} or {"id", "line",
"row_sha256", "error": {"field", "message"}} for a bad row (the job goes on); row_sha256 is
the input line's digest, so a rerun on another or an edited input is refused. A rerun skips the rows already in --out and
appends the rest: killed and rerun, the output is byte-identical to an uninterrupted run.
exit codes: 0 every row reported, 1 runtime error (e.g. a verifier failure: rerun to resume),
            2 usage error, 3 done, but some rows were bad (their lines hold the error)
"""


def _add_detector_options(parser: argparse.ArgumentParser) -> None:
    """The detector options detect-batch and serve share (detect has its own help texts)."""
    parser.add_argument(
        "--verifier",
        default=None,
        metavar="PATH|NAME",
        help="NLI verifier (default: shipped; verifier-minilm-l3: the shipped 3-layer one)",
    )
    parser.add_argument(
        "--extractor", default="rules", help="rules (default), encoder or none (sentence level)"
    )
    parser.add_argument("--evidence", choices=("retrieve", "window"), default="retrieve")
    parser.add_argument("--top-k", type=int, default=3, help="sentences retrieved per hypothesis")
    parser.add_argument(
        "--query-windows",
        choices=QUERY_WINDOWS,
        default="off",
        help="also judge each fact against its answer sentence's windows (default off)",
    )
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--verification", choices=("nli", "grounding", "hybrid"), default="hybrid")
    parser.add_argument("--selection", choices=("rules", "none"), default="rules")
    parser.add_argument(
        "--inherit-entailment",
        type=_inherit_value,
        default=0.5,
        metavar="ENTAILMENT",
        help="ancestors of a chain take a refinement's decision when it is entailed at least "
        "this much (default 0.5, fewer NLI pairs; 'none': every fact judged)",
    )
    parser.add_argument(
        "--sentence-entailment",
        type=_inherit_value,
        default=None,
        metavar="ENTAILMENT",
        help=SENTENCE_ENTAILMENT_HELP,
    )
    parser.add_argument(
        "--keep-citations",
        action="store_true",
        help="read citation markers ([1], [Doc 2]) as answer text (default: never checked)",
    )
    parser.add_argument(
        "--keep-frames",
        action="store_true",
        help='judge attribution frames ("According to the context, ") as claim text',
    )


def _inherit_value(text: str) -> float | None:
    """``--inherit-entailment``, ``--sentence-entailment``: a number, or ``none``."""
    if text.strip().lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a number in [0, 1] or 'none', got {text!r}"
        ) from None


def _check_inherit(value: float | None, option: str = "--inherit-entailment") -> float | None:
    if value is not None and not 0.0 <= value <= 1.0:
        raise UsageError(f"argument {option}: must be in [0, 1], got {value}")
    return value


def _check_fact_options(args: argparse.Namespace) -> None:
    """Options that judge facts when ``--extractor none`` leaves none, or that
    ``--verification`` would skip: a usage error before any model loads."""
    from enoki_hd.detector import check_fact_options

    try:
        check_fact_options(
            args.verification,
            args.verification,
            facts=args.extractor != "none",
            sentence_entailment=args.sentence_entailment,
        )
    except ValueError as err:
        given = f"--extractor {args.extractor} --verification {args.verification}"
        if args.sentence_entailment is not None:
            given += f" --sentence-entailment {args.sentence_entailment}"
        raise UsageError(f"{given}: {err}") from err


def _detector_config(args: argparse.Namespace) -> dict:
    """A ``Detector.from_config`` mapping from the shared detector options."""
    if args.top_k < 1:
        raise UsageError(f"argument --top-k: must be >= 1, got {args.top_k}")
    if not 0.0 <= args.threshold <= 1.0:
        raise UsageError(f"argument --threshold: must be in [0, 1], got {args.threshold}")
    if args.extractor != "none":
        _extractor(args.extractor)  # an unknown name is a usage error before any model loads
    _check_fact_options(args)
    return {
        "verifier": {"path": args.verifier},
        "extractor": args.extractor,
        "evidence": {
            "strategy": args.evidence,
            "top_k": args.top_k,
            "query_windows": args.query_windows,
        },
        "threshold": args.threshold,
        "verification": args.verification,
        "selection": args.selection,
        "inherit_entailment": _check_inherit(args.inherit_entailment),
        "sentence_entailment": _check_inherit(args.sentence_entailment, "--sentence-entailment"),
        "mask_citations": not args.keep_citations,
        "mask_frames": not args.keep_frames,
    }


def _add_detect_batch(commands) -> None:
    batch = commands.add_parser(
        "detect-batch",
        help="check a JSONL file of answers (resumable, parallel, or on Ray)",
        description="Check every row of a JSONL file; reports go to a JSONL file in input order.",
        epilog=DETECT_BATCH_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    batch.add_argument("--input", required=True, metavar="FILE", help="rows, one JSON a line")
    batch.add_argument("--out", required=True, metavar="FILE", help="reports (appended: resumes)")
    batch.add_argument("--workers", type=int, default=1, help="processes (or Ray actors)")
    batch.add_argument(
        "--ray",
        default=None,
        metavar="ADDRESS",
        help="run on a Ray cluster (auto, HOST:PORT, ray://host:10001 with ray[client], or local)",
    )
    batch.add_argument("--no-progress", action="store_true", help="no progress bar")
    _add_detector_options(batch)


def _run_detect_batch(args: argparse.Namespace) -> int:
    import json

    from enoki_hd.batch import BatchError, WorkerDied, run_batch

    config = _detector_config(args)
    if args.workers < 1:
        raise UsageError(f"argument --workers: must be >= 1, got {args.workers}")
    try:
        if args.ray is not None:
            from enoki_hd.integrations.ray import check_detector

            # before run_batch opens --out: a bad --ray address, or a verifier the cluster
            # cannot load, fails with its own one-line error and leaves no empty output behind
            check_detector(config, address=args.ray)
        summary = run_batch(
            args.input,
            args.out,
            detector=config,
            workers=args.workers,
            ray_address=args.ray,
            progress=not args.no_progress,
        )
    except WorkerDied as err:  # a runtime failure, not a usage error: exit 1
        sys.stderr.write(f"enoki detect-batch: error: {err}\n")
        return 1
    except BatchError as err:
        raise UsageError(str(err)) from err
    except ImportError as err:  # --ray without the ray extra
        raise UsageError(str(err)) from err
    sys.stderr.write(f"enoki detect-batch: {json.dumps(summary.to_dict())}\n")
    # bad rows an earlier, interrupted run wrote count too: a resumed job ends as one run would
    return 3 if summary.errors or summary.skipped_errors else 0


SERVE_EXAMPLES = """\
examples:
  enoki serve                                   # http://127.0.0.1:8000
  enoki serve --host 0.0.0.0 --port 9000 --extractor encoder --max-pending 64
  curl -s localhost:8000/detect -H 'content-type: application/json' \\
       -d '{"answer": "...", "context": "..."}'
  curl -s localhost:8000/metrics               # Prometheus text format

Endpoints: POST /detect ({"answer", "context", "question"?} or {"examples": [...]}),
GET /health, GET /metrics. Errors are JSON: {"error": {"type", "message", "field"?}}.
"""


def _add_serve(commands) -> None:
    serve = commands.add_parser(
        "serve",
        help="the HTTP service (FastAPI + uvicorn): /detect, /health, /metrics",
        description="Serve detection over HTTP with Prometheus metrics.",
        epilog=SERVE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument(
        "--max-body-bytes", type=int, default=2_000_000, help="larger requests get 413"
    )
    serve.add_argument("--max-batch", type=int, default=32, help="examples per request")
    serve.add_argument(
        "--max-pending",
        type=int,
        default=32,
        help="requests waiting for the detector beyond which new ones get 503",
    )
    serve.add_argument(
        "--timeout", type=float, default=30.0, help="seconds before a request gets 504"
    )
    _add_detector_options(serve)


def _run_serve(args: argparse.Namespace) -> int:
    import errno

    from enoki_hd.serve import ServeSettings, bind_socket, require_serve_extra, run_server

    try:
        require_serve_extra()
    except ImportError as err:
        raise UsageError(str(err)) from err
    if not 0 <= args.port <= 65535:
        raise UsageError(f"argument --port: must be in [0, 65535], got {args.port}")
    settings = ServeSettings(
        max_body_bytes=args.max_body_bytes,
        max_batch=args.max_batch,
        max_pending=args.max_pending,
        timeout_s=args.timeout,
    )
    options = {
        "max_body_bytes": "--max-body-bytes",
        "max_batch": "--max-batch",
        "max_pending": "--max-pending",
        "timeout_s": "--timeout",
    }
    try:
        settings.check({field: f"argument {flag}:" for field, flag in options.items()})
    except ValueError as err:
        raise UsageError(str(err)) from err
    detector = _detector_config(args)
    address = f"{args.host}:{args.port}"
    try:  # before the models load: a port in use is reported at once
        sock = bind_socket(args.host, args.port)
    except OSError as err:
        if err.errno == errno.EADDRINUSE:
            raise UsageError(
                f"argument --port: {address} is already in use; pick another --port "
                "(0: any free one) or stop the server on it"
            ) from err
        raise UsageError(
            f"argument --host/--port: cannot listen on {address} ({err.strerror or err})"
        ) from err
    run_server(detector, settings, host=args.host, port=args.port, sock=sock)
    return 0


def _run_detect(args: argparse.Namespace) -> int:
    from enoki_hd.detector import Detector
    from enoki_hd.report import render
    from enoki_hd.verify.evidence import EvidenceSelector

    if args.top_k < 1:
        raise UsageError(f"argument --top-k: must be >= 1, got {args.top_k}")
    if not 0.0 <= args.threshold <= 1.0:
        raise UsageError(f"argument --threshold: must be in [0, 1], got {args.threshold}")
    if args.fail_under is not None and not 0.0 <= args.fail_under <= 1.0:
        raise UsageError(f"argument --fail-under: must be in [0, 1], got {args.fail_under}")
    inherit = _check_inherit(args.inherit_entailment)
    sentence_entailment = _check_inherit(args.sentence_entailment, "--sentence-entailment")
    _check_fact_options(args)
    _check_out(args.out)
    extractor = None if args.extractor == "none" else _extractor(args.extractor)
    stdin_used: list[str] = []
    passages = [_read_text("--context", v, stdin_used=stdin_used) for v in args.context]
    context: str | list[str] = passages[0] if len(passages) == 1 else passages
    answer = _read_text("--answer", args.answer, stdin_used=stdin_used)
    detector = Detector(
        args.verifier,
        extractor=extractor,
        selector=EvidenceSelector(
            strategy=args.evidence, top_k=args.top_k, query_windows=args.query_windows
        ),
        threshold=args.threshold,
        verification=args.verification,
        selection=args.selection,
        inherit_entailment=inherit,
        sentence_entailment=sentence_entailment,
        mask_citations=not args.keep_citations,
        mask_frames=not args.keep_frames,
    )
    report = detector.detect(answer=answer, context=context, question=args.question)
    kwargs = {"stable": args.stable} if args.format == "json" else {}
    _write(render(report, args.format, **kwargs), args.out)
    gated = args.fail_under is not None or args.fail_on_contradicted
    if gated and not report.checked and not args.allow_unchecked:
        summary = report.summary
        why = (
            "the context is empty"
            if summary.status == "no_context"
            else f"{summary.unchecked} sentence(s) unchecked"
        )
        sys.stderr.write(
            f"enoki detect: the answer was not wholly checked (status {summary.status}, {why}); "
            "the gate fails closed — pass --allow-unchecked to let such answers through\n"
        )
        return 3
    faithfulness = report.summary.faithfulness
    if args.fail_under is not None and faithfulness is not None and faithfulness < args.fail_under:
        sys.stderr.write(f"enoki detect: faithfulness {faithfulness:.3f} < {args.fail_under}\n")
        return 3
    contradicted = any(v.label == "contradicted" and v.fact.anchored for v in report.facts) or any(
        s.label == "contradicted" for s in report.sentences
    )
    if args.fail_on_contradicted and contradicted:
        sys.stderr.write("enoki detect: the context contradicts the answer\n")
        return 4
    return 0


def _check_out(value: str | None) -> None:
    """A usage error now, before any work, for an output path that cannot be written: a
    directory, or a file in a directory that does not exist."""
    if not value:
        return
    path = Path(value)
    if path.is_dir():
        raise UsageError(f"argument --out: {value} is a directory; give a file name")
    parent = path.parent
    if not parent.is_dir():
        raise UsageError(
            f"argument --out: the directory {str(parent)!r} does not exist; create it first"
        )


def _write(text: str, out: str | None) -> None:
    text = text if text.endswith("\n") else text + "\n"
    if out:
        try:
            Path(out).write_text(text, encoding="utf-8")
        except OSError as err:
            raise UsageError(f"argument --out: cannot write {out}: {err.strerror or err}") from err
    else:
        _write_stdout(text)


def _write_stdout(text: str) -> None:
    """``text`` on standard output as UTF-8, as ``--out`` writes it and as the HTML report's
    ``<meta charset="utf-8">`` says, whatever the locale's encoding: a Windows pipe's cp1252
    cannot encode an emoji or a Greek answer, and the report was lost to a traceback."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream (a notebook's, a test's StringIO)
        sys.stdout.write(text)
        return
    sys.stdout.flush()
    buffer.write(text.encode("utf-8"))
    buffer.flush()


# extractors that need settings the command line does not take
_CONFIGURED_EXTRACTORS = {
    "llm": "a chat model and its endpoint (`enoki teach`, or `extractor=llm` with its settings "
    "in `make eval` / the Python API)",
    "preextracted": "a file of triples (`extractor=preextracted extractor.path=...` in `make eval`, "
    "or the Python API)",
}


def _extractor(name: str, *, none: bool = True):
    """The extractor ``--extractor`` names (``none`` allowed where ``none`` is True: the
    caller handles it); a usage error for an unknown name or one the command line cannot
    configure."""
    from enoki_hd.extract import available_extractors, get_extractor

    usable = [n for n in available_extractors() if n not in _CONFIGURED_EXTRACTORS]
    known = ", ".join(["none", *usable] if none else usable)
    if name in _CONFIGURED_EXTRACTORS:
        raise UsageError(
            f"argument --extractor: {name!r} needs {_CONFIGURED_EXTRACTORS[name]}; "
            f"on the command line choose from {known}"
        )
    if name not in available_extractors():
        raise UsageError(f"argument --extractor: unknown extractor {name!r}; choose from {known}")
    return get_extractor(name)


def _run_extract(args: argparse.Namespace) -> int:
    import json

    answer = _read_text("--answer", args.answer, stdin_used=[])
    facts = _extractor(args.extractor, none=False).extract(answer)
    if args.format == "teacher":  # the fact spans are offsets into this text
        record = {"text": answer, "facts": [f.to_dict() for f in facts]}
        sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
        return 0
    # JSON lines: no line at all when there is no fact (an empty line is no JSON)
    sys.stdout.write("".join(json.dumps(f.to_dict(), ensure_ascii=False) + "\n" for f in facts))
    return 0


def _run_teach(args: argparse.Namespace) -> int:
    from enoki_hd.extract.llm import LLMExtractor
    from enoki_hd.llm.client import BASE_URL_ENV
    from enoki_hd.train.teach import read_rows, teach

    for name, value, low in (
        ("--workers", args.workers, 1),
        ("--limit", args.limit, 1),
        ("--max-retries", args.max_retries, 0),
        ("--max-tokens", args.max_tokens, 1),
        ("--price-in", args.price_in, 0),
        ("--price-out", args.price_out, 0),
        ("--max-cost", args.max_cost, 0),
    ):
        if value is not None and value < low:
            raise UsageError(f"argument {name}: must be >= {low}, got {value}")
    if not 0 < args.timeout < float("inf"):
        raise UsageError(f"argument --timeout: must be a finite number > 0, got {args.timeout}")
    if not Path(args.input).is_file():
        raise UsageError(f"argument --input: file not found: {args.input}")
    if not (args.base_url or os.environ.get(BASE_URL_ENV)):
        raise UsageError(
            f"argument --base-url: name the endpoint the texts go to, e.g. "
            f"http://localhost:8000/v1, or set {BASE_URL_ENV}"
        )
    try:
        rows = read_rows(
            args.input, text_field=args.text_field, id_field=args.id_field, limit=args.limit
        )
        extractor = LLMExtractor(
            args.model,
            args.base_url,
            prompt=args.prompt,
            workers=args.workers,
            timeout=args.timeout,
            max_retries=args.max_retries,
            max_tokens=args.max_tokens,
            price_in=args.price_in,
            price_out=args.price_out,
            max_cost=args.max_cost,
        )
    except ValueError as err:
        raise UsageError(str(err)) from err
    try:
        result = teach(rows, args.out, extractor, progress=not args.no_progress)
    except ValueError as err:  # --out is no teach output, holds another teacher, is busy
        raise UsageError(str(err)) from err
    except KeyboardInterrupt:
        # requests in flight may hang for their whole timeout and retries, and the worker
        # threads would hold the exit until then: every finished row is on disk (one fsync
        # per record), so stop now
        sys.stderr.write("enoki teach: interrupted (rerun the same command to resume)\n")
        sys.stderr.flush()
        sys.stdout.flush()
        os._exit(130)
    _write(result.format(), None)
    return 0 if result.complete else 3


def _run_eval(args: argparse.Namespace) -> int:
    import shlex

    bad = [o for o in args.overrides if "=" not in o]
    if bad:
        raise UsageError(f"expected KEY=VALUE overrides of configs/eval.yaml, got {bad[0]!r}")
    try:
        from hydra.errors import HydraException

        from enoki_hd.eval.datasets import BenchmarkConfigError
        from enoki_hd.eval.runner import (
            EvalSetupError,
            compose_eval_config,
            exit_interrupted,
            run_eval,
            run_eval_all,
        )
    except ImportError as err:
        raise UsageError(
            f"enoki eval needs the eval extra: pip install 'enoki-hd[eval]' ({err})"
        ) from err
    try:
        if args.all:
            _, objects = run_eval_all(args.overrides, config_dir=args.config_dir)
            report = objects["summary"]
        else:
            cfg = compose_eval_config(args.overrides, config_dir=args.config_dir)
            command = shlex.join(["enoki", "eval", *args.overrides])
            _, objects = run_eval(cfg, command=command)
            report = objects["files"]["report"]
    except (HydraException, BenchmarkConfigError, EvalSetupError) as err:
        raise UsageError(str(err)) from err
    except KeyboardInterrupt:
        exit_interrupted("enoki eval")
    sys.stdout.write(report.read_text(encoding="utf-8"))
    return 0


def _run_compare(args: argparse.Namespace) -> int:
    try:
        from enoki_hd.eval.compare import compare_runs
        from enoki_hd.eval.files import atomic_write, to_json
        from enoki_hd.eval.rendering import render_comparison
    except ImportError as err:
        raise UsageError(
            f"enoki compare needs the eval extra: pip install 'enoki-hd[eval]' ({err})"
        ) from err
    # checked here so that the message names the flag, not the config key bootstrap.*
    if args.samples < 1:
        raise UsageError(f"--samples must be a whole number >= 1, got {args.samples}")
    if not 0.0 < args.level < 1.0:
        raise UsageError(f"--level must be between 0 and 1 (e.g. 0.95), got {args.level}")
    try:
        result = compare_runs(
            args.first,
            args.second,
            method=args.method,
            shared_dir=args.shared_dir,
            samples=args.samples,
            seed=args.seed,
            level=args.level,
        )
    except ValueError as err:
        raise UsageError(str(err)) from err
    if args.out:
        atomic_write(Path(args.out), to_json(result, indent=2) + "\n")
    sys.stdout.write(render_comparison(result))
    return 0


def _check_onnx_threads() -> None:
    """A bad ``$ENOKI_ONNX_THREADS`` is a usage error before any model loads."""
    from enoki_hd.runtime.onnx import intra_op_threads

    try:
        intra_op_threads()
    except ValueError as err:
        raise UsageError(str(err)) from err


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        if args.command == "version":
            print(f"enoki-hd {__version__}")
            return 0
        if args.command != "compare":  # every other command loads ONNX graphs
            _check_onnx_threads()
        if args.command == "detect":
            return _run_detect(args)
        if args.command == "eval":
            return _run_eval(args)
        if args.command == "compare":
            return _run_compare(args)
        if args.command == "extract":
            return _run_extract(args)
        if args.command == "teach":
            return _run_teach(args)
        if args.command == "detect-batch":
            return _run_detect_batch(args)
        if args.command == "serve":
            return _run_serve(args)
    except UsageError as err:
        parser.exit(2, f"enoki {args.command}: error: {err}\n")
    except KeyboardInterrupt:
        resume = " (rerun the same command to resume)" if args.command in _RESUMABLE else ""
        parser.exit(130, f"enoki {args.command}: interrupted{resume}\n")
    except FileNotFoundError as err:
        parser.exit(2, f"enoki {args.command}: error: {err}\n")
    except Exception as err:
        # Imported only on failure: `enoki version` should not load the verify package.
        from enoki_hd.llm.client import LLMError
        from enoki_hd.verify.nli import VerifierError

        # an LLM endpoint that failed for good: the message names it and what to check
        if not isinstance(err, (VerifierError, LLMError)):
            raise
        message = " ".join(str(err).split())  # one line, whatever the backend wrote
        parser.exit(1, f"enoki {args.command}: error: {message}\n")
    parser.error(f"unknown command {args.command!r}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
