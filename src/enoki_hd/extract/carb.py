"""CaRB OpenIE evaluation: facts as CaRB tuples, readers for the official prediction formats,
and :func:`carb_score`, which reproduces the official CaRB scorer (dair-iitd/CaRB ``carb.py``,
default binary lenient tuple match; Bhardwaj et al., 2019)."""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from enoki_hd.extract.base import Extractor
from enoki_hd.types import Fact, Span

# (arg1, relation, args, confidence); args is one string or a list of argument strings
CarbTuple = tuple[str, str, str | list[str], float | None]
CarbMatch = Literal["carb", "strict"]

# relations after which the official match also tries the arguments swapped
_SAID_RELATIONS = ("said", "told", "added", "adds", "says")
_FORMS_OF_BE = ("be", "is", "am", "are", "was", "were", "been", "being")
_PTB_ESCAPES = (
    ("(", "-LRB-"),
    (")", "-RRB-"),
    ("[", "-LSB-"),
    ("]", "-RSB-"),
    ("{", "-LCB-"),
    ("}", "-RCB-"),
)
_PUNCTUATION_RE = re.compile(f"[{re.escape(string.punctuation)}]")


def widest_facts(facts: list[Fact]) -> list[Fact]:
    """The facts no other fact refines: the widest fact of each incremental chain."""
    parents = {f.parent for f in facts if f.parent is not None}
    return [f for f in facts if f.id not in parents]


def carb_tuples(facts: list[Fact], *, collapse_chains: bool = False) -> list[CarbTuple]:
    """``(arg1, relation, args, confidence)`` per fact; with ``collapse_chains`` only the
    widest fact of each chain (:func:`widest_facts`)."""
    kept = widest_facts(facts) if collapse_chains else facts
    return [(f.subject, f.relation, f.object, f.confidence) for f in kept]


def carb_predictions(
    extractor: Extractor, sentences: Iterable[str], *, collapse_chains: bool = False
) -> dict[str, list[CarbTuple]]:
    """Run ``extractor`` on each CaRB sentence (one sentence each, not re-segmented) and key
    its tuples by the sentence text, as :func:`carb_score` expects."""
    predictions: dict[str, list[CarbTuple]] = {}
    for sentence in sentences:
        facts = extractor.extract(sentence, sentences=[Span(0, len(sentence))])
        predictions[sentence] = carb_tuples(facts, collapse_chains=collapse_chains)
    return predictions


# --------------------------------------------------------------------------------------------
# Readers for system outputs in the formats the official scorer takes
# --------------------------------------------------------------------------------------------


def _tab_rows(path: str | Path) -> Iterator[tuple[int, list[str]]]:
    """``(line number, columns)`` of the non-blank lines of a tab-separated file, each line
    stripped first (as CaRB reads them)."""
    with Path(path).open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if line.strip():
                yield line_no, line.strip().split("\t")


def read_carb_tabbed(path: str | Path) -> dict[str, list[CarbTuple]]:
    """CaRB's ``--tabbed`` format: ``sentence<TAB>confidence<TAB>relation<TAB>arg1<TAB>arg2…``
    per line, keyed by sentence."""
    predictions: dict[str, list[CarbTuple]] = {}
    for line_no, columns in _tab_rows(path):
        if len(columns) < 3:
            raise ValueError(
                f"{path}:{line_no}: expected sentence, confidence and relation columns, "
                f"got {len(columns)} column(s)"
            )
        sentence, confidence, relation, *args = columns
        arg1, *rest = args or [""]
        predictions.setdefault(sentence, []).append((arg1, relation, rest, float(confidence)))
    return predictions


def _openie5_text(part: str) -> str:
    """The text of one OpenIE-5 part such as ``SimpleArgument(the band,List([0, 8)))``."""
    return part[part.index("(") + 1 : part.index(",List(")]


