"""Tolerant parsing of model answers and the prompt templates."""

from __future__ import annotations

import pytest

from enoki_hd.llm import BUILTIN_PROMPTS, load_prompt, parse_judgement, parse_triples


def test_json_lines_fences_tuples_and_prose_are_read_and_counted() -> None:
    answer = (
        "<think>The sentence has {two} facts.</think>\n"
        "Here are the triples:\n"
        "```json\n"
        '{"subject": "Suede", "relation": "was formed", "object": "in London"}\n'
        '("Suede", "was formed in", "1989")\n'
        "- ['Brett', 'founded', 'Suede'],\n"
        '{"subject": "Suede", "relation": broken\n'
        '{"subject": "", "relation": "is", "object": "x"}\n'
        "```\n"
        "I hope this helps."
    )
    parsed = parse_triples(answer)
    assert parsed.triples == [
        {"subject": "Suede", "relation": "was formed", "object": "in London"},
        {"subject": "Suede", "relation": "was formed in", "object": "1989"},
        {"subject": "Brett", "relation": "founded", "object": "Suede"},
    ]
    assert parsed.malformed == [
        '{"subject": "Suede", "relation": broken',
        '{"subject": "", "relation": "is", "object": "x"}',
    ]
    assert parsed.prose == 2


def test_a_json_array_and_an_unclosed_think_block() -> None:
    array = '[{"Subject": "A", "Relation": "is", "Object": 3}, ["B", "has"]]'
    assert parse_triples(array).triples == [
        {"subject": "A", "relation": "is", "object": "3"},
        {"subject": "B", "relation": "has", "object": ""},
    ]
    unclosed = parse_triples('<think>still thinking {"subject": "A", "relation": "r"')
    assert (unclosed.triples, unclosed.malformed, unclosed.prose) == ([], [], 0)


def test_pretty_printed_objects_and_a_triples_wrapper_are_read() -> None:
    """They were counted as malformed (and prose) lines."""
    pretty = '{\n  "subject": "Suede",\n  "relation": "was formed in",\n  "object": "London"\n}'
    two = pretty + ",\n" + pretty.replace("London", "1989")
    wrapped = '```json\n{"triples": [{"subject": "Suede", "relation": "was formed in",\n'
    wrapped += ' "object": "London"}, ["Suede", "sold", "records"]]}\n```'
    suede = {"subject": "Suede", "relation": "was formed in", "object": "London"}
    for text, triples in [
        (pretty, [suede]),
        (two, [suede, {**suede, "object": "1989"}]),
        (wrapped, [suede, {"subject": "Suede", "relation": "sold", "object": "records"}]),
        ('{"triples": []}', []),  # the model says: no facts
    ]:
        parsed = parse_triples(text)
        assert (parsed.triples, parsed.malformed, parsed.prose) == (triples, [], 0), text
    # prose around them: read line by line as before, nothing taken from the prose
    mixed = parse_triples("Here they are:\n" + pretty)
    assert mixed.triples == [] and mixed.prose == 4 and len(mixed.malformed) == 2
    # JSON lines keep the line-by-line reading (a bad line is kept as written)
    jsonl = parse_triples('{"subject": "A", "relation": "r"}\n{"subject": "B"}')
    assert jsonl.triples == [{"subject": "A", "relation": "r", "object": ""}]
    assert jsonl.malformed == ['{"subject": "B"}']


def test_judgements_tolerate_fences_synonyms_and_prose() -> None:
    fenced = '```json\n{"label": "Entailment", "evidence": "formed in 1989"}\n```'
    judgement = parse_judgement(fenced)
    assert judgement is not None and (judgement.label, judgement.quote) == (
        "supported",
        "formed in 1989",
    )
    neutral = parse_judgement('Sure. {"label": "not enough info", "evidence": ""} Done.')
    assert neutral is not None and neutral.label == "unverifiable"
    prose = parse_judgement("The claim is contradicted by the passage.")
    assert prose is not None and (prose.label, prose.quote) == ("contradicted", "")
    assert parse_judgement("I cannot tell whether it is supported or contradicted.") is None
    assert parse_judgement("") is None


def test_a_negated_label_in_prose_is_not_that_label() -> None:
    """ "not supported" read as "supported": the label named in the words, negation ignored."""
    for text in (
        "The claim is not supported by the evidence.",
        "NOT_SUPPORTED",
        "This isn't directly supported by the passage.",
        "The claim is unsupported.",
        "It is not contradicted, but unverifiable.",
    ):
        judgement = parse_judgement(text)
        assert judgement is not None and judgement.label == "unverifiable", text
    assert parse_judgement("The passage never contradicted it.") is None
    supported = parse_judgement("Supported: the passage says so, it is not contradicted.")
    assert supported is not None and supported.label == "supported"


def test_prompts_are_package_data_with_both_sections(tmp_path) -> None:
    for name in BUILTIN_PROMPTS:
        prompt = load_prompt(name)
        assert prompt.system and prompt.user
    messages = load_prompt("extract_flat").messages(sentence="Paris is big.")
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[1]["content"].endswith("Sentence: Paris is big.")
    custom = tmp_path / "mine.txt"
    custom.write_text("### system\nBe brief.\n### user\nFacts of: {sentence}\n")
    assert load_prompt(custom).messages(sentence="X")[1]["content"] == "Facts of: X"
    custom.write_text("no sections")
    with pytest.raises(ValueError, match="'### system' and a '### user' section"):
        load_prompt(custom)
    with pytest.raises(ValueError, match="unknown prompt 'nope'"):
        load_prompt("nope")
