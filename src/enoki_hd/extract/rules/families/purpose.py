"""Purpose clauses: an infinitive that says what the event was for is part of the claim.

``The foundation was established in 1990 to promote literacy`` states what the foundation was
established for; the parser hangs ``promote`` from ``established`` as an ``advcl`` (after
``in order``, as an ``acl`` of ``order``), so it heads no clause of its own and its content
reached no fact. Its facts now refine the main fact: the subject is the main clause's, the
relation reads the main verb group, the main object's widest phrase when there is exactly one,
and the infinitive's own relation (``built wall to protect from``); the infinitive's object is
an incremental chain, and its prepositions refine that chain as the main verb's do.

Not a purpose: an infinitive after ``too`` / ``enough`` (``too late to stop the leak`` states
that the leak was *not* stopped) or with its own subject.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enoki_hd.extract.rules.clauses import Clause, relation_of
from enoki_hd.extract.rules.families import Example, clausal
from enoki_hd.extract.rules.families.coordination import alternatives
from enoki_hd.extract.rules.families.prepositional import emit_prep_chains, verb_preps
from enoki_hd.extract.rules.phrases import phrase_steps
from enoki_hd.extract.rules.syntax import (
    in_order_purpose,
    is_infinitive,
    is_unasserted,
    objects_of,
)

if TYPE_CHECKING:
    from spacy.tokens import Token

    from enoki_hd.extract.rules.candidates import FactBuilder

FAMILY = "purpose"

EXAMPLES = (
    Example(
        "The city built a wall to protect the harbour from floods.",
        (
            ("city", "built", "wall"),
            ("city", "built wall to protect", "harbour"),
            ("city", "built wall to protect harbour from", "floods"),
        ),
    ),
    Example(
        "The foundation was established in 1990 to promote literacy in rural areas.",
        (
            ("foundation", "was established in", "1990"),
            ("foundation", "was established to promote", "literacy"),
            ("foundation", "was established to promote", "literacy in rural areas"),
        ),
    ),
    Example(
        "She moved to Paris in order to study art.",
        (("She", "moved to", "Paris"), ("She", "moved to study", "art")),
    ),
)

# Words that make the infinitive a measure, not a purpose ("too late to stop", "big enough to
# hold"): the event it names did not (or need not) happen.
_DEGREE_WORDS = frozenset({"too", "enough"})


def _states_degree(head: Token, purpose: Token) -> bool:
    low, high = sorted((head.i, purpose.i))
    return any(t.lower_ in _DEGREE_WORDS for t in head.doc[low:high])


def purposes(clause: Clause) -> list[Token]:
    """The purpose infinitives of the clause's verbs, in text order."""
    found = []
    for head in clause.heads:
        for child in head.children:
            verb = child if child.dep_ == "advcl" and is_infinitive(child) else None
            if verb is None and child.dep_ == "prep":
                verb = in_order_purpose(child)
            if verb is not None and not _states_degree(head, verb) and not is_unasserted(verb):
                found.append(verb)
    return sorted(found, key=lambda t: t.i)


def emit(
    builder: FactBuilder,
    clause: Clause,
    subject: frozenset[int],
    before: tuple[frozenset[int], ...],
    verb: Token,
    *,
    parent: int | None,
    family: str | None = None,
) -> None:
    """The facts of purpose infinitive ``verb`` of ``clause``: (subject, ``before`` + its
    relation, each object chain), its prepositions refining the object chain (or, with no
    object, rooted at ``parent``), or the bare relation when it has neither."""
    relation, heads = relation_of(verb)
    own = Clause(
        predicate=verb, subject=clause.subject, relation=relation, heads=heads, kind="finite"
    )
    objects = objects_of(heads)
    preps = verb_preps(own, objects)
    moved = frozenset(p.i for p in preps)
    order = (*before, relation)
    tokens = frozenset().union(*order)
    limit = builder.max_phrase_tokens
    for obj in objects:
        for head, head_family in alternatives(obj):
            steps = phrase_steps(head, max_tokens=limit, exclude=moved)
            last = builder.chain(
                family or head_family or FAMILY,
                subject,
                tokens,
                steps,
                parent=parent,
                relation_order=order,
            )
            if last is None:
                continue
            for prep in preps:
                emit_prep_chains(
                    builder,
                    subject,
                    (*order, steps[-1].tokens),
                    prep,
                    family=family or FAMILY,
                    parent=last,
                    exclude=moved,
                )
    if objects:
        return
    for prep in preps:
        emit_prep_chains(
            builder, subject, order, prep, family=family or FAMILY, parent=parent, exclude=moved
        )
    complements = clausal.complements(own)
    for complement in complements:
        clausal.emit(builder, subject, tokens, complement, family=family)
    if not preps and not complements:
        builder.add(
            family or FAMILY, subject, tokens, frozenset(), parent=parent, relation_order=order
        )