def read_openie5(path: str | Path) -> dict[str, list[CarbTuple]]:
    """OpenIE-5 output as CaRB bundles it (its ``--openiefive`` format), keyed by sentence.

    Each line is ``confidence<TAB>context<TAB>arg1<TAB>relation<TAB>args<TAB>sentence`` where
    the parts read ``SimpleArgument(text,List([start, end)))``, ``Relation(…)``,
    ``Context(…)`` and args are joined by ``; ``. As CaRB reads it: a line with an empty
    arg1, relation or args column is skipped, and a context the tuple does not already start
    with is prefixed to arg1.
    """
    predictions: dict[str, list[CarbTuple]] = {}
    for line_no, columns in _tab_rows(path):
        if len(columns) != 6:
            raise ValueError(
                f"{path}:{line_no}: expected 6 tab-separated columns (confidence, context, "
                f"arg1, relation, args, sentence), got {len(columns)}"
            )
        if not all(columns[2:5]):
            continue
        arg1, relation = _openie5_text(columns[2]), _openie5_text(columns[3])
        args = [_openie5_text(part) for part in columns[4].strip().split(");")]
        if columns[1]:
            context = _openie5_text(columns[1])
            if not f"{arg1} {relation}".startswith(context):
                arg1 = f"{context} {arg1}"
        predictions.setdefault(columns[5], []).append((arg1, relation, args, float(columns[0])))
    return predictions


# --------------------------------------------------------------------------------------------
# The official scorer
# --------------------------------------------------------------------------------------------


def _argument_list(arg1: str, args: str | Sequence[str] | None) -> list[str]:
    """``[arg1, arg2, …]`` as CaRB reads a tab-separated row: trailing empty arguments are
    gone (the row was stripped), an empty one between two others keeps its place."""
    rest = [] if args is None else [args] if isinstance(args, str) else list(args)
    arguments = [arg1, *rest]
    while arguments and not arguments[-1].strip():
        arguments.pop()
    return arguments


def _sentence_key(sentence: str) -> str:
    """CaRB matches sentences with spaces and punctuation removed and PTB brackets unescaped."""
    text = sentence.replace(" ", "")
    for bracket, escape in _PTB_ESCAPES:
        text = text.replace(escape, bracket)
    return _PUNCTUATION_RE.sub("", text)


def _shared_words(gold_words: list[str], pred_words: list[str]) -> int:
    """Gold words also in the prediction, each predicted word used once; removes them from
    ``pred_words``."""
    shared = 0
    for word in gold_words:
        if word in pred_words:
            shared += 1
            pred_words.remove(word)
    return shared


def lenient_tuple_match(
    gold_relation: str, gold_args: Sequence[str], relation: str, args: Sequence[str]
) -> tuple[float, float]:
    """CaRB's ``linient_tuple_match``: ``(precision, recall)`` of a predicted tuple against a
    gold tuple, or ``(0, 0)`` when they do not match.

    Words are whitespace tokens, case-sensitive. The pair matches when the relations share a
    word (a predicted ``be`` also matches any form of *be* in the gold relation) and the
    prediction has an argument in every gold slot among the first two; no shared argument
    word is needed. Matched words are summed over the relation and the gold's argument slots:
    precision divides by the predicted words in those parts, recall by the gold words.
    """
    gold_words, pred_words = gold_relation.split(), relation.split()
    n_pred, n_gold = len(pred_words), len(gold_words)
    shared = _shared_words(gold_words, pred_words)
    if "be" in pred_words and any(form in gold_words for form in _FORMS_OF_BE):
        shared += 1
    if shared == 0:
        return 0.0, 0.0
    matched_pred = matched_gold = shared
    for i, gold_arg in enumerate(gold_args):
        gold_words = gold_arg.split()
        n_gold += len(gold_words)
        if len(args) <= i:
            if i < 2:
                return 0.0, 0.0
            continue
        pred_words = args[i].split()
        n_pred += len(pred_words)
        shared = _shared_words(gold_words, pred_words)
        matched_pred += shared
        matched_gold += shared
    return (
        matched_pred / n_pred if n_pred else 0.0,
        matched_gold / n_gold if n_gold else 0.0,
    )


