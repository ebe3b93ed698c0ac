"""Small predicates over spaCy tokens shared by the rule families.

Token indices used by the rules extractor are indices into one sentence's spaCy ``Doc``; they
become half-open character spans into the original answer only when facts are shaped
(:mod:`enoki_hd.extract.rules.candidates`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

ARTICLES = frozenset({"a", "an", "the"})
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
RELATIVE_PRONOUNS = frozenset({"which", "who", "whom", "that", "whose"})
NOUN_LIKE_POS = frozenset({"NOUN", "PROPN", "PRON", "NUM", "X"})
# Dependents of a clause's verb that belong to the relation phrase.
RELATION_DEPS = frozenset({"aux", "auxpass", "neg", "prt"})
# Dependents of a verb that are its object: direct object, predicate nominal / adjective.
OBJECT_DEPS = frozenset({"dobj", "attr", "oprd", "acomp"})
# A relative pronoun is an argument only through its antecedent; a clause that cannot be
# walked up to one within this many heads is malformed.
_MAX_CLIMB = 32


HYPHENS = frozenset({"-", "‐", "‑"})
"""Hyphens the tokenizer splits a hyphenated word at ("spin-off", "full-time")."""


def is_content(token: Token) -> bool:
    """A token that can carry meaning: not whitespace and holding a letter or digit."""
    return not token.is_space and any(c.isalnum() for c in token.text)


# Heads whose "a" is a number: "a quarter of", "a third", "a dozen", "a hundred"
_COUNTED_BY_A = frozenset(
    {
        "half", "quarter", "third", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
        "dozen", "score", "hundred", "thousand", "million", "billion", "trillion",
    }
)  # fmt: skip


def is_dropped_article(token: Token) -> bool:
    """``a`` / ``an`` / ``the`` as a determiner, left out of fact text.

    Articles glued to a hyphen (``state-of-the-art``) stay: they are part of a word; so does
    an ``a`` that counts its head (``a quarter of commuters``, ``a dozen``, ``a million``):
    without it the fact no longer states the number.
    """
    if token.lower_ in ("a", "an") and token.head.lower_ in _COUNTED_BY_A:
        return False
    return token.dep_ == "det" and token.lower_ in ARTICLES and bool(token.whitespace_)


def is_noun_like(token: Token) -> bool:
    return token.pos_ in NOUN_LIKE_POS


def is_copula(token: Token) -> bool:
    """``be`` heading its clause (``Bath is in Somerset``), not as an auxiliary."""
    return token.lemma_.lower() == "be" and token.dep_ not in ("aux", "auxpass")


def relative_clause_of(token: Token) -> Token | None:
    """The ``relcl`` verb whose clause contains ``token`` (nearest), or None."""
    current = token
    for _ in range(_MAX_CLIMB):
        if current.dep_ == "relcl":
            return current
        if current.head is current:
            return None
        current = current.head
    return None


def is_relative_pronoun(token: Token) -> bool:
    return token.tag_ in ("WDT", "WP", "WP$") or (
        token.lower_ in RELATIVE_PRONOUNS and relative_clause_of(token) is not None
    )


def resolve_argument(token: Token) -> Token | None:
    """The token that stands for an argument: a relative pronoun is replaced by its antecedent.

    Returns None for a relative pronoun outside any relative clause (nothing to resolve to).
    """
    if not is_relative_pronoun(token):
        return token
    clause = relative_clause_of(token)
    return None if clause is None else clause.head


def entity_of(noun: Token) -> Token:
    """The entity a noun phrase describes: an appositive or predicate nominal climbs to it.

    ``Suede, an English band formed in Bath`` and ``Suede is a band formed in Bath`` both make
    ``Suede`` the one that was formed, not ``band``.
    """
    current = noun
    for _ in range(_MAX_CLIMB):
        if current.dep_ == "appos" and current.head is not current:
            current = current.head
        elif current.dep_ == "attr" and is_copula(current.head):
            subject = next((c for c in current.head.children if c.dep_ in SUBJECT_DEPS), None)
            if subject is None or subject.dep_ == "expl":
                return current
            return resolve_argument(subject) or current
        else:
            return current
    return current


def is_denied_predicate(noun: Token) -> bool:
    """``noun`` is the predicate nominal of a negated copula (``Suede is not a band …``,
    ``There isn't a character …``): what a clause on it says is said of nothing."""
    return (
        noun.dep_ == "attr"
        and is_copula(noun.head)
        and any(c.dep_ == "neg" for c in noun.head.children)
    )


def is_name_conjunct(token: Token) -> bool:
    """A conjunct joined by ``&``: ``Brook & Lyle`` names one firm, not two."""
    if token.dep_ != "conj" or token.head is token:
        return False
    low, high = sorted((token.head.i, token.i))
    return any(c.dep_ == "cc" and c.text == "&" and low < c.i < high for c in token.head.children)


_QUOTE_PAIRS = {'"': '"', "'": "'", "“": "”", "‘": "’", "«": "»", "``": "''"}
_QUOTE_SPAN = 4  # words between a quotation mark and the conjunction's nearer conjunct at most


def _quote_at(doc: Doc, i: int, closing: bool) -> bool:
    """Whether token ``i`` is a quotation mark as the quotation opens (after a space or at the
    start, touching the word after it) or closes (touching the word before it); a possessive
    apostrophe ("the Joneses' house") is no quotation mark."""
    token = doc[i]
    if token.pos_ != "PUNCT":
        return False
    if closing:
        return token.text in _QUOTE_PAIRS.values() and i > 0 and doc[i - 1].whitespace_ == ""
    return (
        token.text in _QUOTE_PAIRS
        and token.whitespace_ == ""
        and (i == 0 or doc[i - 1].whitespace_ != "")
    )


def is_quoted_conjunct(token: Token) -> bool:
    """A conjunct inside the one quotation that holds its head: 'Glass and Fire', "Pride and
    Prejudice" name one work, not two."""
    if token.dep_ != "conj" or token.head is token:
        return False
    doc = token.doc
    low, high = sorted((token.head.i, token.i))
    # the nearest punctuation on each side must be the quotation's marks
    start = next(
        (i for i in range(low - 1, max(-1, low - 1 - _QUOTE_SPAN), -1) if doc[i].is_punct), None
    )
    end = next(
        (i for i in range(high + 1, min(len(doc), high + 1 + _QUOTE_SPAN)) if doc[i].is_punct),
        None,
    )
    if start is None or end is None:
        return False
    if not (_quote_at(doc, start, closing=False) and _quote_at(doc, end, closing=True)):
        return False
    if _QUOTE_PAIRS[doc[start].text] != doc[end].text:
        return False
    return not any(doc[i].text in _QUOTE_PAIRS for i in range(start + 1, end))


def conjuncts(token: Token) -> list[Token]:
    """``token`` and the nominal conjuncts coordinated with it, in text order.

    ``fever, cough and toxins`` gives the three heads; verbs coordinated with a verb are
    clauses, not conjuncts, and are left out, as are names joined by ``&`` and titles in
    quotation marks ('Glass and Fire': one name).
    """
    found: list[Token] = []
    stack = [token]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(
            c
            for c in current.children
            if c.dep_ == "conj"
            and c.pos_ not in ("VERB", "AUX")
            and not is_name_conjunct(c)
            and not is_quoted_conjunct(c)
        )
    return sorted(found, key=lambda t: t.i)


# Verbs that report a clause put before them: "The band split up, she said."
REPORTING_VERBS = frozenset(
    {"say", "tell", "add", "note", "claim", "argue", "explain", "write", "report", "state",
     "believe", "think", "announce", "insist", "warn", "suggest", "admit", "confirm", "deny",
     "reply", "conclude", "acknowledge", "estimate", "predict", "recall", "observe", "know",
     "feel", "hope", "fear", "expect", "assume", "stress", "point", "agree", "answer", "ask"}
)  # fmt: skip


def is_paratactic_complement(verb: Token) -> bool:
    """A ``ccomp`` the parser hangs across a semicolon (``X did not come in her first final;
    she had reached the final`` makes the first clause a complement of ``reached``), or puts
    before a verb that reports nothing (``I'm sorry, I cannot provide an answer``): an
    independent clause, not what its head verb says or reports."""
    if verb.dep_ != "ccomp" or verb.head is verb:
        return False
    head = verb.head
    low, high = (verb.right_edge.i, head.i) if verb.i < head.i else (head.i, verb.left_edge.i)
    between = {verb.doc[i].text for i in range(low + 1, high)}
    if ";" in between:
        return True
    return (
        verb.i < head.i
        and bool(between & {",", ":", "–", "—"})
        and head.lemma_.lower() not in REPORTING_VERBS
    )


_ALTERNATIVE_MARKERS = frozenset({("instead", "of"), ("rather", "than")})
_CONDITION_MARKS = frozenset({"if", "unless", "whether"})
# Nouns whose "that" clause reports a view, not a fact: "the ruling that X breached its
# contract" (overturned) and "the claim that he took bribes" do not assert X ("the fact that",
# "the finding that" do, and stay).
_UNASSERTING_NOUNS = frozenset(
    {"claim", "ruling", "belief", "rumour", "rumor", "allegation", "suggestion", "idea"}
    | {"theory", "hypothesis", "possibility", "hope", "fear", "assumption", "notion"}
    | {"speculation", "proposal", "argument", "impression", "accusation", "myth", "misconception"}
)


# What denies or doubts a "that" clause without a "not": a subject that is no one ("No
# evidence suggests that …", "Nobody believes that …"), a noun that is none ("There is no
# record that …", "little evidence that …") and the adjective of "It is false that …".
_NEGATIVE_SUBJECTS = frozenset({"nothing", "nobody", "none", "noone", "neither"})
_NEGATIVE_DETERMINERS = frozenset({"no", "neither"})
_SCANT_MODIFIERS = frozenset({"little", "scant"})
_DENYING_ADJECTIVES = frozenset(
    {"false", "untrue", "unlikely", "improbable", "incorrect", "wrong", "doubtful", "unclear"}
    | {"uncertain", "unproven", "unconfirmed", "impossible", "unknown"}
)
# Verbs that doubt their clause: with a subject that is none they assert it ("No one doubts
# that the drug works")
_DOUBTING_VERBS = frozenset({"doubt", "deny", "dispute", "question", "contest", "refute"})


def is_none(noun: Token) -> bool:
    """``noun`` denies its own existence: "nothing", "nobody", "no evidence", "no one",
    "little evidence"."""
    if noun.lower_ in _NEGATIVE_SUBJECTS:
        return True
    return any(
        (c.dep_ == "det" and c.lower_ in _NEGATIVE_DETERMINERS)
        or (c.dep_ == "amod" and c.lower_ in _SCANT_MODIFIERS)
        for c in noun.children
    )


def _denies_its_complement(verb: Token) -> bool:
    """The verb of a ``ccomp`` that says its clause is not so: negated ("did not say that"),
    with a subject that is none ("No evidence suggests that") or modifying a noun that is none
    ("There is no evidence to suggest that"), or a copula with a denying adjective ("It is
    false that", "It is unlikely that")."""
    children = list(verb.children)
    if any(c.dep_ == "neg" for c in children):
        return True
    if any(c.dep_ in ("nsubj", "nsubjpass") and is_none(c) for c in children):
        return verb.lemma_.lower() not in _DOUBTING_VERBS
    if verb.dep_ in ("acl", "relcl") and is_none(verb.head):
        # "There is no evidence to suggest that", "no record indicating that"
        return verb.lemma_.lower() not in _DOUBTING_VERBS
    return verb.lemma_ == "be" and any(
        c.dep_ == "acomp" and c.lower_ in _DENYING_ADJECTIVES for c in children
    )


def follows_alternative(token: Token) -> bool:
    """``token``'s phrase is the rejected alternative: it comes right after ``instead of`` or
    ``rather than`` (``travelled by train instead of by car``)."""
    i = token.left_edge.i
    if i < 2:
        return False
    return (token.doc[i - 2].lower_, token.doc[i - 1].lower_) in _ALTERNATIVE_MARKERS


def is_unasserted(verb: Token) -> bool:
    """A clause its sentence does not assert: a condition (``if the dam fails``, ``unless``,
    ``whether``), the ``that`` clause of a noun of opinion (``the ruling that Maris had
    breached its contract``) or of a noun that is none (``There is no record that Napoleon
    visited Boston``), the complement of a verb that denies it (``doesn't prove the heart is
    healthy``, ``did not say that ...``, ``No evidence suggests that ...``, ``It is false
    that ...``), a gerund after ``without`` or a rejected alternative (``left without
    paying``, ``rose instead of falling``), or a verb coordinated with one."""
    current = verb
    for _ in range(_MAX_CLIMB):
        if follows_alternative(current) or any(
            c.dep_ == "mark" and c.lower_ in _CONDITION_MARKS for c in current.children
        ):
            return True
        if current.dep_ != "conj" or current.head is current:
            break
        current = current.head
    that_clause = any(c.dep_ == "mark" and c.lower_ == "that" for c in current.children)
    if current.dep_ == "acl" and current.head.lemma_.lower() in _UNASSERTING_NOUNS:
        return that_clause
    if current.dep_ in ("acl", "relcl") and that_clause and is_none(current.head):
        return True  # "no record that X" (the parser may call the clause relative)
    if current.dep_ == "pcomp":
        return current.head.lower_ == "without"
    if current.dep_ != "ccomp" or is_paratactic_complement(current):
        return False
    return _denies_its_complement(current.head)


def is_glued(a: Token, b: Token) -> bool:
    """No whitespace anywhere between tokens ``a`` and ``b``: one written word the tokenizer
    split (``spin-off``, ``co-author``)."""
    low, high = sorted((a.i, b.i))
    return all(not a.doc[i].whitespace_ for i in range(low, high))


def _is_object(child: Token, siblings: list[Token]) -> bool:
    """Whether ``child`` is an object of its verb (``siblings``: the verb's children), mending
    two parser errors: a ``pobj`` hanging from the verb itself, with no preposition (``those
    given a placebo``), is its object; a second direct object set off by a comma (``brought
    its level down to 23%, its lowest point``) is an appositive of what precedes it."""
    if child.dep_ == "pobj":
        return True
    if child.dep_ not in OBJECT_DEPS:
        return False
    if child.dep_ == "dobj" and any(o.dep_ == "dobj" and o.i < child.i for o in siblings):
        before = child.left_edge.i - 1
        return before < 0 or child.doc[before].text != ","
    return True


def objects_of(verbs: Iterable[Token]) -> list[Token]:
    """Direct objects (and predicate nominals / adjectives) of ``verbs``, resolved."""
    found: list[Token] = []
    for verb in verbs:
        children = list(verb.children)
        for child in children:
            if _is_object(child, children):
                resolved = resolve_argument(child)
                if resolved is not None:
                    found.append(resolved)
    return found


def is_infinitive(verb: Token) -> bool:
    """A ``to`` infinitive without a subject of its own (``to promote literacy``)."""
    return (
        verb.pos_ == "VERB"
        and verb.tag_ == "VB"
        and any(c.dep_ == "aux" and c.lower_ == "to" for c in verb.children)
        and not any(c.dep_ in SUBJECT_DEPS for c in verb.children)
    )


def in_order_purpose(prep: Token) -> Token | None:
    """The infinitive of ``in order to ...`` when ``prep`` is its ``in``, else None."""
    if prep.lower_ != "in":
        return None
    for pobj in prep.children:
        if pobj.dep_ == "pobj" and pobj.lower_ == "order":
            return next((c for c in pobj.children if c.dep_ == "acl" and is_infinitive(c)), None)
    return None
