"""Depth-to-row losses of the IGL tagger against brute force and hand-made cases."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("scipy")

import torch.nn.functional as F  # noqa: E402

from enoki_hd.igl.labels import ARG1, ARG2, IGNORE, NONE, REL  # noqa: E402
from enoki_hd.igl.loss import (  # noqa: E402
    hungarian_loss,
    match_depths,
    match_rows,
    position_loss,
)

NUM_LABELS = 6


def _random_case(generator: torch.Generator, batch: int, depth: int, rows: int, words: int):
    """Random logits, a word mask with a padded tail per example and gold rows with IGNORE on
    the padding, plus all-IGNORE padding rows."""
    logits = torch.randn(batch, depth, words, NUM_LABELS, generator=generator)
    lengths = torch.randint(2, words + 1, (batch,), generator=generator)
    word_mask = torch.arange(words).unsqueeze(0) < lengths.unsqueeze(1)
    labels = torch.randint(0, NUM_LABELS, (batch, rows + 1, words), generator=generator)
    labels = labels.masked_fill(~word_mask.unsqueeze(1), IGNORE)
    labels[:, rows] = IGNORE  # a padding row for every example
    if rows > 1:
        labels[1:, rows - 1] = IGNORE  # the later examples have one row fewer
    return logits, labels, word_mask


def _cross_entropy(logits_dw: torch.Tensor, target_w: torch.Tensor, mask_w: torch.Tensor):
    return F.cross_entropy(logits_dw, target_w.masked_fill(~mask_w, IGNORE), ignore_index=IGNORE)


def _brute_force(logits: torch.Tensor, labels: torch.Tensor, word_mask: torch.Tensor) -> float:
    """Min over all assignments of depths to distinct gold rows (every row claimed when there
    are enough depths; leftover depths to all-NONE) of the mean per-depth cross-entropy."""
    batch, depth, words, _ = logits.shape
    totals = []
    for b in range(batch):
        gold = [labels[b, g] for g in range(labels.shape[1]) if (labels[b, g] != IGNORE).any()]
        none = torch.full((words,), NONE)
        options = gold + [none] * max(0, depth - len(gold))
        cost = [
            [_cross_entropy(logits[b, d], option, word_mask[b]).item() for option in options]
            for d in range(depth)
        ]
        best = min(
            sum(cost[d][choice] for d, choice in enumerate(assignment)) / depth
            for assignment in itertools.permutations(range(len(options)), depth)
        )
        totals.append(best)
    return float(np.mean(totals))


def test_match_rows_finds_the_cheapest_matching_of_square_and_rectangular_costs():
    assert match_rows(np.array([[4.0, 1.0, 3.0], [2.0, 0.0, 5.0], [3.0, 2.0, 2.0]])) == [
        (0, 1),
        (1, 0),
        (2, 2),
    ]
    assert match_rows(np.array([[5.0, 0.0], [0.0, 5.0], [1.0, 1.0]])) == [(0, 1), (1, 0)]
    assert match_rows(np.zeros((3, 0))) == []
    with pytest.raises(ValueError, match="2-D"):
        match_rows(np.zeros(3))


@pytest.mark.parametrize(("depth", "rows"), [(3, 1), (3, 2), (3, 3), (4, 2), (2, 2), (2, 3)])
def test_hungarian_loss_equals_brute_force_minimum(depth, rows):
    generator = torch.Generator().manual_seed(depth * 10 + rows)
    for _ in range(3):
        logits, labels, word_mask = _random_case(generator, 3, depth, rows, 7)
        expected = _brute_force(logits, labels, word_mask)
        assert hungarian_loss(logits, labels, word_mask).item() == pytest.approx(expected, abs=1e-5)


def test_example_without_rows_trains_every_depth_towards_none():
    generator = torch.Generator().manual_seed(0)
    logits = torch.randn(1, 3, 5, NUM_LABELS, generator=generator)
    word_mask = torch.tensor([[True, True, True, True, False]])
    labels = torch.full((1, 1, 5), IGNORE)
    none = torch.full((5,), NONE)
    expected = np.mean([_cross_entropy(logits[0, d], none, word_mask[0]).item() for d in range(3)])
    assert hungarian_loss(logits, labels, word_mask).item() == pytest.approx(expected, abs=1e-6)
    assert hungarian_loss(logits, labels[:, :0], word_mask).item() == pytest.approx(expected)


def test_unmatched_depths_are_pushed_to_none():
    generator = torch.Generator().manual_seed(1)
    logits = torch.randn(1, 3, 4, NUM_LABELS, generator=generator).requires_grad_()
    word_mask = torch.ones(1, 4, dtype=torch.bool)
    row = torch.tensor([ARG1, REL, ARG2, ARG2])
    labels = row.view(1, 1, 4)
    for _ in range(30):  # plain gradient descent on the logits themselves
        (gradient,) = torch.autograd.grad(hungarian_loss(logits, labels, word_mask), logits)
        with torch.no_grad():
            logits -= 10.0 * gradient
    predictions = logits.detach().argmax(-1)[0]  # (depth, words)
    matched = [d for d in range(3) if torch.equal(predictions[d], row)]
    assert len(matched) == 1
    assert match_depths(logits, labels, word_mask) == [[(matched[0], 0)]]
    for d in set(range(3)) - set(matched):
        assert (predictions[d] == NONE).all()


def test_position_loss_pairs_depth_d_with_row_d_and_hungarian_ignores_row_order():
    word_mask = torch.ones(1, 3, dtype=torch.bool)
    first = torch.tensor([ARG1, REL, ARG2])
    second = torch.tensor([ARG2, REL, ARG1])
    # depth 0 is confident about the second row, depth 1 about the first
    logits = torch.full((1, 2, 3, NUM_LABELS), -4.0)
    for w in range(3):
        logits[0, 0, w, second[w]] = 4.0
        logits[0, 1, w, first[w]] = 4.0
    in_order = torch.stack([first, second]).unsqueeze(0)
    swapped = torch.stack([second, first]).unsqueeze(0)

    assert match_depths(logits, in_order, word_mask) == [[(0, 1), (1, 0)]]
    assert match_depths(logits, swapped, word_mask) == [[(0, 0), (1, 1)]]
    hungarian = hungarian_loss(logits, in_order, word_mask)
    assert hungarian.item() == pytest.approx(hungarian_loss(logits, swapped, word_mask).item())
    assert position_loss(logits, swapped, word_mask).item() == pytest.approx(hungarian.item())
    assert position_loss(logits, in_order, word_mask).item() > hungarian.item() + 1.0


def test_position_loss_matches_per_depth_cross_entropy():
    generator = torch.Generator().manual_seed(2)
    logits, labels, word_mask = _random_case(generator, 2, 3, 2, 6)
    expected = []
    for b in range(2):
        for d in range(3):
            row = labels[b, d] if d < labels.shape[1] else torch.full((6,), IGNORE)
            target = row if (row != IGNORE).any() else torch.full((6,), NONE)
            expected.append(_cross_entropy(logits[b, d], target, word_mask[b]).item())
    assert position_loss(logits, labels, word_mask).item() == pytest.approx(np.mean(expected))


def test_losses_reject_mismatched_shapes():
    logits = torch.zeros(2, 3, 5, NUM_LABELS)
    with pytest.raises(ValueError, match="do not match"):
        hungarian_loss(logits, torch.zeros(2, 1, 4, dtype=torch.long), torch.ones(2, 5, dtype=bool))
    with pytest.raises(ValueError, match="expected logits"):
        position_loss(
            logits[0], torch.zeros(2, 1, 5, dtype=torch.long), torch.ones(2, 5, dtype=bool)
        )