def _binary(args: Sequence[str]) -> list[str]:
    """``[arg1, every later argument joined]``: CaRB's binary view of a tuple."""
    return [args[0], " ".join(args[1:])] if len(args) >= 2 else list(args)


def binary_lenient_tuple_match(
    gold_relation: str, gold_args: Sequence[str], relation: str, args: Sequence[str]
) -> tuple[float, float]:
    """CaRB's default match, ``binary_linient_tuple_match``: :func:`lenient_tuple_match` on
    the binary view of both tuples; when the gold relation contains a *said*-type verb the
    prediction with its two arguments swapped is tried too and the better (by precision,
    then recall) is kept."""
    gold_binary = _binary(gold_args)
    straight = lenient_tuple_match(gold_relation, gold_binary, relation, _binary(args))
    if not any(verb in gold_relation for verb in _SAID_RELATIONS):
        return straight
    swapped = [" ".join(args[1:]), args[0]] if len(args) >= 2 else list(args)
    return max(straight, lenient_tuple_match(gold_relation, gold_binary, relation, swapped))


def _greedy_precision_sum(scores: list[list[tuple[float, float]]], kept: list[int]) -> float:
    """Sum of pair precisions of a one-to-one gold/prediction assignment taken greedily by
    highest precision (first pair on ties), over the ``kept`` predictions."""
    free_rows, free_cols = list(range(len(scores))), list(kept)
    total = 0.0
    for _ in range(min(len(free_rows), len(free_cols))):
        best, best_row, best_col = -1.0, free_rows[0], free_cols[0]
        for i in free_rows:
            for j in free_cols:
                if scores[i][j][0] > best:
                    best, best_row, best_col = scores[i][j][0], i, j
        free_rows.remove(best_row)
        free_cols.remove(best_col)
        total += best
    return total


