"""The iterative-grid-labeling (IGL) tagger after OpenIE6.

- :mod:`.labels` — the label set, the implicit-relation sentinels, :class:`~.labels.GridExample`
  (one sentence with one label row per extraction), OIE4 files and teacher JSONL.
- :mod:`.align` — PTB detokenisation with offsets, string triples → word rows, the loaders of
  the OpenIE training sets with their alignment coverage.
- :mod:`.data` — grid examples → model inputs (sub-tokens, word windows, padded batches).

Importing this package loads neither torch nor transformers.
"""
