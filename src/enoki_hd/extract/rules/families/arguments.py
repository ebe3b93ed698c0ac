"""The argument structure shared by the verb–object, copula and participial families.

For each subject (conjuncts distributed) the clause gives: one chain per (coordinated) object,
coarse to fine; then, per verb-level preposition, a chain whose relation takes the widest
object in and whose first fact refines the object chain's last; with no object, one root chain
per preposition — or, given the preposition that is the predicate (``has been under
protection since 1987``), one chain for it whose last fact the others refine; with neither, an
intransitive fact with an empty object; the end of a ``from … to`` range refines the start's
chain. Clausal complements add their own fact (:mod:`.clausal`); a temporal or causal clause
(:func:`.clausal.adverbials`), a time said without a preposition (:mod:`.temporal`: "two
years later", "last year") and a purpose infinitive (:mod:`.purpose`) add theirs, refining
the one object chain when there is exactly one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enoki_hd.extract.rules.families import clausal, purpose, temporal
from enoki_hd.extract.rules.families.coordination import alternatives
from enoki_hd.extract.rules.families.prepositional import (
    emit_prep_chains,
    is_comparison,
    prep_words,
    range_start,
    verb_preps,
)
from enoki_hd.extract.rules.phrases import phrase_steps, widest

if TYPE_CHECKING:
    from spacy.tokens import Token

    from enoki_hd.extract.rules.candidates import FactBuilder
    from enoki_hd.extract.rules.clauses import Clause


def measures(clause: Clause) -> list[Token]:
    """``8%`` of ``sales grew 8%``, ``6 to 12`` of ``children aged 6 to 12``: a number the
    parser hangs from the verb as an adverbial noun phrase, after it, its object in all but
    name (before it, ``two years before it moved``, it measures a time, not the event)."""
    verb = clause.predicate
    return [
        c
        for c in verb.children
        if c.dep_ == "npadvmod"
        and c.i > verb.i
        and (c.like_num or any(g.dep_ == "nummod" for g in c.children))
    ]


def _refining(
    relation: frozenset[int], anchor: Token, ends: list[tuple[int, frozenset[int]]]
) -> tuple[int, tuple[frozenset[int], ...]] | None:
    """``(parent, relation groups)`` for a chain that refines the one chain preposition
    ``anchor`` produced (``ends``, from :func:`emit_prep_chains`), or None when it produced
    none or several (coordinated objects: no single fact to refine)."""
    if len(ends) != 1:
        return None
    parent, tokens = ends[0]
    return parent, (relation, (prep_words(anchor) | tokens) - relation)


def _range_end(
    prep: Token, relation: frozenset[int], chains: dict[int, list[tuple[int, frozenset[int]]]]
) -> tuple[int, tuple[frozenset[int], ...]] | None:
    """``(parent, relation groups)`` when ``prep`` ends a range whose start already produced
    its chain (``from March 16`` → ``from March 16 to March 20, 2012``), else None."""
    start = range_start(prep)
    if start is None or start.i not in chains:
        return None
    return _refining(relation, start, chains[start.i])


def emit_predicate(
    builder: FactBuilder,
    clause: Clause,
    *,
    objects: list[Token],
    object_family: str,
    prep_family: str,
    preps: list[Token] | None = None,
    intransitive: bool = True,
    predicate_prep: Token | None = None,
) -> None:
    """Propose the facts of ``clause`` with the given object heads.

    ``preps`` overrides the verb-level prepositions (default :func:`verb_preps`);
    ``intransitive`` allows the empty-object fact when there is nothing else to say;
    ``predicate_prep`` (one of ``preps``, used when there is no object) is the preposition that
    completes the predicate: the other prepositions refine its fact instead of the bare verb
    (``has been since 1987`` says nothing).
    """
    if preps is None:
        preps = verb_preps(clause, objects)
    moved = frozenset(p.i for p in preps)
    limit = builder.max_phrase_tokens
    complements = clausal.complements(clause)
    purposes = purpose.purposes(clause)
    adverbials = clausal.adverbials(clause)
    times = temporal.adverbials(clause)
    bare_there = clause.subject.dep_ == "expl"  # "there seems": nothing is claimed yet
    bare = not (objects or preps or complements or purposes or adverbials or times)
    for subject_head, subject_family in alternatives(clause.subject):
        subject = widest(subject_head, max_tokens=limit)
        if not subject:
            continue
        anchors: list[tuple[int | None, tuple[frozenset[int], ...]]] = []
        for obj in objects:
            for head, head_family in alternatives(obj):
                steps = phrase_steps(head, max_tokens=limit, exclude=moved)
                family = subject_family or head_family or object_family
                last = builder.chain(family, subject, clause.relation, steps)
                if last is None:
                    continue
                relation = (clause.relation, steps[-1].tokens)
                anchors.append((last, relation))
                chains: dict[int, list[tuple[int, frozenset[int]]]] = {}
                for prep in preps:
                    refined = _range_end(prep, frozenset().union(*relation), chains)
                    refines, before = refined or (last, relation)
                    chains[prep.i] = emit_prep_chains(
                        builder,
                        subject,
                        before,
                        prep,
                        family=subject_family or prep_family,
                        parent=refines,
                        exclude=moved,
                    )
        if not objects:
            ends = []
            if predicate_prep is not None:
                ends = emit_prep_chains(
                    builder,
                    subject,
                    (clause.relation,),
                    predicate_prep,
                    family=subject_family or prep_family,
                    exclude=moved,
                )
            previous: tuple[Token, list[tuple[int, frozenset[int]]]] | None = None
            chains = {} if predicate_prep is None else {predicate_prep.i: ends}
            for prep in preps:
                if predicate_prep is not None and prep.i == predicate_prep.i:
                    continue
                refined = _range_end(prep, clause.relation, chains)
                if refined is None and predicate_prep is not None:
                    refined = _refining(clause.relation, predicate_prep, ends)
                if refined is None and is_comparison(prep) and previous is not None:
                    # "came in at $2.1bn, compared with $1.8bn": the comparison refines the
                    # value it compares, not the bare verb ("came in compared with $1.8bn")
                    refined = _refining(clause.relation, *previous)
                parent, before = refined or (None, (clause.relation,))
                added = emit_prep_chains(
                    builder,
                    subject,
                    before,
                    prep,
                    family=subject_family or prep_family,
                    parent=parent,
                    exclude=moved,
                )
                chains[prep.i] = added
                if parent is None:
                    previous = (prep, added)
        if bare and intransitive and not bare_there:
            builder.add(subject_family or object_family, subject, clause.relation, frozenset())
        # a purpose refines the one object chain (built wall → built wall to protect harbour)
        anchor, before = anchors[0] if len(anchors) == 1 else (None, (clause.relation,))
        for verb in purposes:
            purpose.emit(
                builder, clause, subject, before, verb, parent=anchor, family=subject_family
            )
        for tokens in times:
            temporal.emit(builder, subject, before, tokens, parent=anchor, family=subject_family)
        for mark, verb in adverbials:
            clausal.emit_adverbial(
                builder, subject, before, mark, verb, parent=anchor, family=subject_family
            )
        for complement in complements:
            clausal.emit(builder, subject, clause.relation, complement, family=subject_family)
