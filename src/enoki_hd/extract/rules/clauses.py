"""Clause splitting: every verb that heads a clause, with the subject it has or inherits.

- a clause's own ``nsubj`` / ``nsubjpass`` is its subject; a relative pronoun (``which``,
  ``who``, ``that``) stands for the noun the relative clause modifies; an existential
  ``there`` is the subject of its clause (``There are 365 days in a year`` → (There, are,
  365 days in year)), an expletive ``it`` heads no clause;
- a conjoined verb without a subject inherits it (``He served ... and became ...``), and so
  does a participial adverbial clause (``Formed in 1992, Suede ...``) and a prepositional
  gerund (``before splitting up``);
- a reduced relative (participial ``acl``: ``a band formed in Bath``) takes the entity its
  noun describes (:func:`~enoki_hd.extract.rules.syntax.entity_of`);
- ``xcomp`` verbs without a subject fold into the governing verb's relation (``began to
  record``; a copula too: ``appears to be a restaurant``), and so does a gerund after a
  preposition that completes the verb (``focuses on building cars``, ``was accused of
  stealing money``: the gerund alone, (company, building, cars), was a claim the answer does
  not make); they are not clauses of their own;
- a clause whose subject is the speaker (``I cannot provide an answer``, ``I think``) is
  about the answering model, not the world: it heads no clause (a complement still does);
- a clause the answer does not assert heads no clause
  (:func:`~enoki_hd.extract.rules.syntax.is_unasserted`): a condition (``if the dam
  fails``), the complement of a negated verb (``doesn't prove the heart is healthy``; the
  negated verb's own fact carries it whole), a gerund after ``without``, the alternative after
  ``instead of`` / ``rather than``;
- an absolute participle right after a ``with`` phrase (``weighs 1.85 kg with poles and pegs
  included``) describes that phrase's noun, not the sentence's subject; the parser attaches it
  to the main verb (``conj`` / ``advcl``), so it heads no clause of its own — the ``with``
  phrase stays a refinement of the main fact instead of giving (tent, included).

Coordinated subjects are distributed later, by the families (one fact per conjunct).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from enoki_hd.extract.rules.syntax import (
    OBJECT_DEPS,
    RELATION_DEPS,
    SUBJECT_DEPS,
    entity_of,
    is_content,
    is_denied_predicate,
    is_noun_like,
    is_unasserted,
    resolve_argument,
)

if TYPE_CHECKING:
    from spacy.tokens import Token

ClauseKind = Literal["finite", "participial"]

_PREDICATE_DEPS = frozenset(
    {"ROOT", "conj", "ccomp", "advcl", "relcl", "acl", "pcomp", "parataxis"}
)
_PARTICIPLE_TAGS = frozenset({"VBN", "VBG"})
_VERB_POS = frozenset({"VERB", "AUX"})
_ABSOLUTE_PREPS = frozenset({"with", "without"})
# The answer's speaker: "I'm sorry, I cannot provide an answer" states nothing about the world
# the context could support.
_SPEAKER = frozenset({"i", "me"})
_MAX_INHERIT = 8
# Adverbs that complete their verb as a particle does ("go away without treatment" is not "go
# without treatment"; "moved north"), when they follow it directly.
_PARTICLE_ADVERBS = frozenset(
    {"away", "back", "out", "off", "up", "down", "over", "apart", "ahead", "forward", "aside"}
    | {"north", "south", "east", "west", "abroad", "overseas", "inland", "together"}
)
# When the claim holds among others: "first appeared in 1990" is not "appeared in 1990" (a
# context where it appeared in 1985 and again in 1990 supports the second only), "was
# originally based in Boston", "still lives in Paris" — not before the subject ("Still, the
# team won": a discourse word).
_TIME_ADVERBS = frozenset({"first", "originally", "initially", "formerly", "previously", "still"})
# Adverbs that limit or hedge the claim itself: "caused solely by" is not "caused by" (a
# context that names several causes supports the second only), "usually resolves" is not
# "resolves".
_LIMITING_ADVERBS = frozenset(
    {"only", "solely", "exclusively", "entirely", "wholly", "partly", "partially", "mainly"}
    | {"mostly", "largely", "primarily", "chiefly", "always", "rarely", "seldom", "sometimes"}
    | {"often", "usually", "possibly", "probably", "reportedly", "allegedly", "almost"}
    # the hedges the dropped-hedge check reads (verify/conflicts.py): left out, "was likely
    # caused by" read "was caused by", and a context's "may have been caused by" flagged it
    | {"likely", "unlikely", "perhaps", "apparently", "seemingly", "presumably", "supposedly"}
    | {"typically", "generally", "commonly"}
    # how well the verb holds: "was not well received" is not "was not received"
    | {"well", "poorly", "badly"}
    # when the claim holds among others: "first appeared in 1990" is not "appeared in 1990" (a
    # context where it appeared in 1985 and again in 1990 supports the second only), "was
    # originally based in Boston", "still lives in Paris"
    | _TIME_ADVERBS
)
# Prepositions through which a gerund completes its verb (``focuses on building``, ``known
# for inventing``, ``grew by cutting costs``); after the others (``before splitting up``,
# ``despite losing``) the gerund heads a clause of its own.
_GERUND_PREPS = frozenset({"on", "for", "in", "of", "about", "at", "to", "into", "by"})


@dataclass(frozen=True)
class Clause:
    """A clause: its verb, its subject head and the token indices of its relation.

    ``heads`` are the verbs whose dependents hold the clause's arguments: the predicate and
    the ``xcomp`` verbs folded into its relation.
    """

    predicate: Token
    subject: Token
    relation: frozenset[int]
    heads: tuple[Token, ...]
    kind: ClauseKind


def _named(subject: Token) -> Token:
    """The name a common noun directly before it describes: "The director Steven Spielberg
    was born in Ohio" is said of Spielberg (the parser makes the name the noun's appositive),
    "The Roman emperor Augustus was born there" of Augustus (the parser makes both subjects)
    — not of "director", "Roman emperor". Else ``subject``."""
    if subject.pos_ != "NOUN" or subject.lemma_.lower() in _WORD_NOUNS or _coordinated(subject):
        return subject
    after = subject.i + 1
    names = [c for c in subject.children if c.dep_ == "appos"]
    names += [c for c in subject.head.children if c.dep_ in SUBJECT_DEPS and c.i > subject.i]
    return next(
        (
            name
            for name in names
            if name.pos_ == "PROPN"
            and name.left_edge.i == after
            and not name.left_edge.text[:1].islower()
        ),
        subject,
    )


# Nouns that name a word, not a thing: "The name Golden Horde is said to have been inspired
# by …" is said of the name.
_WORD_NOUNS = frozenset(
    {"name", "title", "term", "word", "phrase", "nickname", "surname", "expression", "acronym"}
)


def _coordinated(token: Token) -> bool:
    """Whether the noun ``token`` is one of coordinated phrases, or its modifiers hold a
    coordination ("Kano State and US drugs firm Pfizer", parsed as one noun "firm"): the name
    after it is not the whole subject. (Names coordinated after the noun, "The publishing
    companies Bloomsbury and Scholastic", are each a subject.)"""
    return token.dep_ == "conj" or any(
        d.dep_ in ("cc", "conj") for left in token.lefts for d in left.subtree
    )


def _own_subject(verb: Token) -> Token | None:
    own = next((c for c in verb.children if c.dep_ in SUBJECT_DEPS), None)
    if own is not None:
        return _named(own)
    # an interrupter between auxiliary and verb ("They were, by their own account, towed
    # back") can make the parser hang the subject on the auxiliary
    return next(
        (
            c
            for aux in verb.children
            if aux.dep_ in ("aux", "auxpass") and aux.i < verb.i
            for c in aux.children
            if c.dep_ in SUBJECT_DEPS
        ),
        None,
    )


_CLAUSAL_SUBJECTS = ("csubj", "csubjpass")


def subject_of(verb: Token, depth: int = 0, *, relative_entity: bool = True) -> Token | None:
    """The subject head of ``verb``'s clause, own or inherited, or None (no subject). A
    relative pronoun stands for the entity its antecedent describes; with ``relative_entity``
    false, for the antecedent itself (what the tagger's rows are read against: their subject
    pieces are kept inside the antecedent's phrase, not the wider phrase of its entity)."""
    own = _own_subject(verb)
    if own is not None:
        resolved = resolve_argument(own)
        if (
            relative_entity
            and resolved is not None
            and resolved is not own
            and verb.dep_ == "relcl"
        ):
            # a relative pronoun: the entity its antecedent describes, as for a participle
            # ("He was the one who introduced …", "Suede, a band that formed in Bath")
            return entity_of(resolved)
        return resolved
    there = next((c for c in verb.children if c.dep_ == "expl" and c.lower_ == "there"), None)
    if there is not None:
        return there  # "There are 365 days in a year": the claim is the existence
    if depth >= _MAX_INHERIT or any(c.dep_ in ("expl", *_CLAUSAL_SUBJECTS) for c in verb.children):
        # a clause for its subject ("…, and quitting reduces the risk") is its own subject:
        # not the subject of the verb it is coordinated with ("Smoking reduces the risk")
        return None
    head = verb.head
    if verb.dep_ in ("conj", "xcomp") and head.pos_ in _VERB_POS and head is not verb:
        return subject_of(head, depth + 1, relative_entity=relative_entity)
    if verb.dep_ == "advcl" and verb.tag_ in _PARTICIPLE_TAGS and head.pos_ in _VERB_POS:
        return subject_of(head, depth + 1, relative_entity=relative_entity)
    if verb.dep_ == "acl" and is_noun_like(head):
        return entity_of(head)
    if verb.dep_ == "pcomp" and head.head.pos_ in _VERB_POS and head.head is not head:
        return subject_of(head.head, depth + 1, relative_entity=relative_entity)
    return None


def _in_relation(child: Token) -> bool:
    """Auxiliaries, negation, particles (and a particle the parser reads as an adverb right
    after its verb: ``go away``, ``moved north``), an adverb that limits or hedges the claim
    (``caused solely by``, ``usually resolves``) and a nominal indirect object (``gave
    him``)."""
    if child.dep_ in RELATION_DEPS:
        return is_content(child)
    if child.dep_ == "advmod":
        if child.lower_ == "well" and child.i > 0 and child.doc[child.i - 1].lower_ == "as":
            return False  # "as well": too, not how well
        if child.lower_ in _TIME_ADVERBS:
            return not any(
                s.dep_ in ("nsubj", "nsubjpass", "expl") and s.i > child.i
                for s in child.head.children
            ) and not (child.i + 1 < len(child.doc) and child.doc[child.i + 1].text == ",")
        if child.lower_ in _LIMITING_ADVERBS:
            return True
        return child.lower_ in _PARTICLE_ADVERBS and child.i == child.head.i + 1
    return child.dep_ == "dative" and is_noun_like(child)


def _no_longer(child: Token) -> bool:
    """``longer`` with its ``no`` (``is no longer maintained``): the parser hangs the ``no``
    on the adverb, so the relation would read ``is maintained`` without it."""
    return (
        child.dep_ == "advmod"
        and child.lower_ == "longer"
        and any(g.dep_ == "neg" and g.lower_ == "no" for g in child.children)
    )


def _with_negation(token: Token) -> set[int]:
    """``token`` and the negation the parser hangs on it."""
    return {token.i} | {g.i for g in token.children if g.dep_ == "neg"}


def _relation_dependents(verb: Token) -> set[int]:
    tokens = {verb.i} | {c.i for c in verb.children if _in_relation(c)}
    for child in verb.children:
        if _no_longer(child):
            tokens |= _with_negation(child)
        elif child.dep_ in ("aux", "auxpass") and child.i in tokens:
            # the parser can hang the "not" on the auxiliary ("a novel that was not well
            # received"): left out, the fact claimed the opposite
            tokens |= _with_negation(child)
    return tokens | shared_auxiliaries(verb)


# What a verb coordinated with another shares of that verb's auxiliaries, by the word that
# joins them: "did not write or produce the album" denies both; "can cause fever and lead to
# death" hedges both, but "was not born in Leeds and moved to York" denies only the first,
# and "did not write but produced" the first alone. A past participle joined by "and" to a
# passive also takes its auxiliaries (not its negation): "was arrested and hanged" says "was
# hanged", where "hanged" alone read as the spy hanging someone.
_SHARES_ALL = frozenset({"or", "nor"})
_SHARES_MODALS = frozenset({"and"})


def shared_auxiliaries(verb: Token, depth: int = 0) -> set[int]:
    """The auxiliaries and negation a coordinated verb without a subject, auxiliary or
    negation of its own takes from the verb it is coordinated with (``conj``), by the
    coordinating word (:data:`_SHARES_ALL`: every auxiliary but the infinitive's ``to``, and
    the negation; :data:`_SHARES_MODALS`: the modal only, or every auxiliary for a past
    participle coordinated with a passive); empty otherwise."""
    head = verb.head
    if verb.dep_ != "conj" or head is verb or head.pos_ not in _VERB_POS or depth >= _MAX_INHERIT:
        return set()
    own = ("aux", "auxpass", "neg", *SUBJECT_DEPS)
    if any(c.dep_ in own or _no_longer(c) for c in verb.children):
        return set()
    joiners = sorted(
        (c for t in (head, verb) for c in t.children if c.dep_ == "cc" and c.i > head.i),
        key=lambda c: c.i,
    )
    if not joiners:
        return set()
    word = joiners[0].lower_
    if word not in _SHARES_ALL and word not in _SHARES_MODALS:
        return set()
    passive = verb.tag_ == "VBN" and any(c.dep_ == "auxpass" for c in head.children)
    shared: set[int] = set()
    for child in head.children:
        if child.i > head.i or child.dep_ not in ("aux", "auxpass", "neg"):
            continue
        if child.tag_ == "TO":
            continue
        if word in _SHARES_ALL or child.tag_ == "MD" or (passive and child.dep_ != "neg"):
            shared.add(child.i)
    if word in _SHARES_ALL:
        for child in head.children:
            if _no_longer(child):
                shared |= _with_negation(child)
    return shared | shared_auxiliaries(head, depth + 1)


def folded_gerund(prep: Token) -> Token | None:
    """The gerund that completes its verb through ``prep`` (``focuses on building cars``,
    ``was accused of stealing money``), or None: a ``pcomp`` without a subject of its own,
    after a preposition of :data:`_GERUND_PREPS`, on a verb without an object."""
    verb = prep.head
    if prep.dep_ != "prep" or prep.lower_ not in _GERUND_PREPS or verb.pos_ not in _VERB_POS:
        return None
    if any(c.dep_ in OBJECT_DEPS for c in verb.children):
        return None  # "spent two years on building the boat": the years are the object
    gerund = next((c for c in prep.children if c.dep_ == "pcomp" and c.tag_ == "VBG"), None)
    if gerund is None or _own_subject(gerund) is not None:
        return None
    return gerund


def _folds(xcomp: Token) -> bool:
    """A verb, or a copula (``appears to be a restaurant``, ``turned out to be wrong``: the
    parser tags this ``be`` an auxiliary, and unfolded its predicate was lost) — but not after
    an existential ``there`` (``There seems to be a misunderstanding`` claims nothing)."""
    if xcomp.pos_ == "VERB":
        return True
    return (
        xcomp.pos_ == "AUX"
        and xcomp.lemma_.lower() == "be"
        and not any(c.dep_ == "expl" for c in xcomp.head.children)
    )


def _folded(verb: Token) -> tuple[set[int], Token] | None:
    """The tokens and verb ``verb``'s relation folds in: a subject-less ``xcomp`` (``began to
    record``) or a gerund after a preposition (``focuses on building``), or None."""
    for child in verb.children:
        if child.dep_ == "xcomp" and _own_subject(child) is None and _folds(child):
            return _relation_dependents(child), child
    for child in verb.children:
        gerund = folded_gerund(child)
        if gerund is not None:
            return {child.i} | _relation_dependents(gerund), gerund
    return None


def relation_of(verb: Token) -> tuple[frozenset[int], tuple[Token, ...]]:
    """The relation tokens of ``verb`` (auxiliaries, negation, particles, folded ``xcomp``
    verbs and gerunds after a preposition) and the verbs whose dependents hold the
    arguments."""
    relation = _relation_dependents(verb)
    heads = [verb]
    current = verb
    for _ in range(_MAX_INHERIT):
        folded = _folded(current)
        if folded is None:
            break
        tokens, current = folded
        relation |= tokens
        heads.append(current)
    return frozenset(relation), tuple(heads)


def is_absolute_participle(verb: Token) -> bool:
    """``included`` in ``weighs 1.85 kg with poles and pegs included``: a participle without
    subject or auxiliary, attached to a verb as ``conj`` / ``advcl``, that directly follows
    the object of a ``with`` / ``without`` of that verb."""
    if verb.tag_ not in _PARTICIPLE_TAGS or verb.dep_ not in ("conj", "advcl"):
        return False
    if any(c.dep_ in SUBJECT_DEPS or c.dep_ in ("aux", "auxpass") for c in verb.children):
        return False
    return any(
        prep.dep_ == "prep"
        and prep.lower_ in _ABSOLUTE_PREPS
        and prep.i < verb.i
        and any(c.dep_ == "pobj" and c.right_edge.i == verb.i - 1 for c in prep.children)
        for prep in verb.head.children
    )


def _is_speaker(token: Token) -> bool:
    """``I`` / ``me`` as the pronoun, not the numeral of a name (``King Gustav I``)."""
    if token.lower_ not in _SPEAKER or any(c.dep_ == "compound" for c in token.children):
        return False
    return token.i == 0 or token.doc[token.i - 1].pos_ != "PROPN"


def find_clause(verb: Token) -> Clause | None:
    """The clause ``verb`` heads, or None when it heads none or has no subject."""
    if verb.pos_ not in _VERB_POS or verb.dep_ not in _PREDICATE_DEPS:
        return None
    if is_absolute_participle(verb) or is_unasserted(verb):
        return None
    folded = folded_gerund(verb.head) if verb.dep_ == "pcomp" else None
    if folded is not None and folded.i == verb.i:
        return None  # folded into its governing verb's relation
    if verb.dep_ == "conj" and verb.head.pos_ not in _VERB_POS:
        return None
    if verb.dep_ == "acl" and verb.tag_ not in _PARTICIPLE_TAGS:
        return None
    if verb.dep_ in ("acl", "relcl") and is_denied_predicate(verb.head):
        return None  # "Suede is not a band formed in Bath" says no band was formed there
    participial = verb.dep_ == "acl" or (
        verb.dep_ == "advcl" and verb.tag_ in _PARTICIPLE_TAGS and _own_subject(verb) is None
    )
    subject = subject_of(verb)
    if subject is None or _is_speaker(subject):
        return None
    if subject.dep_ == "expl" and subject.lower_ != "there":
        return None
    relation, heads = relation_of(verb)
    return Clause(
        predicate=verb,
        subject=subject,
        relation=relation,
        heads=heads,
        kind="participial" if participial else "finite",
    )
