"""A name the answer gives a thing is checked as a whole: "also known as Thomas the Spaniard".

LLMs invent second names: "Thomas of Cana, also known as Thomas the Spaniard", "The
alternative name for the mink frog is the northern mink frog" (the context: "sometimes
referred to as the north frog"), "The team is called Club Deportivo Tecos UAG". A name is
right or wrong as a whole — "northern mink frog" is not a paraphrase of "north frog", and the
context's "Thomas" does not vouch for "Thomas the Spaniard" — but each of its words may occur
in the context, so word grounding passes it and the small verifier reads a near match as
support.

:func:`alias_spans` finds the names an answer gives after a naming cue: "also known as",
"known as", "a.k.a.", "also called", "is called", "nicknamed", "dubbed", "referred to as",
"named" ("a commander named Robertson"; not "named after", nor after an auxiliary or an
adverb: "was named Player of the Year", "was also named 2008 Best Soundtrack" are awards),
"renamed", "rebranded as", "changed its name to", and "the alternative / other / common /
scientific … name for X is". After a cue that only ever introduces a name ("also
known as", "also called", "a.k.a.", "… name for X is"), the name runs to the first
punctuation mark or clause word ("is", "which", "in", "on", …), six words at most, a leading
article aside: "also known as the jewel oak gall wasp is …". After the other cues it must open
with a capital letter or a digit ("known as the best player of his generation" is a
description) and runs over the capitalised words, the particles between them ("Thomas the
Spaniard") and one lowercase word that ends it before punctuation ("Nepenthes changhi)"):
"Robertson" of "a commander named Robertson led them". A quoted name is what the quotation
marks hold.

:func:`quoted_names` reads what double quotation marks hold as one name too (a title, a term
or a phrase quoted from the source, eight words at most: "La Dolce Vita", "Wipe
Data/Factory Reset"; not a cut, "[...]"): a quotation the context does not hold whole is
misquoted or invented, whatever its words.

:func:`unfound_aliases` keeps those the context does not hold whole (case, quotation marks,
hyphens, "&"/"and", possessive and plural endings aside; a leading article optional). The
detector makes a sentence that holds such a name at least ``unverifiable``
(:func:`flag_unfound_names`, method ``alias``; a sentence flagged already keeps its label and
score), blames the name whole in a flagged sentence (:func:`blame_names`), and grows a flagged
span that touches the name to all of it (:func:`~enoki_hd.project.finish_spans`), as a date
does. The facts are left as they were judged: a fact made to fail on the name at the threshold
would suppress its refinements that failed worse, and lower the sentence's score.
"""

from __future__ import annotations

import re
from dataclasses import replace

from enoki_hd.text import fold_compat, normalize_term
from enoki_hd.types import HallucinatedSpan, SentenceVerdict, Span


def _words(words: str) -> frozenset[str]:
    return frozenset(words.split())


