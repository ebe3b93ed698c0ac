"""Noun phrases as incremental chains of token sets, coarse to fine.

A phrase headed by ``head`` is built in steps: the core (the head, the rest of a proper name,
a possessive pronoun and meaning-bearing determiners such as ``no``), then one modifier at a time — pre-modifiers
nearest the head first, then post-modifiers in text order — so ``influential English rock
band`` gives ``band`` → ``rock band`` → ``English rock band`` → ``influential English rock
band``. A date replaces the core by its year → month → day refinement. Some modifiers are
never split off the core, because the phrase means nothing, or something else, without them: a
measure's number (``kg`` alone, or ``long`` for ``10 miles long``), the rest of a word the
tokenizer cut at a hyphen (``off`` of ``spin-off``) and a name joined by ``&`` (``Brook &
Lyle``). Relative and participial clauses, identity appositives, conjuncts and ``including``
lists are never part of a phrase: other rule families turn them into facts of their own. An
infinitive on a noun (``plans to build a stadium``) has no subject to be a fact of its own, so
it is a modifier like any other.

Steps hold token indices into the sentence's ``Doc``; articles and whitespace tokens are left
out, punctuation is added back when the facts are shaped.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

from enoki_hd.extract.rules.families import composite, dates
from enoki_hd.extract.rules.families.including import is_including_prep
from enoki_hd.extract.rules.syntax import (
    SUBJECT_DEPS,
    is_content,
    is_dropped_article,
    is_glued,
    is_name_conjunct,
    is_quoted_conjunct,
    resolve_argument,
)
from enoki_hd.units import SQUARE_WORDS, dimension, is_unit_word

if TYPE_CHECKING:
    from spacy.tokens import Token

# Dependents that never join the phrase of their head: they are facts of their own, or glue.
_NOT_MODIFIERS = frozenset({"acl", "relcl", "advcl", "parataxis", "conj", "cc", "punct", "case"})
# Dependents cut from a modifier's subtree; coordination inside a modifier stays
# (``English and American bands``).
_PRUNED_IN_SUBTREE = frozenset({"acl", "relcl", "advcl", "parataxis"})
_CORE_DETERMINER_DEPS = frozenset({"det", "predet", "neg"})
_DEGREE_SIGNS = frozenset({"°", "º"})
# The half of the day a clock time is in: "PM" of "5:00 PM" heads its number in the parse
_MERIDIEMS = frozenset({"am", "pm", "a.m.", "p.m.", "a.m", "p.m"})


@dataclass(frozen=True)
class Step:
    """One step of a phrase chain: the cumulative token indices and the family adding it.

    ``family`` is None for steps that take the family of the fact they belong to, and
    ``date`` / ``composite`` for the refinements those families define.
    """

    tokens: frozenset[int]
    family: str | None = None


def is_infinitival_modifier(token: Token) -> bool:
    """``to divert a gas main`` of ``the need to divert a gas main`` (``plans to build``,
    ``the right to vote``, ``the first woman to win``): it says what the noun is about, and no
    clause of its own checks it (it has no subject), so it is part of the noun's phrase, as a
    refinement."""
    return (
        token.dep_ in ("acl", "relcl")
        and token.tag_ == "VB"
        and not any(c.dep_ in SUBJECT_DEPS for c in token.children)
        and any(c.dep_ == "aux" and c.lower_ == "to" for c in token.children)
    )


def _is_pruned(token: Token) -> bool:
    if is_infinitival_modifier(token):
        return False
    if token.dep_ in _PRUNED_IN_SUBTREE or is_including_prep(token):
        return True
    return token.dep_ == "appos" and not composite.is_composite(token)


def content_subtree(token: Token) -> set[int]:
    """Indices of the content tokens in ``token``'s subtree, other facts' clauses pruned."""
    found: set[int] = set()
    stack = [token]
    while stack:
        current = stack.pop()
        if current is not token and _is_pruned(current):
            continue
        if (is_content(current) or is_currency_sign(current)) and not is_dropped_article(current):
            found.add(current.i)
        stack.extend(current.children)
    return found


def is_currency_sign(token: Token) -> bool:
    """``$``, ``£``, ``€`` … before an amount: part of the value, though it holds no letter."""
    return token.tag_ == "$" and all(unicodedata.category(c) == "Sc" for c in token.text)


def is_unit_scale(token: Token) -> bool:
    """``Celsius`` as the appositive of ``degrees``: part of the unit, not an identity."""
    return (
        token.dep_ == "appos"
        and dimension(token.text) == "temperature"
        and token.head is not token
        and is_unit_word(token.head.text)
    )


def _is_measure(token: Token) -> bool:
    """A unit noun with a number: ``10 miles`` (of ``10 miles long``)."""
    return is_unit_word(token.text) and any(c.dep_ == "nummod" for c in token.children)


def _glued_word(head: Token) -> set[int]:
    """The content of the children written against ``head`` with no space (``spin`` of
    ``spin-off``), each with its own subtree (``11am to 10`` of ``11am to 10pm``: cut from
    the core, it would be lost)."""
    found: set[int] = set()
    for child in head.children:
        if is_glued(child, head) and is_content(child) and not _is_pruned(child):
            found |= content_subtree(child)
    return found


def core_tokens(head: Token) -> set[int]:
    """The head, the rest of its proper name, its possessive ``'s``, a possessive pronoun
    (``his``: a refinement of its own would add nothing checkable; ``whose`` is replaced by
    the core of the noun its relative clause modifies: ``committee ... members``), determiners that change
    the meaning (``no``, ``all``), the rest of its written word (``spin-off``), a name joined
    by ``&`` (``Brook & Lyle``), the number of a unit (``1.85 kg``, ``25 degrees Celsius``),
    a measure modifying the head (``10 miles long``, ``three years old``), the "square" of an
    area (``386 square miles``, ``12 sq km``), the currency sign of
    an amount (``$40 million``, ``£40m``) and the rest of a number range or cap (``6 to 12``,
    ``up to three``) and the number of a time of day (``5:00 PM``: "PM" alone is no time)."""
    core = {head.i} | _glued_word(head)
    unit = is_unit_word(head.text)
    for child in head.children:
        if child.dep_ == "poss" and child.tag_ == "WP$":
            antecedent = resolve_argument(child)
            if antecedent is not None and antecedent.i != child.i:
                core |= core_tokens(antecedent)  # "whose members" → "committee members"
            else:
                core.add(child.i)
        elif (child.dep_ == "case" and is_content(child)) or (
            child.dep_ == "poss" and child.pos_ == "PRON"
        ):
            core.add(child.i)
        elif child.dep_ in _CORE_DETERMINER_DEPS and is_content(child):
            if not is_dropped_article(child):
                core.add(child.i)
        elif (
            (head.pos_ == "PROPN" and child.dep_ == "compound" and child.pos_ == "PROPN")
            or (is_name_conjunct(child) and head.pos_ == "PROPN")
            or (unit and (child.dep_ == "nummod" or is_unit_scale(child)))
        ):
            core |= content_subtree(child)
        elif is_quoted_conjunct(child):  # 'Glass and Fire': one title, its "and" with it
            core |= content_subtree(child)
            core |= {c.i for c in head.children if c.dep_ == "cc" and head.i < c.i < child.i}
        elif unit and child.lower_ == "per" and child.i == head.i - 1:  # "3.6 per cent"
            core.add(child.i)
        elif unit and child.lower_.rstrip(".") in SQUARE_WORDS and child.i < head.i:
            core |= content_subtree(child)  # "386 square miles", "12 sq km": an area
        elif head.like_num and child.dep_ in ("compound", "nummod") and child.like_num:
            core |= content_subtree(child)  # "2.1" of "$2.1 billion": "billion" alone is no value
        elif is_currency_sign(child) and (head.like_num or head.tag_ == "CD" or unit):
            core.add(child.i)  # "$" of "$40 million", "£" of "£40m": the currency is the value
        elif head.lower_ in _MERIDIEMS and child.dep_ == "nummod" and child.tag_ == "CD":
            core |= content_subtree(child)  # "5:00 PM", "9 a.m.": one time of day
        elif child.dep_ == "compound" and child.text in _DEGREE_SIGNS:
            core |= {child.i} | content_subtree(child)  # "40.5 °" of "40.5 °C"
        elif child.dep_ == "npadvmod" and _is_measure(child):
            core |= content_subtree(child)
        elif child.dep_ == "quantmod" and head.like_num and _is_range_part(child):
            core.add(child.i)  # "6 to 12", "up to three": "12" or "three" alone is wrong
    return core


def _is_range_part(token: Token) -> bool:
    """A bound or connector of a number range or cap (``6`` and ``to`` of ``6 to 12``,
    ``up to`` of ``up to three``), not an approximation (``about``) that a coarser fact may
    drop."""
    if token.like_num or token.lower_ in ("to", "-", "–"):
        return True
    following = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    return token.lower_ == "up" and following is not None and following.lower_ == "to"


def _is_modifier(token: Token) -> bool:
    if token.tag_ == "WP$":
        return False  # "whose": its antecedent is in the core (see core_tokens)
    if is_infinitival_modifier(token):
        return True
    if is_name_conjunct(token) or is_quoted_conjunct(token) or is_unit_scale(token):
        return True  # already in the core when it belongs there (see core_tokens)
    if token.dep_ in _NOT_MODIFIERS or token.dep_ in _CORE_DETERMINER_DEPS:
        return False
    if is_including_prep(token):
        return False
    return token.dep_ != "appos" or composite.is_composite(token)


def _symbol_quantity(head: Token) -> set[int]:
    """The number tokens of a unit symbol that heads them (``%`` in ``6%``, ``°`` in
    ``40 °``); empty for any other head."""
    if is_content(head) or head.is_space:
        return set()
    return {c.i for c in head.children if c.dep_ == "nummod" and is_content(c)}


def phrase_steps(
    head: Token, *, max_tokens: int, exclude: frozenset[int] = frozenset()
) -> list[Step]:
    """The chain of ``head``'s phrase, coarse to fine, as cumulative token sets.

    Modifiers whose token index is in ``exclude`` are left out (prepositions another rule
    attaches to the verb). Steps stop before the phrase exceeds ``max_tokens`` tokens; a core
    already longer, or a head with no letter or digit (an emoji), gives ``[]`` — except a unit
    symbol heading its number (``6%``), whose core is both.
    """
    quantity = _symbol_quantity(head)
    if not is_content(head) and not quantity:
        return []
    steps: list[Step] = []
    cumulative: set[int] = set()
    parts = [] if quantity else dates.date_parts(head)
    if parts:
        used = {p.i for p in parts}
        extra = core_tokens(head) - {head.i}
        for k, part in enumerate(parts):
            cumulative |= {part.i} | (extra if k == 0 else set())
            steps.append(Step(frozenset(cumulative), None if k == 0 else dates.FAMILY))
    else:  # "6%": a unit symbol heads its number, and the two are one core
        cumulative = core_tokens(head) | quantity
        used = set(cumulative)
        steps.append(Step(frozenset(cumulative)))
    if len(steps[0].tokens) > max_tokens:
        return []
    modifiers = [
        c for c in head.children if c.i not in used and c.i not in exclude and _is_modifier(c)
    ]
    before = sorted((m for m in modifiers if m.i < head.i), key=lambda t: -t.i)
    after = sorted((m for m in modifiers if m.i > head.i), key=lambda t: t.i)
    for modifier in before + after:
        added = content_subtree(modifier) - cumulative
        if not added:
            continue
        if len(cumulative) + len(added) > max_tokens:
            break
        cumulative |= added
        family = composite.FAMILY if modifier.dep_ == "appos" else None
        steps.append(Step(frozenset(cumulative), family))
        for listed in _nested_lists(modifier):
            added = content_subtree(listed) - cumulative
            if added and len(cumulative) + len(added) <= max_tokens:
                cumulative |= added
                steps.append(Step(frozenset(cumulative)))
    return steps


def _nested_lists(modifier: Token) -> list[Token]:
    """``such as`` / ``including`` lists inside a modifier (``access to services, such as
    water and electricity``): pruned from the modifier's step, each is a step of its own (at
    the head, the including family makes the items facts)."""
    found: list[Token] = []
    stack = list(modifier.children)
    while stack:
        current = stack.pop()
        if is_including_prep(current):
            found.append(current)
        elif not _is_pruned(current):
            stack.extend(current.children)
    return sorted(found, key=lambda t: t.i)


def widest(head: Token, *, max_tokens: int) -> frozenset[int]:
    """The full phrase of ``head`` (the last chain step), or empty if even its core is too long."""
    steps = phrase_steps(head, max_tokens=max_tokens)
    return steps[-1].tokens if steps else frozenset()
