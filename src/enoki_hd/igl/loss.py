"""Losses of the iterative grid labelling tagger: extraction depths against gold rows.

OpenIE6 trains depth ``d`` against gold row ``d``. A teacher's rows come in the teacher's order,
which the model cannot know, so the default here matches depths to gold rows first: each depth
is scored against each row (mean cross-entropy over the row's words), the cheapest one-to-one
matching is found with the Hungarian algorithm (``scipy.optimize.linear_sum_assignment``), and
depths left without a row are trained towards all-NONE, as DETR pads its targets with "no
object". :func:`position_loss` is the positional variant, kept as a switch.

Shapes: ``logits`` (batch, depth, words, num_labels); ``labels`` (batch, rows, words) long with
``IGNORE`` on padding (padding rows are all ``IGNORE``); ``word_mask`` (batch, words) bool.
"""

from __future__ import annotations

import numpy as np
import torch

from enoki_hd.igl.labels import IGNORE, NONE

__all__ = ["hungarian_loss", "match_depths", "match_rows", "position_loss"]


def match_rows(cost: np.ndarray) -> list[tuple[int, int]]:
    """The minimum-total-cost one-to-one matching of the rows of ``cost`` to its columns.

    ``cost`` is (rows, columns) and may be rectangular: ``min(rows, columns)`` pairs
    ``(row, column)`` come back, sorted by row. Training matches depths to gold rows with it;
    validation matches predicted extractions to gold ones the same way.
    """
    try:
        from scipy.optimize import linear_sum_assignment  # type: ignore[import-untyped]
    except ImportError as err:
        raise ImportError(
            "matching extraction rows needs scipy: pip install 'enoki-hd[train]' (or scipy>=1.11)"
        ) from err
    matrix = np.asarray(cost, dtype=np.float64)
    if matrix.ndim != 2:
        raise ValueError(f"match_rows needs a 2-D cost matrix, got shape {matrix.shape}")
    if matrix.size == 0:
        return []
    rows, columns = linear_sum_assignment(matrix)
    return [(int(row), int(column)) for row, column in zip(rows, columns, strict=True)]


def match_depths(
    logits: torch.Tensor, labels: torch.Tensor, word_mask: torch.Tensor
) -> list[list[tuple[int, int]]]:
    """Per example, the ``(depth, gold row)`` pairs :func:`hungarian_loss` trains, sorted by
    depth; the depths left out are trained towards all-NONE. Gold rows index ``labels``' rows
    (padding rows are never matched)."""
    return _match(*_depth_row_costs(logits, labels, word_mask))


def hungarian_loss(
    logits: torch.Tensor, labels: torch.Tensor, word_mask: torch.Tensor
) -> torch.Tensor:
    """Mean cross-entropy of each depth against its matched gold row (or all-NONE).

    Per example the cost matrix has one column per gold row plus, when there are fewer rows
    than depths, one all-NONE column per missing row, so every gold row is claimed by some depth
    and the depths left over are pushed to predict nothing. The loss is the mean over depths,
    then over examples; gradients flow through the matched costs only.
    """
    row_ce, none_ce, real = _depth_row_costs(logits, labels, word_mask)
    # matched[b, d]: the gold row depth d is trained against, -1 for all-NONE
    matched = torch.full(none_ce.shape, -1, dtype=torch.long)
    for example, pairs in enumerate(_match(row_ce, none_ce, real)):
        for d, row in pairs:
            matched[example, d] = row
    return _select(row_ce, none_ce, matched.to(row_ce.device))


def position_loss(
    logits: torch.Tensor, labels: torch.Tensor, word_mask: torch.Tensor
) -> torch.Tensor:
    """OpenIE6's positional loss: depth ``d`` against gold row ``d``, all-NONE where there is
    no row ``d``; gold rows beyond the last depth are not trained. Mean over depths, then
    examples."""
    row_ce, none_ce, real = _depth_row_costs(logits, labels, word_mask)
    batch, depth, rows = row_ce.shape
    paired = min(depth, rows)
    matched = torch.full((batch, depth), -1, dtype=torch.long, device=row_ce.device)
    positions = torch.arange(paired, device=row_ce.device).expand(batch, paired)
    matched[:, :paired] = torch.where(real[:, :paired], positions, -1)
    return _select(row_ce, none_ce, matched)


