"""Evaluation: benchmark loaders (:mod:`.datasets`), metrics (:mod:`.metrics`), reference
methods (:mod:`.baselines`) and the runner behind ``make eval`` / ``enoki eval``
(:mod:`.runner`). Submodules are imported on use, so importing this package loads nothing."""
