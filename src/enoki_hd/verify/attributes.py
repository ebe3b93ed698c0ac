"""Yes-or-no attributes of a structured context: an answer's "does not offer outdoor seating"
read against the context's ``'OutdoorSeating': True``.

Data-to-text contexts list a business's attributes as key–value pairs (RAGTruth's Yelp
listings: ``'OutdoorSeating': True, 'WiFi': 'free', 'RestaurantsGoodForGroups': True,
'Ambience': {'classy': True, 'trendy': False, …}``), and answers restate them in words and
get the yes or no wrong. The verifier reads a listing poorly, and word overlap finds
"outdoor seating" whatever its value.

:func:`context_attributes` reads every key with a yes-or-no value — ``True`` / ``False``, a
string that says no (``'no'``, ``'none'``) or another string (a yes: ``'WiFi': 'free'``);
``None`` unknown; a string says yes (``'free'``, ``'paid'``, ``'yes'``) or no
(``'no'``, ``'none'``), any other string is no yes-or-no value — with the key's words: its
CamelCase parts, without a leading ``Restaurants`` or ``Business`` ("GoodForGroups": "good for
groups"). A nested key is an attribute of its parent (``'Ambience': {'trendy': False}``:
"trendy"), named by a fact only beside its parent's name ("parking"; "ambiance",
"atmosphere", "vibe" … for ``Ambience``): "State Street" is no street parking. A dict that
only holds the listing (``'attributes'``, ``'amenities'``, …) is no parent. A key given two
values (two listings) is left out, and so is one whose words the context also writes outside the
listing (a review's "upscale casual place" beside ``'upscale': False``: the context says both).

:func:`judge_attributes` finds a fact whose relation and object write an attribute's words
(consecutive words, joined or not: "take-out" and "takeout" for "TakeOut", "Wi-Fi" for "WiFi")
and reads its polarity (negated: the fact is, or a "not", "no", "without", "lacks" … stands in
its relation or before the words in its object). A fact that says yes to a no, or no to a yes,
is ``contradicted`` (``decided_by="attribute_conflict"``), blamed for the attribute's words,
the listing's pair as evidence; a fact that says yes or no to an attribute the listing leaves
unknown (``'Music': None``: "does not provide music") is ``unverifiable``
(``decided_by="attribute_unknown"``): the listing names it and does not say. Both at least the
0.9 floor of the other conflicts. A fact the verifier, its words' grounding or an absent name
failed that says what the listing says, and nothing else (its object the attribute's words,
with "free", "a", "an", "the"; its relation a plain verb of having: "offers", "has",
"provides", "is", "accepts" …), is ``supported`` (``decided_by="attribute"``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from enoki_hd.types import Evidence, Fact, FactVerdict, Span
from enoki_hd.verify.grounding import camel_words
from enoki_hd.verify.judge import VOUCHABLE, relabel

# a key and its value in a listing: 'Key': True, "Key": "free", 'Parent': {
_PAIR_RE = re.compile(
    r"""['"](?P<key>[A-Za-z][A-Za-z0-9_]*)['"]\s*:\s*"""
    r"""(?P<value>True|False|None|true|false|null|\{|'[^'\n]{0,40}'|"[^"\n]{0,40}")"""
)
_PREFIXES = ("restaurants", "business")
# the strings that say yes or no ('WiFi': 'free'); any other string is no yes-or-no value
_YES_STRINGS = frozenset({"yes", "true", "free", "paid"})
_NO_STRINGS = frozenset({"no", "none", "false"})
# the words an answer may name a nested attribute's parent by ('Ambience': "atmosphere")
_TOPIC_WORDS = {"ambience": ("ambience", "ambiance", "atmosphere", "vibe", "setting", "decor")}
# a dict that only holds a listing's attributes, whose name is no topic of theirs
_CONTAINERS = frozenset({"attributes", "properties", "features", "amenities", "details", "info"})
_NEGATORS = frozenset(
    {"not", "no", "n't", "never", "without", "lacks", "lack", "lacking", "lacked", "none"}
)
# a relation that only says the business has the attribute
_HAVING = frozenset(
    {
        *("offers", "offer", "offered", "has", "have", "had", "provides", "provide"),
        *("provided", "is", "are", "was", "were", "accepts", "accept", "features"),
        *("available", "also", "does", "do", "did", "it", "with", "and"),
    }
)
_FILLERS = frozenset({"free", "a", "an", "the", "its", "their", "and"})
_WORD_RE = re.compile(r"[A-Za-z0-9]+(?:['’][a-z]+)?")