def _depth_row_costs(
    logits: torch.Tensor, labels: torch.Tensor, word_mask: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``row_ce`` (batch, depth, rows): mean cross-entropy of each depth against each gold row
    over the row's valid words; ``none_ce`` (batch, depth): against all-NONE over ``word_mask``;
    ``real`` (batch, rows) bool: the row has a label somewhere (is not padding)."""
    if logits.dim() != 4 or labels.dim() != 3 or word_mask.dim() != 2:
        raise ValueError(
            "expected logits (batch, depth, words, labels), labels (batch, rows, words) and "
            f"word_mask (batch, words); got {tuple(logits.shape)}, {tuple(labels.shape)}, "
            f"{tuple(word_mask.shape)}"
        )
    batch, _, words, _ = logits.shape
    if labels.shape[0] != batch or labels.shape[2] != words or word_mask.shape != (batch, words):
        raise ValueError(
            f"labels {tuple(labels.shape)} and word_mask {tuple(word_mask.shape)} do not match "
            f"logits {tuple(logits.shape)} in batch or word count"
        )
    log_probs = logits.float().log_softmax(dim=-1)  # (batch, depth, words, num_labels)
    mask = word_mask.bool()
    valid = (labels != IGNORE) & mask.unsqueeze(1)  # (batch, rows, words)
    targets = labels.masked_fill(~valid, NONE)
    depth = log_probs.shape[1]
    # index[b, d, w, g] = gold label of row g at word w: gather picks its log-probability
    index = targets.transpose(1, 2).unsqueeze(1).expand(batch, depth, words, labels.shape[1])
    row_nll = -log_probs.gather(-1, index).transpose(2, 3)  # (batch, depth, rows, words)
    weights = valid.unsqueeze(1).to(row_nll.dtype)  # (batch, 1, rows, words)
    row_ce = (row_nll * weights).sum(-1) / weights.sum(-1).clamp(min=1.0)
    none_weights = mask.unsqueeze(1).to(row_nll.dtype)  # (batch, 1, words)
    none_ce = (-log_probs[..., NONE] * none_weights).sum(-1) / none_weights.sum(-1).clamp(min=1.0)
    return row_ce, none_ce, valid.any(dim=-1)


def _match(
    row_ce: torch.Tensor, none_ce: torch.Tensor, real: torch.Tensor
) -> list[list[tuple[int, int]]]:
    """Per example, Hungarian matching of depths to the real gold rows plus one all-NONE column
    per row missing to fill the depths; pairs with an all-NONE column are left out."""
    depth = row_ce.shape[1]
    row_cost = row_ce.detach().cpu().numpy()
    none_cost = none_ce.detach().cpu().numpy()
    real_rows = real.cpu().numpy()
    matches = []
    for example in range(row_cost.shape[0]):
        rows = np.flatnonzero(real_rows[example])
        padding = max(0, depth - len(rows))
        cost = np.concatenate(
            [row_cost[example][:, rows], np.repeat(none_cost[example][:, None], padding, axis=1)],
            axis=1,
        )
        matches.append([(d, int(rows[c])) for d, c in match_rows(cost) if c < len(rows)])
    return matches


def _select(row_ce: torch.Tensor, none_ce: torch.Tensor, matched: torch.Tensor) -> torch.Tensor:
    """Mean over (example, depth) of the cost of each depth's target: ``row_ce[b, d,
    matched[b, d]]``, or ``none_ce[b, d]`` where ``matched`` is -1."""
    if row_ce.shape[2] == 0:
        return none_ce.mean()
    picked = row_ce.gather(2, matched.clamp(min=0).unsqueeze(-1)).squeeze(-1)  # (batch, depth)
    return torch.where(matched >= 0, picked, none_ce).mean()