_STRONG_CUE = (
    r"also\s+known\s+as|also\s+called|a\.k\.a\.?|aka|"
    r"(?:alternative|alternate|other|another|common|scientific|official|full|local|popular|"
    r"nick|second|former|original)\s*name\s+(?:for|of)\s+[^.;:!?\n]{1,60}?\s+(?:is|was)"
)
_WEAK_CUE = (
    r"(?:better|commonly|popularly|formerly|locally|widely|now|later|originally|often|"
    r"sometimes|simply)?\s*known\s+as|(?:is|was|are|were|be|being|been|now|often|sometimes|"
    r"commonly|also|originally|formerly|locally|officially)\s+called|nicknamed|dubbed|"
    r"referred\s+to\s+as|named|renamed(?:\s+(?:as|to))?|rebranded(?:\s+(?:as|to))?|"
    r"(?:changed|changes|change|changing)\s+(?:its|their|his|her)\s+name\s+to"
)
_CUE_RE = re.compile(
    rf"\b(?:(?P<strong>{_STRONG_CUE})|(?P<weak>{_WEAK_CUE}))(?=\s)", flags=re.IGNORECASE
)
# words that end a name: a verb, a clause word, a preposition opening a new phrase
_BOUNDARY = _words(
    "is was are were be been being has have had do does did will would can could may might "
    "and or but nor which who whom whose that in on at for from by with to because since after "
    "before during as than while when where it he she they its his her their due although "
    "though if until via them him us me you"
)
_ARTICLES = frozenset({"the", "a", "an"})
# lowercase words inside a proper name: "Thomas the Spaniard", "Rocca dei Rettori"
_PARTICLES = _words(
    "the of de del della dei di da das dos du des van von der den la le y al bin ibn and"
)
_DESCRIPTION_RE = re.compile(r"\s+(?:a|an|one)\s", flags=re.IGNORECASE)
# "named" names after a common noun ("a commander named Robertson"), not after an auxiliary
# or a name ("was named Player of the Year", "Sachin Lawande Named VP")
_NAMING_NOUN_RE = re.compile(
    r"\b(?!(?:is|was|are|were|be|been|being|has|have|had|get|got|gets|newly|just|recently|"
    r"also|later|subsequently|once|officially|formally|again|first|jointly|twice)\b)"
    r"[a-z][a-z'’-]*\s+$"
)
_WORD_RE = re.compile(r"[^\s,.;:!?()\[\]{}\"“”]+")
_QUOTED_RE = re.compile(r"\s*[\"“]([^\"“”\n]{1,80})[\"”]")
_MAX_WORDS = 6


def alias_spans(answer: str) -> list[Span]:
    """The spans of ``answer`` that hold a name it gives after a naming cue (the module
    docstring), a leading article and enclosing quotation marks aside."""
    out: list[Span] = []
    for cue in _CUE_RE.finditer(answer):
        start = cue.end()
        quoted = _QUOTED_RE.match(answer, start)
        if quoted:
            inner = quoted.group(1).strip(" ,.;:")
            if inner:
                first = quoted.start(1) + quoted.group(1).index(inner)
                out.append(Span(first, first + len(inner)))
            continue
        strong = cue.group("strong") is not None
        if not strong and _DESCRIPTION_RE.match(answer, start):
            continue  # "known as a Major League pitcher": a description
        if cue.group(0).lower() == "named" and not _NAMING_NOUN_RE.search(answer, 0, cue.start()):
            continue  # "was named Player of the Year", "Lawande Named VP": an appointment
        span = _unquoted_name(answer, start, strong=strong)
        if span is not None:
            out.append(span)
    return out


def _unquoted_name(answer: str, start: int, *, strong: bool) -> Span | None:
    """The name that runs from ``start``: words up to the first punctuation mark, line break
    or clause word, six at most, a leading article skipped; None when there is none or (after
    a weak cue) it opens with no capital or digit."""
    words: list[re.Match[str]] = []
    position = start
    while len(words) < _MAX_WORDS + 1:
        gap = re.match(r"[ \t]*", answer[position:])
        assert gap is not None
        at = position + gap.end()
        word = _WORD_RE.match(answer, at)
        if word is None or (at == position and words):
            break
        words.append(word)
        position = word.end()
    if words and words[0].group(0).lower() in _ARTICLES:
        words = words[1:]
    name: list[re.Match[str]] = []
    for word in words:
        if word.group(0).lower() in _BOUNDARY:
            break
        name.append(word)
    if not name or len(name) > _MAX_WORDS:
        return None
    opening = name[0].group(0)
    if strong:
        return Span(name[0].start(), name[-1].end())
    if not (opening[:1].isupper() or opening[:1].isdigit()):
        return None
    name = _proper_run(answer, name)
    return Span(name[0].start(), name[-1].end())


def _proper_run(answer: str, name: list[re.Match[str]]) -> list[re.Match[str]]:
    """The words of ``name`` (which opens with a capital) that read as one proper name: its
    capitalised words, the particles between two of them ("Thomas the Spaniard", "Rocca dei
    Rettori"), and one lowercase word after them that ends the name before punctuation
    ("Nepenthes changhi)", "the Kamakura period."); "Robertson" of "named Robertson led
    them"."""
    kept = [name[0]]
    for k, word in enumerate(name[1:], start=1):
        text = word.group(0)
        if text[:1].isupper() or text[:1].isdigit():
            kept.append(word)
            continue
        following = name[k + 1] if k + 1 < len(name) else None
        if text.lower() in _PARTICLES and following is not None:
            if following.group(0)[:1].isupper():
                kept.append(word)
                continue
            break
        ends = following is None and not re.match(r"[ \t]+\w", answer[word.end() :])
        if ends:
            kept.append(word)
        break
    return kept


