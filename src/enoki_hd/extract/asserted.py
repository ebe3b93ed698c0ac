"""Tagger rows read against their sentence's dependency parse: what the sentence asserts.

The tagger (:mod:`enoki_hd.igl`) labels words, not grammar, so a row can state a clause its
sentence does not assert — "If red wine has been left overnight, it may stain" gives the row
"red wine | has been left | overnight", and "It is unlikely that the dish existed in 1490"
gives "dish | existed in | 1490". The rules extractor never extracts such a clause
(:func:`~enoki_hd.extract.rules.syntax.is_unasserted`); :func:`asserted_row` holds the encoder's
rows to the same reading:

- a row whose relation heads a clause its sentence does not assert — a condition (``if``,
  ``unless``, ``whether``), the ``that`` clause of a noun of opinion or of a noun that is none
  ("There is no record that …"), the complement of a verb that denies it ("did not say that …",
  "It is false that …"), a gerund after ``without``, a rejected alternative — is dropped;
- a row whose relation is an order or says what an order's doer does — a verb in its base form
  without subject or auxiliary heading the sentence, a verb or preposition it governs without
  a subject of its own ("Rinse the filter every two weeks", "toggle the switch … to enable or
  disable it", :func:`is_imperative`) — is dropped: the clause names no one who does
  anything, and the tagger's subject for it is one of its complements ("the computer |
  enable | disable it"); the sentence is judged whole, as the rules extractor, which gives
  an order no fact, leaves it;
- a row whose subject, one piece, lies in a complement of its verb while the parse gives the
  verb a subject elsewhere ("snowfall | provides information on | ∅" of "Passage 1 provides
  information on snowfall", :func:`subject_is_complement`) is dropped: the tagger read what
  the verb governs as its doer;
- a row whose relation is a relative clause of a noun that is none ("there was no British
  commander named Robertson who led the British forces") keeps that noun's whole phrase as its
  subject: the tagger's row "Robertson | led | the British forces" reads as the opposite of the
  sentence, "no British commander named Robertson | led | the British forces" as the sentence;
- a subject in pieces keeps only the pieces in its relation's subject: rows merge words of two
  clauses ("If red wine has been left overnight, it may have left stains" gave "red wine it |
  may have left | stains"), and a piece the parse puts outside the clause's subject
  (:func:`~enoki_hd.extract.rules.clauses.subject_of`) is dropped, "it | may have left |
  stains"; a piece inside the verb's complement is the row's object ("The first chairman …
  Hans Einarsson | was" reads "The first chairman … | was | Hans Einarsson"); when no piece, or
  every piece, is in the subject, the row is left as the tagger wrote it;
- an existential row whose subject holds "there" and more ("There bridges | are | three over
  the river") has "there" for its subject, the verb with its auxiliaries and negation for its
  relation, and what exists for its object: "There | are | three bridges over the river"
  (:func:`existential_kept`).

A row the tagger gave a subject and an object but no relation is dropped by decoding; when the
words between the two are a short verb group the parse makes the subject's verb ("The
alternative name for the mink frog *is* the northern mink frog", "The range *is located in* the
state of Rajasthan"), :func:`relation_filled` labels them the relation, so the claim is checked
instead of left to the sentence's fallback; when more stands between them ("The Championships
were held in Oberhof, Germany, from February 24 to February 28"), :func:`relation_parsed`
labels the verb and the preposition that govern the object ("were held from"). A row the tagger gave a subject and a relation
but no object ("Bass violins | were | ∅" of "Bass violins were smaller and had a lower
pitch …", "Pérez | won | ∅") says nothing to check; :func:`object_filled` labels the
relation's complement in the parse its object ("Bass violins | were | smaller"). A row given
a relation and an object but no subject is dropped by decoding; :func:`subject_filled` labels
the subject the parse gives the relation's verb ("It is situated along the Ohio River and
shares its western border with Illinois": "∅ | shares its western border with | Illinois" →
"It | shares …"). The tagger leaves the commas and conjunctions of a list out of its parts
("Oberhof Germany", "George T. Stagg James E. DeKuyper"); :func:`pieces_joined` gives them
back to the part ("Oberhof, Germany"), so the hypothesis reads as the answer writes it; and
an object the tagger ends on a preposition ("This arena | is | the home ground for") takes the
phrase the preposition governs (:func:`object_completed`: "… for the Austrian football club").

Rows are ``len(words)`` word labels then the sentinels' (:mod:`enoki_hd.igl.labels`); ``words``
are spans into the text the ``Doc`` was parsed from.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np
from spacy.tokens import Doc, Token

from enoki_hd.extract.rules.clauses import subject_of
from enoki_hd.extract.rules.syntax import (
    OBJECT_DEPS,
    RELATION_DEPS,
    conjuncts,
    is_none,
    is_unasserted,
)
from enoki_hd.igl.labels import ARG1, ARG2, LOC_TMP, NONE, REL, SENTINELS
from enoki_hd.types import Span

_VERB_POS = ("VERB", "AUX")
_MAX_CLIMB = 8  # conjuncts climbed to the verb that heads the sentence
# What a clause's verb says of its subject: a piece of the row's subject inside one is its object.
_COMPLEMENT_DEPS = OBJECT_DEPS
# The longest run of unlabelled words between subject and object read as a missing relation
# ("is", "was one of", "is located in"); longer gaps hold more than a verb group.
MAX_FILLED_RELATION = 3
_OBJECT_LABELS = (ARG2, LOC_TMP)
# A gap holding one of these is more than a verb group ("said Jones is", "arrived, and").
_NOT_IN_A_VERB_GROUP = frozenset({"PUNCT", "CCONJ", "SCONJ", "NOUN", "PROPN", "PRON"})


def word_of_tokens(doc: Doc, words: Sequence[Span]) -> list[int]:
    """For each token of ``doc``, the index of the word its first character is in (-1: none)."""
    # Doc.text joins every token: read once, not once per token (that was quadratic, seconds
    # on one long sentence)
    length = len(doc.text)
    owner = np.full(length + 1, -1, dtype=np.int64)
    for k, word in enumerate(words):
        owner[word.start : word.end] = k
    return [int(owner[token.idx]) if token.idx < length else -1 for token in doc]


def _words_under(token: Token, token_words: Sequence[int]) -> set[int]:
    """The words of ``token``'s phrase (its subtree's span)."""
    return {token_words[t] for t in range(token.left_edge.i, token.right_edge.i + 1)}


def relation_head(doc: Doc, token_words: Sequence[int], relation: set[int]) -> Token | None:
    """The token that heads the relation's words (``relation``: word indices): of the tokens in
    those words, the first verb whose syntactic head lies outside them (or that is the root),
    else the first such token; None when no token is in them."""
    inside = {token.i for token in doc if token_words[token.i] in relation}
    tops = [doc[i] for i in sorted(inside) if doc[i].head.i not in inside or doc[i].head.i == i]
    verbs = [token for token in tops if token.pos_ in _VERB_POS]
    chosen = verbs or tops
    return chosen[0] if chosen else None


# A verb's own subject: its clause names who does what it says.
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"})
# What makes the sentence's head verb no order: a subject, an auxiliary ("must vacuum"), a
# subordinating mark.
_NOT_AN_ORDER_DEPS = _SUBJECT_DEPS | {"aux", "auxpass", "mark"}
# A verb without a subject of its own whose doer is its head verb's: "Toggle the switch to
# *enable* it", "Preheat the grill *and* oil it", "Vacuum the filter, *checking* it for wear".
_CONTROLLED_DEPS = frozenset({"conj", "xcomp", "advcl"})


def is_imperative(token: Token) -> bool:
    """Whether ``token``, a relation's head, is a verb of an order — a verb in its base form
    without subject or auxiliary that heads the sentence ("Rinse the filter every two
    weeks") — or a verb or preposition whose doer is that order's ("toggle the switch … to
    *enable* or disable it", "Preheat a grill *to* medium heat"). Such a clause names no
    one who does anything, so the tagger's subject for it is one of its own complements: "the
    computer | enable | disable it", "a gas grill | to | medium heat". (spaCy's small model
    tags some orders' first word a proper noun, "Vacuum the pre-filter …": not read as one.)"""
    current = token
    if current.pos_ == "ADP" and current.head is not current:
        current = current.head
    for _ in range(_MAX_CLIMB):
        if current.pos_ not in _VERB_POS or any(c.dep_ in _SUBJECT_DEPS for c in current.children):
            return False
        if current.dep_ == "ROOT":
            return (
                current.tag_ == "VB"
                and current.pos_ == "VERB"
                and not any(c.dep_ in _NOT_AN_ORDER_DEPS for c in current.children)
            )
        if current.dep_ not in _CONTROLLED_DEPS or current.head is current:
            return False
        current = current.head
    return False


def asserted_row(
    row: np.ndarray, doc: Doc, words: Sequence[Span], token_words: Sequence[int]
) -> np.ndarray | None:
    """``row`` as its sentence asserts it (a copy when changed), or None when the sentence does
    not assert it (see the module docstring). ``token_words``: :func:`word_of_tokens`."""
    n = len(words)
    relation = {k for k in range(n) if row[k] == REL}
    head = relation_head(doc, token_words, relation) if relation else None
    if head is None:
        return row  # an implicit relation only ("[is]"): nothing to read
    if is_unasserted(head) or is_imperative(head):
        return None
    if subject_is_complement(row, head, words, token_words):
        return None
    if head.dep_ not in ("relcl", "acl") or not is_none(head.head):
        row = existential_kept(row, head, words, token_words)
        return subject_pieces_kept(row, head, words, token_words)
    noun = head.head
    subject = [k for k in range(n) if row[k] == ARG1]
    first_word = token_words[noun.left_edge.i]
    if not subject or first_word < 0 or first_word >= subject[0]:
        return row  # no subject, or it already holds the noun's phrase
    if not _words_under(noun, token_words).issuperset(subject):
        return row  # the row's subject is not in the noun's phrase
    between = range(first_word, subject[0])
    if any(row[k] != NONE for k in between):
        return row
    out = row.copy()
    out[first_word : subject[0]] = ARG1
    return out


def _runs(indices: Sequence[int]) -> list[list[int]]:
    """Consecutive indices grouped: [1, 2, 5] → [[1, 2], [5]]."""
    runs: list[list[int]] = []
    for k in indices:
        if runs and k == runs[-1][-1] + 1:
            runs[-1].append(k)
        else:
            runs.append([k])
    return runs


# what stays in an existential's relation beside its verb: "There has not been …"
_RELATION_DEPS = RELATION_DEPS - {"prt"}


def existential_kept(
    row: np.ndarray, head: Token, words: Sequence[Span], token_words: Sequence[int]
) -> np.ndarray:
    """``row`` read as its existential clause says it (a copy when changed): when the
    subject of ``head``'s clause is "there" and the row's subject holds it and more ("There
    bridges | are | three over the river", "There 40 passengers | were on board | the
    ferry"), "there" is the subject, ``head`` with its auxiliaries and negation the relation,
    and every other word the row gave subject or relation the object ("There | are | three
    bridges over the river"). Rows whose subject is "there" alone, or lacks it, are left."""
    subject = subject_of(head)
    if subject is None or subject.dep_ != "expl":
        return row
    there = token_words[subject.i]
    if there < 0 or row[there] != ARG1:
        return row
    if not any(row[k] == ARG1 for k in range(len(words)) if k != there):
        return row
    relation = {token_words[head.i]} | {
        token_words[child.i] for child in head.children if child.dep_ in _RELATION_DEPS
    }
    out = row.copy()
    for k in range(len(words)):
        if k == there:
            continue
        if row[k] == ARG1 or (row[k] == REL and k not in relation):
            out[k] = ARG2
        elif k in relation and row[k] == NONE and k > there:
            out[k] = REL  # "There has been": the auxiliary the tagger left out
    return out


def _complements(head: Token, token_words: Sequence[int]) -> set[int]:
    """The words of ``head``'s complements after it ("provides *information on snowfall*")."""
    return set().union(
        *(
            _words_under(child, token_words)
            for child in head.children
            if child.dep_ in _COMPLEMENT_DEPS and child.i > head.i
        )
    )


def subject_is_complement(
    row: np.ndarray, head: Token, words: Sequence[Span], token_words: Sequence[int]
) -> bool:
    """Whether the row's subject, one piece, lies wholly in a complement of ``head`` after it
    while the parse gives ``head`` a subject of its own elsewhere: the tagger read what the
    verb governs as who does it ("snowfall | provides information on | ∅" of "Passage 1
    provides information on snowfall in Indianapolis"). A subject in pieces is read by
    :func:`subject_pieces_kept`."""
    pieces = _runs([k for k in range(len(words)) if row[k] == ARG1])
    if len(pieces) != 1:
        return False
    subject = subject_of(head, relative_entity=False)
    if subject is None or subject.dep_ == "expl":
        return False
    if _words_under(subject, token_words).intersection(pieces[0]):
        return False
    return _complements(head, token_words).issuperset(pieces[0])


def subject_pieces_kept(
    row: np.ndarray, head: Token, words: Sequence[Span], token_words: Sequence[int]
) -> np.ndarray:
    """``row`` with the pieces of its subject that lie outside the subject of ``head``'s
    clause unlabelled, or made its object when they lie in ``head``'s complement (a copy when
    changed; see the module docstring)."""
    pieces = _runs([k for k in range(len(words)) if row[k] == ARG1])
    if len(pieces) < 2:
        return row
    subject = subject_of(head, relative_entity=False)
    if subject is None or subject.dep_ == "expl":
        return row  # no subject, or "there": what exists is the complement, not "there"
    inside = _words_under(subject, token_words)
    kept = [piece for piece in pieces if inside.intersection(piece)]
    if not kept or len(kept) == len(pieces):
        return row
    complements = _complements(head, token_words)
    out = row.copy()
    for piece in pieces:
        if piece not in kept:
            # "The first chairman … was Hans Einarsson": the name is what the chairman was
            out[piece] = ARG2 if complements.issuperset(piece) else NONE
    return out


def relation_filled(
    row: np.ndarray, doc: Doc, words: Sequence[Span], token_words: Sequence[int]
) -> np.ndarray:
    """``row`` with the words between its subject and its object labelled the relation when the
    tagger gave it neither a relation word nor an implicit one, those words are 1 to
    :data:`MAX_FILLED_RELATION` unlabelled words holding a verb or auxiliary and no noun,
    pronoun, conjunction or punctuation, and the parse makes that verb's clause subject a
    word of the row's subject (a copy when changed; else ``row`` itself). Object words the
    tagger left inside the subject ("The alternative name for [the] mink frog") are relabelled
    subject, or unlabelled when outside it."""
    n = len(words)
    if (row[: n + len(SENTINELS)] == REL).any():
        return row
    subject = [k for k in range(n) if row[k] == ARG1]
    if not subject:
        return row
    last = subject[-1]
    after = [k for k in range(last + 1, n) if row[k] in _OBJECT_LABELS]
    if not after:
        return row
    gap = range(last + 1, after[0])
    if not 1 <= len(gap) <= MAX_FILLED_RELATION or any(row[k] != NONE for k in gap):
        return row
    tokens = [token for token in doc if token_words[token.i] in gap]
    if not tokens or any(token.pos_ in _NOT_IN_A_VERB_GROUP for token in tokens):
        return row
    verbs = [token for token in tokens if token.pos_ in _VERB_POS]
    if not verbs:
        return row
    verb = verbs[0] if verbs[0].dep_ not in ("aux", "auxpass") else verbs[0].head
    clause_subject = subject_of(verb)
    if clause_subject is None or not _words_under(clause_subject, token_words).intersection(
        subject
    ):
        return row
    out = row.copy()
    out[list(gap)] = REL
    for k in range(after[0]):
        if out[k] in _OBJECT_LABELS:
            out[k] = ARG1 if subject[0] < k < last else NONE
    return out


def relation_parsed(
    row: np.ndarray, doc: Doc, words: Sequence[Span], token_words: Sequence[int]
) -> np.ndarray:
    """``row`` with the verb that governs its object labelled the relation when the tagger gave
    it a subject and an object but no relation word nor an implicit one, and the words between
    the two are more than :func:`relation_filled` reads as a verb group: "The World
    Championships were held in Oberhof, Germany, from February 24 to February 28" gives the row
    "The World Championships | ∅ | February 24 to February 28", which decoding would drop;
    it reads "The World Championships | were held from | February 24 to February 28".

    The object's head (its first word whose parse head lies outside the object) is the verb's
    complement (:data:`OBJECT_DEPS`: "dobj", "attr", "oprd", "acomp") or the object of a
    preposition the verb governs ("from", "by"). The verb is a verb or a copula, not another
    verb's auxiliary (the parser sometimes hangs a phrase on one: "They were, by their own
    account, towed"), after every subject word; the preposition comes after the verb and
    before the object; and the parse makes the verb's clause subject
    (:func:`~enoki_hd.extract.rules.clauses.subject_of`) a word of the row's subject. Through a
    preposition, the verb has no complement of its own ("Toruń was a member of the League
    until 1577" gives no "Toruń | was until | 1577"). The relation is the verb with its
    auxiliaries, negation and particle (:data:`RELATION_DEPS`) and the preposition; every one
    of those words must be unlabelled and none may be a word of the object's own phrase (a
    copy when changed; else ``row``)."""
    n = len(words)
    if (row[: n + len(SENTINELS)] == REL).any():
        return row
    subject = [k for k in range(n) if row[k] == ARG1]
    objects = [k for k in range(n) if row[k] in _OBJECT_LABELS]
    if not subject or not objects or objects[0] <= subject[-1]:
        return row
    inside = set(objects)
    tops = [
        token
        for token in doc
        if token_words[token.i] in inside and token_words[token.head.i] not in inside
    ]
    if not tops:
        return row
    top = tops[0]
    preposition: Token | None = None
    if top.dep_ in ("pobj", "pcomp") and _is_preposition(top.head):
        preposition, verb = top.head, top.head.head
    elif top.dep_ in OBJECT_DEPS:
        verb = top.head
    else:
        return row
    if verb.pos_ not in _VERB_POS or verb.dep_ in ("aux", "auxpass") or verb is top:
        return row  # an auxiliary governs no phrase: "They were, by their account, towed"
    if preposition is not None and any(c.dep_ in OBJECT_DEPS for c in verb.children):
        return row  # "was a member of the League until 1577": "was until" is not the claim
    clause_subject = subject_of(verb)
    if clause_subject is None or not _words_under(clause_subject, token_words).intersection(
        subject
    ):
        return row
    relation = {token_words[verb.i]}
    relation |= {token_words[c.i] for c in verb.children if c.dep_ in RELATION_DEPS}
    if preposition is not None:
        relation.add(token_words[preposition.i])
    relation.discard(-1)
    if not relation or min(relation) <= subject[-1] or max(relation) >= objects[0]:
        return row
    if preposition is not None and token_words[preposition.i] <= token_words[verb.i]:
        return row
    if any(row[k] != NONE for k in relation) or relation & _words_under(top, token_words):
        return row
    out = row.copy()
    out[sorted(relation)] = REL
    return out


# what a relation's verb or final preposition takes as its object, when the tagger left it out
_OBJECT_DEPS = OBJECT_DEPS | {"pobj", "pcomp", "xcomp", "ccomp"}


def relation_implicit(
    row: np.ndarray, doc: Doc, words: Sequence[Span], token_words: Sequence[int]
) -> np.ndarray:
    """``row`` with a relation of determiners alone, right before the object, made the start
    of the object and the relation the implicit "is" (a copy when changed; else ``row``):
    "Lyon, the third largest city of France, …" gave "Lyon | the | third largest city of
    France", a hypothesis with no verb; it reads "Lyon | [is] | the third largest city of
    France", as the tagger reads other appositives."""
    n = len(words)
    relation = [k for k in range(n) if row[k] == REL]
    if not relation or any(row[n + k] == REL for k in range(len(SENTINELS))):
        return row
    inside = set(relation)
    tokens = [t for t in doc if token_words[t.i] in inside]
    if not tokens or any(t.pos_ != "DET" for t in tokens):
        return row
    objects = [k for k in range(n) if row[k] in _OBJECT_LABELS]
    if not objects or relation != list(range(relation[0], objects[0])):
        return row
    out = row.copy()
    out[relation] = ARG2
    out[n + SENTINELS.index("[is]")] = REL
    return out


def _is_preposition(token: Token) -> bool:
    """A preposition by its tag or by its dependency ("since" is tagged a conjunction where it
    heads a phrase: "since the 14th century")."""
    return token.pos_ == "ADP" or token.dep_ in ("prep", "agent")


def object_filled(
    row: np.ndarray, doc: Doc, words: Sequence[Span], token_words: Sequence[int]
) -> np.ndarray:
    """``row`` with its relation's complement labelled the object when the tagger gave it a
    subject and a relation but no object word ("Bass violins | were | ∅" of "Bass violins
    were smaller and had a lower pitch", "Elizabeth Moran | was born on | ∅"): the phrase the
    parse hangs on the relation's last preposition ("born on *July 26, 1925, in New York
    City*"), else the first complement of the relation's verb after the relation ("were
    *smaller*"), when every word of it is after the relation and unlabelled (a copy when
    changed; else ``row`` itself)."""
    n = len(words)
    if any(row[k] in _OBJECT_LABELS for k in range(n)):
        return row
    relation = [k for k in range(n) if row[k] == REL]
    if not relation or not any(row[k] == ARG1 for k in range(n)):
        return row
    head = relation_head(doc, token_words, set(relation))
    if head is None:
        return row
    last = relation[-1]
    tail = [token for token in doc if token_words[token.i] == last]
    candidates: list[Token] = []
    if tail and _is_preposition(tail[-1]):
        candidates = [child for child in tail[-1].children if child.dep_ in ("pobj", "pcomp")]
    if not candidates:
        candidates = [
            child
            for child in head.children
            if child.dep_ in _OBJECT_DEPS and token_words[child.i] > last
        ]
    if not candidates:
        return row
    phrase = sorted(_words_under(candidates[0], token_words) - {-1})
    phrase = _trimmed(phrase, doc, words, token_words)
    if not phrase or phrase[0] <= last or any(row[k] != NONE for k in phrase):
        return row
    out = row.copy()
    out[phrase] = ARG2
    return out


def _trimmed(
    phrase: list[int], doc: Doc, words: Sequence[Span], token_words: Sequence[int]
) -> list[int]:
    """``phrase`` (word indices) without the punctuation and conjunctions it ends on ("an
    American author, journalist," ends at "journalist"; "low-cost or" at "low-cost") and cut
    before a bracket it opens and does not close ("February (10.5 inches" → "February")."""
    # a word every token of which is punctuation or a conjunction (not "singer-songwriter",
    # whose hyphen is a token of its own)
    loose = {
        token_words[t.i] for t in doc if (t.is_punct and not t.is_right_punct) or t.pos_ == "CCONJ"
    } - {
        token_words[t.i]
        for t in doc
        if not ((t.is_punct and not t.is_right_punct) or t.pos_ == "CCONJ")
    }
    text = doc.text
    depth_at_open: int | None = None
    depth = 0
    for position, k in enumerate(phrase):
        word = text[words[k].start : words[k].end]
        if "(" in word and depth == 0:
            depth_at_open = position
        depth += word.count("(") - word.count(")")
        if depth <= 0:
            depth, depth_at_open = 0, None
    if depth_at_open is not None:
        phrase = phrase[:depth_at_open]
    while phrase and phrase[-1] in loose:
        phrase = phrase[:-1]
    return phrase


def subject_filled(
    row: np.ndarray, doc: Doc, words: Sequence[Span], token_words: Sequence[int]
) -> np.ndarray:
    """``row`` with its relation's subject in the parse labelled the subject when the tagger
    gave it a relation in one piece and an object but no subject word (decoding drops such a
    row): the phrase the parse makes the subject of the relation's verb, own or inherited
    (:func:`~enoki_hd.extract.rules.clauses.subject_of`: "Bass violins were smaller and *had*
    …" → "Bass violins"; a relative pronoun resolved to its noun), when every word of it is
    before the relation and unlabelled, and it is not an existential "there"; cut as
    :func:`object_filled` cuts an object (a copy when changed; else ``row`` itself)."""
    n = len(words)
    if any(row[k] == ARG1 for k in range(n)):
        return row
    relation = [k for k in range(n) if row[k] == REL]
    if not relation or not any(row[k] in _OBJECT_LABELS for k in range(n)):
        return row
    if len(_runs(relation)) > 1:
        return row  # "ends when … is": words of two clauses
    head = relation_head(doc, token_words, set(relation))
    if head is None:
        return row
    subject = subject_of(head)
    if subject is None or subject.dep_ == "expl":
        return row
    phrase = sorted(_words_under(subject, token_words) - {-1})
    if not phrase or phrase[-1] >= relation[0] or any(row[k] != NONE for k in phrase):
        return row
    phrase = _trimmed(phrase, doc, words, token_words)  # "Limit:" → "Limit"
    if not phrase:
        return row
    out = row.copy()
    out[phrase] = ARG1
    return out


# the words that join a list's items: a gap of only these between two pieces of a part is kept
_JOINERS = frozenset({",", ";", "/", "&", "and", "or"})
MAX_JOINED_GAP = 2


def pieces_joined(row: np.ndarray, text: str, words: Sequence[Span]) -> np.ndarray:
    """``row`` with the gaps between pieces of its subject or object labelled as the part when
    each gap is at most :data:`MAX_JOINED_GAP` unlabelled words that only join a list (",",
    ";", "/", "&", "and", "or"; not brackets or quote marks, which would open what the part
    does not close): the tagger's "soy sauce vinegar sugar" of "soy sauce, vinegar, and
    sugar" reads as the answer writes it (a copy when changed; else ``row`` itself)."""
    n = len(words)
    out = row
    for label in (ARG1, ARG2):
        indices = [k for k in range(n) if row[k] == label]
        for first, second in pairwise(indices):
            gap = range(first + 1, second)
            if not 1 <= len(gap) <= MAX_JOINED_GAP or any(row[k] != NONE for k in gap):
                continue
            if not all(text[words[k].start : words[k].end].lower() in _JOINERS for k in gap):
                continue
            if out is row:
                out = row.copy()
            out[list(gap)] = label
    return out


def object_completed(
    row: np.ndarray, doc: Doc, words: Sequence[Span], token_words: Sequence[int]
) -> np.ndarray:
    """``row`` with the phrase its object's last preposition governs labelled the object when
    the tagger ended the object on that preposition ("the main residence of the Russian rulers
    since | ∅" of "… since the 14th century"): the preposition's ``pobj`` or ``pcomp`` phrase,
    when every word of it follows the preposition and is unlabelled, cut as
    :func:`object_filled` cuts an object (a copy when changed; else ``row`` itself)."""
    n = len(words)
    objects = [k for k in range(n) if row[k] in _OBJECT_LABELS]
    if not objects:
        return row
    last = objects[-1]
    tokens = [token for token in doc if token_words[token.i] == last]
    if len(tokens) != 1 or not _is_preposition(tokens[0]):
        return row
    phrases = [child for child in tokens[0].children if child.dep_ in ("pobj", "pcomp")]
    if not phrases:
        return row
    phrase = sorted(_words_under(phrases[0], token_words) - {-1})
    if not phrase or phrase[0] <= last or any(row[k] != NONE for k in phrase):
        return row
    phrase = _trimmed(phrase, doc, words, token_words)
    if not phrase:
        return row
    out = row.copy()
    out[phrase] = row[last]
    return out


def subjects_distributed(
    row: np.ndarray, doc: Doc, words: Sequence[Span], token_words: Sequence[int]
) -> list[np.ndarray]:
    """``row`` once per conjunct of a coordinated subject, as the rules extractor distributes
    one (:func:`~enoki_hd.extract.rules.syntax.conjuncts`: nouns, not verbs, names joined by
    "&" or titles in quotation marks): "Takeout and catering | are available for | …" gives
    "Takeout | are available for | …" and "catering | are available for | …", so that a
    conjunct the context never names is not diluted by the others. Each conjunct keeps its own
    words (its phrase without the other conjuncts, the conjunction and the commas). A subject
    that is no coordination, or whose conjuncts' words the row does not all hold, gives
    ``[row]``."""
    n = len(words)
    subject = {k for k in range(n) if row[k] == ARG1}
    if not subject:
        return [row]
    heads = [
        t
        for t in doc
        if token_words[t.i] in subject
        and (t.head is t or token_words[t.head.i] not in subject)
        and t.pos_ in ("NOUN", "PROPN", "PRON")
    ]
    if len(heads) != 1:
        return [row]
    members = conjuncts(heads[0])
    if len(members) < 2:
        return [row]
    pieces = []
    for member in members:
        others = [c for c in member.children if c.dep_ == "conj" or c.dep_ in ("cc", "punct")]
        own = _words_under(member, token_words) - set().union(
            *(_words_under(c, token_words) for c in others)
        )
        piece = sorted(own & subject)
        if token_words[member.i] not in piece:
            return [row]
        pieces.append(piece)
    out = []
    for piece in pieces:
        one = row.copy()
        one[sorted(subject - set(piece))] = NONE
        out.append(one)
    return out


def existentials_added(
    rows: Sequence[np.ndarray], doc: Doc, words: Sequence[Span], token_words: Sequence[int]
) -> list[np.ndarray]:
    """A row for each existential clause of the sentence that no row states, as the rules
    extractor gives one: "there" its subject, its "be" with the auxiliaries and negation the
    relation, what exists its object — the noun's phrase without a relative clause ("there
    was no British commander named "Robertson" who led the British forces" gives "there | was
    | no British commander named "Robertson"", a claim the tagger, taught on verb-centred
    triples, left without a row; the relative clause is a row of its own). A clause the
    sentence does not assert (:func:`~enoki_hd.extract.rules.syntax.is_unasserted`), one
    whose verb a row already holds, or one the parse gives nothing that exists, adds none."""
    n = len(words)
    added: list[np.ndarray] = []
    for there in doc:
        if there.dep_ != "expl" or there.lower_ != "there" or there.head is there:
            continue
        verb = there.head
        subject, at = token_words[there.i], token_words[verb.i]
        if verb.lemma_ != "be" or subject < 0 or at < 0 or is_unasserted(verb):
            continue
        if any(row[at] == REL for row in [*rows, *added]):
            continue
        what = [c for c in verb.children if c.dep_ in ("attr", "nsubj") and c.i > verb.i]
        if not what:
            continue
        relation = {at} | {token_words[c.i] for c in verb.children if c.dep_ in _RELATION_DEPS} - {
            -1
        }
        phrase = sorted(_phrase(what[0], token_words) - relation - {subject})
        phrase = _trimmed(phrase, doc, words, token_words)
        if phrase:
            added.append(_row(n, [subject], relation, phrase))
    return added


def _row(n: int, subject: Sequence[int], relation: set[int], obj: Sequence[int]) -> np.ndarray:
    """A row over ``n`` words (and the sentinels, unlabelled) with ``subject``, ``relation``
    and ``obj`` (word indices) labelled."""
    row = np.full(n + len(SENTINELS), NONE, dtype=np.int64)
    row[list(subject)] = ARG1
    row[sorted(relation)] = REL
    row[list(obj)] = ARG2
    return row


def _phrase(head: Token, token_words: Sequence[int]) -> set[int]:
    """The words of ``head``'s phrase without its relative clauses."""
    clauses = set().union(
        *(_words_under(c, token_words) for c in head.children if c.dep_ == "relcl")
    )
    return _words_under(head, token_words) - clauses - {-1}


# Heads of a subject a clause of its own can be checked on: a noun phrase, not a pronoun ("it
# is important to …", "you can …", "they are not required" name nothing the context can).
_NAMED_SUBJECT_POS = frozenset({"NOUN", "PROPN", "NUM"})
_OWN_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
# What a clause's row takes as its object: its verb's object or predicate and the phrases of
# its prepositions ("by Robert Noyce", "in 1977"), not its subordinate or coordinated clauses.
_PREPOSITION_DEPS = frozenset({"prep", "agent", "dative"})
_COMPLEMENT_DEPS = OBJECT_DEPS | _PREPOSITION_DEPS


def clauses_added(
    rows: Sequence[np.ndarray], doc: Doc, words: Sequence[Span], token_words: Sequence[int]
) -> list[np.ndarray]:
    """A row for each asserted clause of the sentence that no row states, as the rules
    extractor gives one: its noun subject (without a relative clause), its verb with the
    auxiliaries and negation the relation, its object, predicate or, failing those, its first
    prepositional phrase the object ("Joni Mitchell, 76, is a renowned singer-songwriter" gives
    "Joni Mitchell, 76 | is | a renowned singer-songwriter", "(the other being the port city
    Vlorë)" gives "the other | being | the port city Vlorë": clauses the tagger, taught on
    verb-centred triples, left without a row, so their words were never checked). A clause
    no row states is one whose verb and auxiliaries no row labels the relation; a relative
    clause, a clause whose subject is a pronoun, one the sentence does not assert
    (:func:`~enoki_hd.extract.rules.syntax.is_unasserted`) or one without an object adds
    none."""
    n = len(words)
    added: list[np.ndarray] = []
    for verb in doc:
        if verb.pos_ not in ("VERB", "AUX") or verb.dep_ == "relcl" or is_unasserted(verb):
            continue
        subjects = [c for c in verb.children if c.dep_ in _OWN_SUBJECT_DEPS]
        if len(subjects) != 1 or not _names_something(subjects[0]):
            continue
        relation = {token_words[verb.i]} | {
            token_words[c.i] for c in verb.children if c.dep_ in _RELATION_DEPS
        }
        relation -= {-1}
        if not relation or any(row[k] == REL for row in [*rows, *added] for k in relation):
            continue
        complements = [c for c in verb.children if c.i > verb.i and c.dep_ in _COMPLEMENT_DEPS]
        if not complements:
            continue
        first = complements[0]
        phrase: set[int] = set()
        if first.dep_ in _PREPOSITION_DEPS:
            # "was founded by | Robert Noyce in 1977": the first preposition is the relation's
            objects = [c for c in first.children if c.dep_ == "pobj"]
            if not objects:
                continue
            relation.add(token_words[first.i])
            phrase |= _phrase(objects[0], token_words)
            complements = complements[1:]
        for complement in complements:
            phrase |= _phrase(complement, token_words)
        subject = _phrase(subjects[0], token_words) - relation
        phrase -= relation | subject
        subject_words = _trimmed(sorted(subject), doc, words, token_words)
        object_words = _trimmed(sorted(phrase), doc, words, token_words)
        if subject_words and object_words:
            added.append(_row(n, subject_words, relation, object_words))
    return added


def _names_something(subject: Token) -> bool:
    """Whether ``subject`` heads a noun phrase: a noun, name or number, or an adjective with a
    determiner ("the other", "the latter")."""
    if subject.pos_ in _NAMED_SUBJECT_POS:
        return True
    return subject.pos_ == "ADJ" and any(c.dep_ == "det" for c in subject.children)


def fragments_dropped(
    rows: Sequence[np.ndarray], doc: Doc, words: Sequence[Span], token_words: Sequence[int]
) -> list[int]:
    """The indices of ``rows`` to keep: a row whose relation, written in the sentence, holds
    no verb and whose words are all words of another, longer row is dropped — a piece of
    that row's predicate read without it ("index | worse than | the national average" of
    "the pollution index | is | 61% worse than the national average" said the index is worse
    than average, which its context, giving the 61%, contradicts). A row with a verb in its
    relation, or with the implicit relation only, stays."""
    n = len(words)
    verbs = {token_words[t.i] for t in doc if t.pos_ in _VERB_POS} - {-1}
    labelled = [frozenset(k for k in range(n) if row[k] != NONE) for row in rows]
    kept = []
    for i, row in enumerate(rows):
        relation = {k for k in range(n) if row[k] == REL}
        fragment = bool(relation) and not relation & verbs
        if fragment and any(labelled[i] < other for other in labelled):
            continue
        kept.append(i)
    return kept
