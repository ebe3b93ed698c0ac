"""Fact extraction backends behind one :class:`Extractor` protocol, looked up by name.

>>> extractor = get_extractor("rules")
>>> facts = extractor.extract("Suede was formed in Bath in 1989.")

Built-in backends: ``rules`` (spaCy dependency rules, :mod:`.rules`), ``encoder`` (the
distilled IGL tagger, :mod:`.encoder`), ``llm`` (a chat model over an OpenAI-compatible
endpoint, :mod:`.llm`) and ``preextracted`` (triples the caller supplies, anchored to the
answer, :mod:`.preextracted`). A backend module
registers itself with :func:`register`; built-in modules are imported on first use, so
importing this package loads no model.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from enoki_hd.extract.base import Extractor
from enoki_hd.extract.verbalize import verbalize

logger = logging.getLogger(__name__)

__all__ = ["Extractor", "available_extractors", "get_extractor", "register", "verbalize"]

_REGISTRY: dict[str, Callable[..., Extractor]] = {}
# Modules that register the built-in backends when imported.
_BUILTIN_MODULES = {
    "rules": "enoki_hd.extract.rules",
    "preextracted": "enoki_hd.extract.preextracted",
    "encoder": "enoki_hd.extract.encoder",
    "llm": "enoki_hd.extract.llm",
}

FactoryT = TypeVar("FactoryT", bound=Callable[..., Extractor])


def _qualified_name(factory: Callable[..., Any]) -> str:
    return f"{getattr(factory, '__module__', '')}.{getattr(factory, '__qualname__', factory)}"


def register(name: str) -> Callable[[FactoryT], FactoryT]:
    """Class decorator: make ``get_extractor(name, **kwargs)`` build ``cls(**kwargs)``.

    Raises ``ValueError`` when ``name`` is already taken by a different factory.
    """

    def decorator(factory: FactoryT) -> FactoryT:
        known = _REGISTRY.get(name)
        # the same class registered again (a module reloaded) is not a clash
        if known is not None and _qualified_name(known) != _qualified_name(factory):
            raise ValueError(f"an extractor named {name!r} is already registered: {known!r}")
        _REGISTRY[name] = factory
        return factory

    return decorator


def available_extractors() -> list[str]:
    """Names :func:`get_extractor` accepts, sorted."""
    return sorted(set(_REGISTRY) | set(_BUILTIN_MODULES))


def get_extractor(name: str, **kwargs: Any) -> Extractor:
    """Build the extractor registered as ``name`` with ``kwargs``.

    Raises ``ValueError`` listing the known names when ``name`` is unknown.
    """
    if name not in _REGISTRY and name in _BUILTIN_MODULES:
        importlib.import_module(_BUILTIN_MODULES[name])
    if name not in _REGISTRY:
        raise ValueError(
            f"unknown extractor {name!r}; known extractors: {', '.join(available_extractors())}"
        )
    return _REGISTRY[name](**kwargs)
