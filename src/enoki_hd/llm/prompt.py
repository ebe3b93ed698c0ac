"""Prompt templates, kept as package data files (``enoki_hd/llm/prompts/*.txt``).

A template file has a ``### system`` section and a ``### user`` section; ``{name}``
placeholders in them are filled by :meth:`Prompt.messages` (plain replacement, so the JSON
braces of the examples need no escaping). Built-in templates: ``extract_incremental``,
``extract_flat`` (fact extraction), ``judge`` (the LLM judge) and ``select`` (claim selection,
:class:`enoki_hd.select.LLMSelector`). A path to a file of the same
layout can be given instead of a name.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

BUILTIN_PROMPTS = ("extract_incremental", "extract_flat", "judge", "select")
_SECTION_RE = re.compile(r"^### (system|user)[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class Prompt:
    """A system and a user message template; ``name`` is the built-in name or the file path."""

    name: str
    system: str
    user: str

    @property
    def sha256(self) -> str:
        """Digest of the template text (recorded with outputs: a changed prompt is a new run)."""
        return hashlib.sha256(f"{self.system}\x00{self.user}".encode()).hexdigest()

    def messages(self, **fields: str) -> list[dict[str, str]]:
        """The chat messages with every ``{name}`` placeholder filled from ``fields``."""
        system, user = self.system, self.user
        for key, value in fields.items():
            system = system.replace("{" + key + "}", value)
            user = user.replace("{" + key + "}", value)
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def load_prompt(name: str | Path) -> Prompt:
    """A built-in template by name (:data:`BUILTIN_PROMPTS`) or a template file by path.

    Raises:
        ValueError: an unknown name, or a file without both sections.
    """
    if str(name) in BUILTIN_PROMPTS:
        text = resources.files("enoki_hd.llm").joinpath(f"prompts/{name}.txt").read_text("utf-8")
    elif Path(name).is_file():
        text = Path(name).read_text(encoding="utf-8")
    else:
        raise ValueError(
            f"unknown prompt {str(name)!r}: give one of {', '.join(BUILTIN_PROMPTS)} or the path "
            "of a template file with '### system' and '### user' sections"
        )
    parts = _SECTION_RE.split(text)
    sections = dict(zip(parts[1::2], (p.strip() for p in parts[2::2]), strict=True))
    if set(sections) != {"system", "user"}:
        raise ValueError(
            f"prompt {str(name)!r} needs a '### system' and a '### user' section, found "
            f"{sorted(sections) or 'none'}"
        )
    return Prompt(str(name), sections["system"], sections["user"])


def load_checked_prompt(
    name: str | Path, *, sha256: str | None = None, placeholders: tuple[str, ...] = ()
) -> Prompt:
    """:func:`load_prompt`, checking that its user section has every ``{placeholder}`` and,
    when ``sha256`` is given (as a saved config records it), that the template is that one."""
    prompt = load_prompt(name)
    if sha256 is not None and sha256 != prompt.sha256:
        raise ValueError(
            f"prompt_sha256: the config was written for another version of the prompt "
            f"{str(name)!r} (sha256 {sha256}, now {prompt.sha256}); drop prompt_sha256 to accept "
            "the current one"
        )
    missing = [p for p in placeholders if "{" + p + "}" not in prompt.user]
    if missing:
        needed = ", ".join("{" + p + "}" for p in missing)
        raise ValueError(f"prompt {str(name)!r}: the user section needs {needed}")
    return prompt