@dataclass(frozen=True)
class Attribute:
    """A yes-or-no attribute of a listing: its words (lower case), its value and where the
    pair stands in the context."""

    words: tuple[str, ...]
    value: bool | None  # None: the listing leaves it unknown ('Music': None)
    span: Span
    # a nested attribute's parent, by the words an answer may name it ('Ambience': {'classy':
    # …}: "ambiance", "atmosphere" …; 'BusinessParking': {'street': …}: "parking"); empty at
    # the top level
    topic: tuple[str, ...] = ()


def _key_words(key: str) -> tuple[str, ...]:
    parts = camel_words(key)
    while len(parts) > 1 and parts[0] in _PREFIXES:
        parts = parts[1:]
    return tuple(parts)


def _value(raw: str) -> bool | None:
    if raw in ("True", "true"):
        return True
    if raw in ("False", "false"):
        return False
    if raw in ("None", "null", "{"):
        return None
    text = raw[1:-1].strip().lower()
    if text in _YES_STRINGS:
        return True
    return False if text in _NO_STRINGS else None


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD_RE.findall(text)]


@dataclass(frozen=True)
class AttributeIndex:
    """A listing's attributes with their keys' words joined ("wifi"), for :func:`_found`."""

    attributes: Sequence[Attribute]
    keys: dict[str, list[int]]  # joined key words → the attributes' positions
    longest: int  # the longest joined key, in characters


def index_attributes(attributes: Sequence[Attribute]) -> AttributeIndex:
    """``attributes`` indexed by their joined key words (a key under four letters is
    never looked for)."""
    keys: dict[str, list[int]] = {}
    for k, attribute in enumerate(attributes):
        target = "".join(attribute.words)
        if len(target) >= 4:
            keys.setdefault(target, []).append(k)
    return AttributeIndex(attributes, keys, max((len(key) for key in keys), default=0))


def _found(words: Sequence[str], index: AttributeIndex) -> list[tuple[Attribute, tuple[int, int]]]:
    """Where consecutive ``words`` first spell each attribute's key (joined or not: "wifi",
    "wi fi"), for the attributes found, in the listing's order: the runs of words are looked
    up among the keys, so that a listing of thousands of keys costs no scan per key."""
    found: dict[int, tuple[int, int]] = {}
    for i in range(len(words)):
        joined = ""
        for j in range(i, len(words)):
            joined += words[j]
            if len(joined) > index.longest:
                break
            for k in index.keys.get(joined, ()):
                found.setdefault(k, (i, j + 1))
    return [(index.attributes[k], found[k]) for k in sorted(found)]