def _normal(text: str) -> str:
    """``text`` in the form names are compared in: compatibility-folded, quotation marks
    dropped, hyphens as spaces, "&" as "and", each word by :func:`normalize_term`."""
    text = fold_compat(text).replace("&", " and ")
    text = re.sub(r"[\"“”‘’'`]+(?=\s|$)|(?<=\s)[\"“”‘’'`]+|^[\"“”‘’'`]+", " ", text)
    words = re.findall(r"[^\W_]+(?:['’][^\W_]+)*", text.replace("-", " "))
    return " ".join(normalize_term(w) for w in words)


# a title or a quoted phrase: what double quotation marks hold, up to eight words
_QUOTED_NAME_RE = re.compile(r"[\"“]([^\"“”\n]{1,80}?)[\"”]")
_QUOTED_MAX_WORDS = 8


def quoted_names(answer: str) -> list[Span]:
    """The spans of ``answer`` that double quotation marks hold (a title, a term, a phrase
    quoted from the source: "La Dolce Vita", "Wipe Data/Factory Reset"), eight words at most,
    trailing punctuation aside; not one that marks a cut ("[...]")."""
    out = []
    for match in _QUOTED_NAME_RE.finditer(answer):
        inner = match.group(1).strip(" ,.;:!?")
        if not inner or "[" in inner or len(inner.split()) > _QUOTED_MAX_WORDS:
            continue
        start = match.start(1) + match.group(1).index(inner)
        out.append(Span(start, start + len(inner)))
    return out


def unfound_aliases(answer: str, context: str) -> list[Span]:
    """The names of :func:`alias_spans` and :func:`quoted_names` that ``context`` does not
    hold whole (a leading article optional)."""
    spans = alias_spans(answer)
    spans += [q for q in quoted_names(answer) if not any(q.overlaps(s) for s in spans)]
    if not spans:
        return []
    held = f" {_normal(context)} "

    def found(span: Span) -> bool:
        name = _normal(answer[span.start : span.end])
        first, _, rest = name.partition(" ")
        bare = rest if first in _ARTICLES else name
        return f" {name} " in held or f" {bare} " in held

    return sorted((s for s in spans if not found(s)), key=lambda s: (s.start, s.end))


def flag_unfound_names(
    sentences: list[SentenceVerdict], names: list[Span], threshold: float
) -> list[SentenceVerdict]:
    """``sentences`` with each ``supported`` one that holds one of ``names`` (the answer's
    names the context lacks, :func:`unfound_aliases`) made ``unverifiable`` at the threshold
    at least (method ``alias``). A sentence flagged already keeps its label and score: the
    check only ever raises one."""
    out = []
    for sentence in sentences:
        held = any(sentence.span.start <= n.start and n.end <= sentence.span.end for n in names)
        if sentence.label != "supported" or not held:
            out.append(sentence)
            continue
        score = round(max(sentence.score, threshold), 6)
        out.append(replace(sentence, label="unverifiable", score=score, method="alias"))
    return out


def blame_names(
    answer: str,
    sentences: list[SentenceVerdict],
    spans: list[HallucinatedSpan],
    names: list[Span],
) -> list[HallucinatedSpan]:
    """``spans`` plus each of ``names`` that lies in a flagged sentence, blamed whole with the
    sentence's score and label (merged by the rule of
    :func:`~enoki_hd.project.merge_hallucinated`)."""
    from enoki_hd.project import merge_hallucinated

    extra = [
        (name, sentence.score, sentence.label)
        for sentence in sentences
        if sentence.label in ("contradicted", "unverifiable")
        for name in names
        if sentence.span.start <= name.start and name.end <= sentence.span.end
    ]
    return merge_hallucinated(answer, spans, extra) if extra else spans