def carb_score(
    predicted: Mapping[str, Sequence[CarbTuple]],
    gold: Mapping[str, Sequence[tuple[str, str, str | Sequence[str]]]],
    *,
    match: CarbMatch = "carb",
) -> dict[str, Any]:
    """CaRB scores of OpenIE predictions, as the official scorer computes them.

    ``predicted`` maps a sentence to ``(arg1, relation, args, confidence)`` tuples (``args``
    a string or a list of strings; a confidence of None counts as 1.0) and ``gold`` maps a
    sentence to ``(arg1, relation, args)`` tuples, as :func:`enoki_hd.eval.datasets.load_carb`
    returns them.

    ``match="carb"`` (default) is the official scorer (dair-iitd/CaRB ``carb.py`` with its
    default ``binary_linient_tuple_match``), reproduced to the third decimal on
    ``data/carb/scorer_check``:

    - sentences are matched with spaces and punctuation removed; gold arguments containing
      ``C: `` (context) are dropped;
    - a pair scores :func:`binary_lenient_tuple_match` (whitespace tokens, case-sensitive);
    - at each confidence threshold t (every distinct predicted confidence), over the
      predictions with confidence >= t: recall is each gold tuple's best recall over its
      sentence's predictions, summed and divided by the gold tuples; precision is the sum of
      pair precisions of a greedy one-to-one assignment by highest precision, divided by the
      predictions kept;
    - ``precision``, ``recall``, ``f1`` and ``threshold`` are those of the best-F1 threshold
      (the lowest on ties); ``auc`` is the trapezoidal area under precision over recall,
      the curve closed at (recall 0, precision 1).

    ``match="strict"`` is the project's earlier, stricter reading:
    :func:`enoki_hd.eval.metrics.strict_carb_score` (lower-cased ``\\w+`` tokens, a shared token
    needed in arg1 and in the arguments too, ``C:`` arguments kept, exact sentence keys).

    Also returned: ``curve`` (``(threshold, precision, recall)`` points, highest threshold
    first), ``n_gold``, ``n_pred`` (predictions scored) and ``n_pred_ignored`` (predictions
    for sentences absent from gold).
    """
    if match == "strict":
        from enoki_hd.eval.metrics import strict_carb_score

        return strict_carb_score(predicted, gold)
    if match != "carb":
        raise ValueError(f"match must be 'carb' or 'strict', got {match!r}")

    # later sentences win when two normalise to the same key, as in CaRB's dict
    gold_by_key = {
        _sentence_key(sentence): [
            (relation.strip(), [a.strip() for a in _argument_list(arg1, args) if "C: " not in a])
            for arg1, relation, args in tuples
        ]
        for sentence, tuples in gold.items()
    }
    pred_by_key = {
        _sentence_key(sentence): [
            (
                relation.strip(),
                [a.strip() for a in _argument_list(arg1, args)],
                1.0 if confidence is None else float(confidence),
            )
            for arg1, relation, args, confidence in tuples
        ]
        for sentence, tuples in predicted.items()
    }
    n_gold = sum(len(tuples) for tuples in gold_by_key.values())
    if n_gold == 0:
        raise ValueError("gold has no tuples; CaRB recall is undefined")
    thresholds = sorted({conf for tuples in pred_by_key.values() for *_, conf in tuples})
    index_of = {conf: k for k, conf in enumerate(thresholds)}

    # sums per threshold (ascending): precision, kept predictions, recall
    precision_sum = [0.0] * len(thresholds)
    n_kept = [0] * len(thresholds)
    recall_sum = [0.0] * len(thresholds)
    for key, gold_tuples in gold_by_key.items():
        pred_tuples = pred_by_key.get(key, [])
        scores = [
            [binary_lenient_tuple_match(g_rel, g_args, rel, args) for rel, args, _ in pred_tuples]
            for g_rel, g_args in gold_tuples
        ]
        start = 0
        # a sentence's sums hold for every threshold from just above its previous confidence
        # up to and including this one
        for conf in sorted({conf for *_, conf in pred_tuples}):
            kept = [j for j, (*_, c) in enumerate(pred_tuples) if c >= conf]
            recall = sum(max(row[j][1] for j in kept) for row in scores)
            precision = _greedy_precision_sum(scores, kept)
            stop = index_of[conf] + 1
            for k in range(start, stop):
                precision_sum[k] += precision
                n_kept[k] += len(kept)
                recall_sum[k] += recall
            start = stop

    precisions = [p / n if n else 1.0 for p, n in zip(precision_sum, n_kept, strict=True)]
    recalls = [r / n_gold for r in recall_sum]
    best_f1, best = 0.0, None
    for k, (p, r) in enumerate(zip(precisions, recalls, strict=True)):
        # CaRB's F1 is NaN where precision and recall are both 0, and NaN is never the best
        if p + r > 0 and (best is None or 2 * p * r / (p + r) > best_f1):
            best_f1, best = 2 * p * r / (p + r), k
    # the area from the lowest threshold's point to the highest's, then to (0, 1)
    curve_r, curve_p = [*recalls, 0.0], [*precisions, 1.0]
    auc = (
        sum(
            (curve_r[k] - curve_r[k + 1]) * (curve_p[k] + curve_p[k + 1]) / 2
            for k in range(len(curve_r) - 1)
        )
        if thresholds
        else 0.0
    )
    n_scored = sum(len(pred_by_key.get(key, [])) for key in gold_by_key)
    return {
        "precision": precisions[best] if best is not None else 0.0,
        "recall": recalls[best] if best is not None else 0.0,
        "f1": best_f1,
        "auc": auc,
        "threshold": thresholds[best] if best is not None else None,
        "curve": [
            (t, p, r)
            for t, p, r in reversed(list(zip(thresholds, precisions, recalls, strict=True)))
        ],
        "n_gold": n_gold,
        "n_pred": n_scored,
        "n_pred_ignored": sum(len(t) for t in pred_by_key.values()) - n_scored,
    }