def _closing_brace(text: str, start: int) -> int:
    """Where the dict opened just before ``start`` closes (its nested dicts skipped); the
    text's end when it never does."""
    depth = 1
    for k in range(start, len(text)):
        if text[k] == "{":
            depth += 1
        elif text[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(text)


def context_attributes(context: str) -> list[Attribute]:
    """The listing's yes-or-no attributes (see the module docstring), in order."""
    found: dict[tuple[tuple[str, ...], tuple[str, ...]], list[Attribute]] = {}
    listing: list[Span] = []
    parents: list[tuple[int, tuple[str, ...]]] = []  # (where its braces close, topic words)
    for m in _PAIR_RE.finditer(context):
        listing.append(Span(m.start(), m.end()))
        parents = [(end, topic) for end, topic in parents if end > m.start()]
        words = _key_words(m.group("key"))
        if m.group("value") == "{":
            close = _closing_brace(context, m.end())
            if words and "".join(words) not in _CONTAINERS:
                parents.append((close, _TOPIC_WORDS.get("".join(words), words)))
            continue
        value = _value(m.group("value"))
        if not words or (value is None and m.group("value") not in ("None", "null")):
            continue  # a string that says neither yes nor no
        topic = parents[-1][1] if parents else ()
        attribute = Attribute(words, value, Span(m.start(), m.end()), topic)
        found.setdefault((words, topic), []).append(attribute)
    if not found:
        return []
    # the context's words outside the listing's pairs
    free_text, cursor = [], 0
    for span in listing:
        free_text.append(context[cursor : span.start])
        cursor = span.end
    free_text.append(context[cursor:])
    outside = _words(" ".join(free_text))
    written = set(outside)
    # written outside: solid ("wifi"), or word by word (looked for only when every word is)
    spelt = [a[0] for (words, _), a in found.items() if all(w in written for w in words)]
    in_words = {a for a, _ in _found(outside, index_attributes(spelt))} if spelt else set()
    out = []
    for (words, _), attributes in found.items():
        if len({a.value for a in attributes}) > 1:
            continue
        if "".join(words) in written or attributes[0] in in_words:
            continue
        out.append(attributes[0])
    return sorted(out, key=lambda a: a.span.start)


def _negated(fact: Fact, answer: str, start: int) -> bool:
    """Whether the fact denies what its words at answer offset ``start`` name."""
    if fact.negated:
        return True
    before = [s.text(answer) for s in fact.relation_spans]
    before += [answer[s.start : min(s.end, start)] for s in fact.object_spans if s.start < start]
    return any(w in _NEGATORS or w.endswith(("n't", "n’t")) for w in _words(" ".join(before)))


@dataclass(frozen=True)
class _Mention:
    attribute: Attribute
    span: Span  # the attribute's words in the answer
    negated: bool
    only: bool  # the fact says nothing but the attribute


def _mention(fact: Fact, answer: str, index: AttributeIndex, listed: set[str]) -> _Mention | None:
    """The attribute the fact's relation and object name (their words in the answer's order,
    across the parts: "is good for | groups"; one in the object first, what a refinement
    adds), with the fact's polarity."""
    parts = sorted(fact.relation_spans + fact.object_spans)
    tokens = [t for p in parts for t in _WORD_RE.finditer(answer, p.start, p.end)]
    words = [t.group().lower() for t in tokens]
    said = set(words) | set(_words(" ".join(s.text(answer) for s in fact.subject_spans)))
    in_relation = {
        t.start() for p in fact.relation_spans for t in _WORD_RE.finditer(answer, p.start, p.end)
    }
    found: list[tuple[Attribute, tuple[int, int]]] = []
    for attribute, at in _found(words, index):
        if attribute.topic and not said & set(attribute.topic):
            continue  # a nested attribute counts only beside its parent's name
        found.append((attribute, at))
    if not found:
        return None
    in_object = [f for f in found if tokens[f[1][1] - 1].start() not in in_relation]
    attribute, at = (in_object or found)[0]
    span = Span(tokens[at[0]].start(), tokens[at[1] - 1].end())
    # the rest of the relation: verbs of having, or what the chain's coarser facts said
    # ("has free Wi-Fi and | takeout"); the rest of the object: fillers and its parent's name
    relation_words = _HAVING | _NEGATORS | _FILLERS | listed
    object_words = _FILLERS | _NEGATORS | set(attribute.topic)
    only = all(
        w in (relation_words if t.start() in in_relation else object_words)
        for k, (t, w) in enumerate(zip(tokens, words, strict=True))
        if not at[0] <= k < at[1]
    )
    return _Mention(attribute, span, _negated(fact, answer, span.start), only)


def judge_attributes(
    verdicts: Sequence[FactVerdict], answer: str, context: str
) -> list[FactVerdict]:
    """``verdicts`` with every fact that names a listed attribute relabelled by it (see the
    module docstring): ``contradicted`` (``attribute_conflict``) when its polarity is the
    listing's opposite, ``unverifiable`` (``attribute_unknown``) when the listing leaves the
    attribute unknown, ``supported`` (``attribute``) when it agrees, says nothing else and
    only the verifier, grounding or an absent name failed it."""
    attributes = context_attributes(context) if verdicts else []
    if not attributes:
        return list(verdicts)
    index = index_attributes(attributes)
    listed = {w for a in attributes for w in a.words}
    out = []
    for verdict in verdicts:
        mention = _mention(verdict.fact, answer, index, listed)
        if mention is not None:
            pair = mention.attribute.span
            evidence = Evidence(pair.start, pair.end, pair.text(context))
            value = mention.attribute.value
            if value is None:
                verdict = relabel(
                    verdict, "unverifiable", "attribute_unknown", evidence, [mention.span]
                )
            elif value == mention.negated:
                verdict = relabel(
                    verdict, "contradicted", "attribute_conflict", evidence, [mention.span]
                )
            elif mention.only and verdict.label != "supported" and verdict.decided_by in VOUCHABLE:
                verdict = relabel(verdict, "supported", "attribute", evidence)
        out.append(verdict)
    return out


def sentence_attribute_conflicts(
    answer: str, span: Span, index: AttributeIndex
) -> list[tuple[Attribute, Span]]:
    """The listed attributes a sentence without facts (judged whole) names against the
    listing: each it says yes to that the listing says no to or leaves unknown, with its words
    in the answer ("with upscale and trendy elements" against ``'Ambience': {'upscale': False,
    'trendy': False}``). Only a sentence that denies nothing is read — with no facts, which
    words a "not" governs is unknown ("does not offer reservations or outdoor seating, but has
    WiFi"); a nested attribute only where the sentence names its parent."""
    tokens = list(_WORD_RE.finditer(answer, span.start, span.end))
    words = [t.group().lower() for t in tokens]
    if any(w in _NEGATORS or w.endswith(("n't", "n’t")) for w in words):
        return []
    said = set(words)
    out = []
    for attribute, at in _found(words, index):
        if attribute.value is True or (attribute.topic and not said & set(attribute.topic)):
            continue
        out.append((attribute, Span(tokens[at[0]].start(), tokens[at[1] - 1].end())))
    return sorted(out, key=lambda found: found[1].start)
