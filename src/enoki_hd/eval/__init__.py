"""Evaluation: benchmark loaders (:mod:`.datasets`, one module per benchmark family), metrics
(:mod:`.metrics`), reference methods (:mod:`.baselines`) and the runner behind ``make eval`` /
``enoki eval`` (:mod:`.runner`, with the evaluated methods in :mod:`.methods`, the prediction
cache in :mod:`.cache`, ``report.md`` / ``thresholds.png`` in :mod:`.rendering` and atomic file
writes in :mod:`.files`). Submodules are imported on use, so importing this package loads
nothing."""
