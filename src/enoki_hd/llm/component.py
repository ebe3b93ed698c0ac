"""The setup the LLM extractor and the LLM judge share: a chat client, a checked prompt
template, a worker count, and the config that records them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from enoki_hd.llm.client import ChatClient, client_for
from enoki_hd.llm.prompt import Prompt, load_checked_prompt


class PromptedLLM:
    """A component that fills one prompt template and sends it to a chat model.

    Subclasses set ``node`` (the config node an error tells the user to set) and
    ``placeholders`` (what the template's user section must hold).

    Args:
        model, base_url: the served model and its OpenAI-compatible endpoint.
        prompt: a built-in prompt name or the path of a template file.
        workers: requests in flight at once.
        client: a ready :class:`~enoki_hd.llm.client.ChatClient` (then ``model``, ``base_url``
            and ``client_options`` are taken from it).
        prompt_sha256: when given (as :meth:`config` records it), the prompt must match it.
        client_options: more :class:`~enoki_hd.llm.client.ChatClient` options (``timeout``,
            ``max_retries``, ``price_in``, ``max_cost``, ``temperature``, ...).
    """

    name = "llm"
    node = "llm"
    placeholders: tuple[str, ...] = ()

    def __init__(
        self,
        model: str | None = None,
        base_url: str | None = None,
        *,
        prompt: str,
        workers: int = 8,
        client: ChatClient | None = None,
        prompt_sha256: str | None = None,
        **client_options: Any,
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.client = client_for(client, model, base_url, node=self.node, **client_options)
        self.prompt_name = prompt
        self.prompt: Prompt = load_checked_prompt(
            self.template(prompt), sha256=prompt_sha256, placeholders=self.placeholders
        )
        self.workers = workers

    def template(self, prompt: str) -> str:
        """The built-in name or file that ``prompt`` stands for (itself unless overridden)."""
        return prompt

    def config(self) -> dict[str, Any]:
        """The name and every option that changes the output: the model, endpoint, sampling
        and the prompt (a file by its absolute path) with its digest."""
        prompt = self.prompt_name
        return {
            "name": self.name,
            **self.client.config(),
            "prompt": str(Path(prompt).resolve()) if Path(prompt).is_file() else prompt,
            "prompt_sha256": self.prompt.sha256,
        }
