"""Prepositional objects: ``formed in Bath`` → (Suede, formed in, Bath).

Each prepositional phrase attached to the verb gives facts whose relation is the verb plus the
preposition. When the verb also has a direct object, the relation takes the object in as well
and the fact refines the widest object fact (``played a significant role in the Britpop
movement`` → parent (Suede, played, significant role), child (Suede, played significant role
in, Britpop movement)).

Prepositions the parser attaches to a noun are moved to the verb when they describe the event
rather than the noun: after a light-verb noun (``played a role in``), after an adjective
complement (``famous for``), a date or time (``won the prize in 1993``), and a place after a
person's or organisation's name (``founded by Noel Gallagher in Manchester``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enoki_hd.extract.rules.families import Example
from enoki_hd.extract.rules.families.coordination import alternatives
from enoki_hd.extract.rules.families.including import is_including_prep
from enoki_hd.extract.rules.phrases import phrase_steps
from enoki_hd.extract.rules.syntax import (
    conjuncts,
    follows_alternative,
    in_order_purpose,
    is_content,
    resolve_argument,
)

if TYPE_CHECKING:
    from spacy.tokens import Token

    from enoki_hd.extract.rules.candidates import FactBuilder
    from enoki_hd.extract.rules.clauses import Clause

FAMILY = "prepositional"

EXAMPLES = (
    Example(
        "Suede played a significant role in the Britpop movement.",
        (
            ("Suede", "played", "role"),
            ("Suede", "played significant role in", "movement"),
            ("Suede", "played significant role in", "Britpop movement"),
        ),
    ),
    Example(
        "The band was founded by Noel Gallagher in Manchester.",
        (
            ("band", "was founded by", "Noel Gallagher"),
            ("band", "was founded in", "Manchester"),
        ),
    ),
    Example(
        "Their debut album won the Mercury Music Prize in 1993.",
        (
            ("Their debut album", "won", "Mercury Music Prize"),
            ("Their debut album", "won Mercury Music Prize in", "1993"),
        ),
    ),
    Example("He lived in the city.", (("He", "lived in", "city"),)),
    Example("Imports rose by 6% last year.", (("Imports", "rose by", "6%"),)),
)

LIGHT_VERBS = frozenset(
    {"play", "take", "make", "have", "give", "pay", "gain", "exert", "hold", "draw", "lend", "bear", "cast", "put"}
)  # fmt: skip
LIGHT_NOUNS = frozenset(
    {
        "role", "part", "contribution", "effect", "impact", "influence", "place", "care",
        "advantage", "use", "debut", "appearance", "tribute", "attention", "rise", "birth",
        "step", "decision", "effort", "control", "charge", "interest", "note", "emphasis",
        "account", "responsibility", "credit", "light", "doubt", "pressure", "stake",
    }
)  # fmt: skip
_TEMPORAL_PREPS = frozenset(
    {"in", "on", "at", "during", "since", "until", "till", "after", "before", "from", "throughout"}
)
_TIME_ENTITIES = frozenset({"DATE", "TIME"})
_NAME_ENTITIES = frozenset({"PERSON", "ORG", "NORP"})
_PLACE_ENTITIES = frozenset({"GPE", "LOC", "FAC"})
_VERB_PREP_DEPS = frozenset({"prep", "agent"})


def second_word(prep: Token) -> Token | None:
    """The second word of a two-word preposition the parser splits (``of`` of ``because of``,
    ``to`` of ``due to`` and of ``down to`` when ``down`` has no object), or None."""
    bare = not any(c.dep_ == "pobj" for c in prep.children)
    return next(
        (
            c
            for c in prep.children
            if c.i == prep.i + 1
            and c.tag_ in ("IN", "TO")
            and (c.dep_ == "pcomp" or (c.dep_ == "prep" and bare))
        ),
        None,
    )


def _adverb_of(prep: Token) -> Token | None:
    """``back`` of ``traced back to``: the adverb right before a preposition it governs."""
    head = prep.head
    if head.dep_ == "advmod" and head.i == prep.i - 1 and head.pos_ == "ADV":
        return head
    return None


_COMPARISONS = frozenset({"compared", "versus", "vs", "vs."})


def is_comparison(prep: Token) -> bool:
    """``compared with`` / ``versus``: a preposition that sets a value against another."""
    return prep.lower_ in _COMPARISONS


_RANGE_STARTS = frozenset({"from", "between"})
_RANGE_ENDS = frozenset({"to", "until", "till", "through"})


def range_start(prep: Token) -> Token | None:
    """The ``from`` of the range ``prep`` ends (``from March 16 to March 20``: the parser
    hangs ``to`` from ``from``, or from the verb right after the ``from`` phrase), or None."""
    head = prep.head
    if prep.dep_ != "prep" or prep.lower_ not in _RANGE_ENDS or head.i == prep.i:
        return None
    if head.dep_ == "prep" and head.lower_ in _RANGE_STARTS:
        return head
    return next(
        (
            c
            for c in head.children
            if c.dep_ == "prep" and c.lower_ in _RANGE_STARTS and c.right_edge.i == prep.i - 1
        ),
        None,
    )


def prep_words(prep: Token) -> frozenset[int]:
    """The preposition's words in a relation: ``because of``, not ``because``; ``back to``,
    not ``to``; ``three days after``, not ``after`` (what measures it is part of the claim)."""
    words = {prep.i}
    second = second_word(prep)
    if second is not None:
        words.add(second.i)
    adverb = _adverb_of(prep)
    if adverb is not None:
        words.add(adverb.i)
    for measure in prep.children:
        if measure.dep_ == "npadvmod" and measure.i < prep.i:
            words.update(t.i for t in measure.subtree if is_content(t))
    return frozenset(words)


def prep_object(prep: Token) -> Token | None:
    """The head of the preposition's object (a relative pronoun resolved), or None; the
    object of ``due to`` hangs from ``to``."""
    pobj = next((c for c in prep.children if c.dep_ == "pobj"), None)
    second = second_word(prep)
    if pobj is None and second is not None:
        pobj = next((c for c in second.children if c.dep_ == "pobj"), None)
    return None if pobj is None else resolve_argument(pobj)


def _describes_event(noun: Token, prep: Token, *, light: bool) -> bool:
    if prep.dep_ != "prep" or is_including_prep(prep):
        return False
    if light or noun.pos_ == "ADJ":
        return True
    pobj = prep_object(prep)
    if pobj is None:
        return False
    if prep.lower_ in _TEMPORAL_PREPS and pobj.ent_type_ in _TIME_ENTITIES:
        return True
    return (
        prep.lower_ in ("in", "at")
        and noun.pos_ == "PROPN"
        and noun.ent_type_ in _NAME_ENTITIES
        and pobj.ent_type_ in _PLACE_ENTITIES
    )


def verb_preps(clause: Clause, objects: list[Token]) -> list[Token]:
    """Prepositions that relate the clause's event to something, in text order.

    Those attached to the verbs in ``clause.heads``, plus those the parser attached to an
    object or to such a preposition's object but that describe the event (see the module
    docstring). Prepositions without an object (``before splitting``) are left out.
    """
    preps = [c for h in clause.heads for c in h.children if c.dep_ in _VERB_PREP_DEPS]
    preps += [c for h in clause.heads for c in h.children if c.dep_ == "dative" and c.pos_ == "ADP"]
    # "traced back to the 16th century": the parser hangs "to" from the adverb "back"
    preps += [
        c
        for h in clause.heads
        for adverb in h.children
        if adverb.dep_ == "advmod"
        for c in adverb.children
        if c.dep_ == "prep" and _adverb_of(c) is not None
    ]
    verb = clause.heads[-1]
    for obj in objects:
        for noun in conjuncts(obj):
            light = verb.lemma_.lower() in LIGHT_VERBS and noun.lemma_.lower() in LIGHT_NOUNS
            preps += [c for c in noun.children if _describes_event(noun, c, light=light)]
    for prep in list(preps):
        pobj = prep_object(prep)
        if pobj is not None:
            preps += [c for c in pobj.children if _describes_event(pobj, c, light=False)]
    # "from March 16 to March 20": the end of a range hangs from its start
    preps += [c for p in list(preps) for c in p.children if range_start(c) is not None]
    unique = {
        p.i: p
        for p in preps
        if prep_object(p) is not None
        and not follows_alternative(p)
        and in_order_purpose(p) is None  # "in order to study": a purpose, not a place
    }
    return [unique[i] for i in sorted(unique)]


def emit_prep_chains(
    builder: FactBuilder,
    subject: frozenset[int],
    relation: tuple[frozenset[int], ...],
    prep: Token,
    *,
    family: str,
    parent: int | None = None,
    exclude: frozenset[int] = frozenset(),
) -> list[tuple[int, frozenset[int]]]:
    """One chain per (coordinated) object of ``prep``: (subject, relation + prep, object).

    ``relation`` holds the token groups read in order before the preposition (the verb
    group, then a direct object folded into the relation). Modifiers in ``exclude``
    (prepositions moved to the verb) are left out of the object. Returns, per chain added,
    the index of its last fact and that fact's object tokens.
    """
    before = frozenset().union(*relation)
    order = (*relation, prep_words(prep) - before)  # "went back to": "back" read once
    tokens = before | order[-1]
    pobj = prep_object(prep)
    if pobj is None:
        return []
    ends = []
    for obj, obj_family in alternatives(pobj):
        steps = phrase_steps(obj, max_tokens=builder.max_phrase_tokens, exclude=exclude)
        last = builder.chain(
            obj_family or family,
            subject,
            tokens,
            steps,
            parent=parent,
            relation_order=order,
        )
        if last is not None:
            ends.append((last, steps[-1].tokens))
    return ends
