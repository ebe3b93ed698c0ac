"""Premises that refer to the hypothesis's name without writing it, restated with the name.

The shipped verifier learned from SNLI that another subject means another event: against "The
lake has been a protected nature reserve since 1987." it reads "Lake Sorvanne has been a nature
reserve since 1987." as a contradiction (0.99), and so against "It was founded in 1998." for
"Norvik Systems was founded in 1998." — while "It (Norvik Systems) was founded …" or the name
itself gives entailment (0.99); "Holt said profits rose by 4%." against "Dana Holt said profits
rose by 4%." is a contradiction too (0.97). A premise cut out of its context (one sentence, or a
window that starts after the name) loses what its "it" or "the lake" refers to. Three references
are restated, each only where the antecedent is plain, before the pair goes to NLI (the evidence
offsets and text stay the context's):

- **"the <kind>"** where the kind is the head word of a name the hypothesis writes ("the lake"
  for "Lake Sorvanne", "the bridge" for "Halden Bridge"), the context names it before the
  premise, and no other name in the context carries that word ("Lake Ettmark" beside "Lake
  Sorvanne" leaves "the lake" alone);
- **a pronoun opening the premise** ("It", "He", "She"; "Its", "His", "Her" as "<name>'s")
  where the sentence before it in the same passage opens with the hypothesis's name, after a
  time or place said first or not ("In 1998, Norvik Systems was founded …"), or a run of
  sentences opening with the same pronoun leads back to one that does;
- **a name said short** by its last word ("Holt", "Ms Holt" for "Dana Holt"; a club's, a
  place's or a thing's first when its last is its kind: "Corran" for "Corran Athletic",
  "Greyhollow" for "Greyhollow Tunnel") where the context writes the whole name and no other
  name with that word, and the name does not open with "New", "North" and the like.

A wrong hypothesis stays wrong: only a name the hypothesis writes is ever put in, and only where
the context says plainly that the premise speaks of it.

The answer's side has the mirror problem: a fact whose subject is "it", "he", "she" or "they"
is a hypothesis about anything. :func:`restate_answer_pronouns` restates it with the subject the
answer opened with, where that subject plainly agrees with the pronoun.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence

from enoki_hd.types import Fact, Span
from enoki_hd.verify.grounding import is_plain_word

__all__ = ["hypothesis_names", "resolve_references", "restate_answer_pronouns"]

_TOKEN = re.compile(r"[A-Za-z](?:[\w'’&-]|\.(?=\w))*")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_JOINERS = _words("of de du da del der van von la le")
_LEADING = frozenset({"The", "A", "An"})
# the head words of names that say what kind of thing the name names, and so are what a text
# calls it once named ("Lake Sorvanne" ... "the lake"); a name's word that names something else
# ("Blaze Pizza", "Spudnuts & Bagels": "the pizza" is a pizza) is never read as a reference
_KINDS = _words(
    """
    academy act agency airport album alliance archipelago arena assembly association authority
    award band bank basin battle bay beach board bridge brigade building bureau campaign canal
    cape castle cathedral cave center centre chapel church circuit clinic club college
    commission committee company complex conference congress consortium convention corporation
    council county court creek dam department desert district dock election embassy estate
    exhibition expedition facility factory farm federation festival film firm forest fort
    forum foundation fund gallery garden glacier group hall harbor harbour highway hospital
    hotel house institute institution island lab laboratory lake league library lighthouse
    line mall manor market marsh memorial mill mine ministry mission monastery monument
    mosque motorway mountain museum observatory office orchestra order palace park parliament
    partnership pass peninsula pier plan planetarium plant plaza port prison prize
    programme program project railway range regiment reservoir river road school series
    settlement ship society squadron stadium station strait street studio summit survey
    synagogue team temple terminal theater theatre tower trail treaty tribunal trust tunnel
    union university valley village war zoo
    """
)
_SUBJECT_PRONOUNS = {"It": "", "He": "", "She": "", "Its": "'s", "His": "'s", "Her": "'s"}
# the pronouns of one referent, subject and possessive
_FAMILY = {"It": ("It", "Its"), "Its": ("It", "Its"), "He": ("He", "His"), "His": ("He", "His")}
_FAMILY |= {"She": ("She", "Her"), "Her": ("She", "Her")}
_PRONOUN = re.compile(r"(It|He|She|Its|His|Her) (?=[a-z])")
_LOOK_BACK = 3
# a time or place said before a sentence's subject: "In 1998, ", "After the war, ", "Today, "
_INTRODUCTION = re.compile(
    r"^(?:(?:In|On|At|After|Before|During|Since|From|By|Until|Following|Later|Today|"
    r"Earlier|Meanwhile)\b[^,.;:!?]{0,40}|[Ii]n \d{4}), "
)
_NAME_REACH = 80
# a capitalised word of a name: an initial may keep its dot, no other word ends a sentence
_NAME_WORD = r"(?:[A-Z]\.|[A-Z][\w'’&-]*)"
_RUN_BEFORE = re.compile(rf"((?:{_NAME_WORD} (?:(?:of|de|van|von) )?)*)$")
_RUN_AFTER = re.compile(rf"((?: (?:(?:of|de|van|von) )?{_NAME_WORD})*)")
_MODIFIERS = _words(
    "new old great greater north south east west northern southern eastern western central "
    "upper lower"
)
# the last words of clubs' and towns' names, said short by their first ("Corran Athletic")
_CLUB_KINDS = _words("athletic albion city county rovers town united wanderers")
_TITLES = _words("Mr Mrs Ms Miss Mx Dr Prof Professor Sir Dame Lord Lady")


def _capitalised(word: str) -> bool:
    return word[:1].isupper()


def _runs(text: str, *, opening: bool = False) -> list[tuple[int, int, str]]:
    """``(start, end, name)`` of each run of capitalised words in ``text`` (joined by spaces,
    and by "of", "de", "van" and the like), without a leading "The" or a trailing "'s"; a
    single plain word opening ``text`` ("Headaches go away") is none unless it owns something
    ("Moraine's bronze") or ``opening`` is set."""
    tokens = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(text)]

    def spaced(k: int) -> bool:  # token k and k + 1 stand apart by spaces alone
        return text[tokens[k][1] : tokens[k + 1][0]].isspace()

    runs: list[tuple[int, int, str]] = []
    i = 0
    while i < len(tokens):
        if not _capitalised(tokens[i][2]) or tokens[i][2] in _LEADING:
            i += 1
            continue
        j = i
        while j + 1 < len(tokens) and spaced(j):
            nxt = tokens[j + 1][2]
            if _capitalised(nxt) and nxt not in _LEADING:
                j += 1
            elif (
                nxt in _JOINERS
                and j + 2 < len(tokens)
                and spaced(j + 1)
                and _capitalised(tokens[j + 2][2])
            ):
                j += 2
            else:
                break
        start, end = tokens[i][0], tokens[j][1]
        possessive = text[start:end].endswith(("'s", "’s"))
        if possessive:
            end -= 2
        single_opening = i == j and not text[:start].strip() and not possessive and not opening
        if end > start and not (single_opening and is_plain_word(text[start:end])):
            runs.append((start, end, text[start:end]))
        i = j + 1
    return runs


def hypothesis_names(hypothesis: str) -> list[str]:
    """The names ``hypothesis`` writes, as written (:func:`_runs`)."""
    return list(_names_of(hypothesis))


@functools.lru_cache(maxsize=4096)
def _names_of(hypothesis: str) -> tuple[str, ...]:
    # each hypothesis meets several premises: its names are read once
    return tuple(name for _, _, name in _runs(hypothesis))


def _kind(name: str) -> str | None:
    """The word of ``name`` a definite description would use for it, lower-cased: its last word
    ("Halden Bridge" → "bridge"), the word before "of" ("Battle of Long Island" → "battle") or,
    when the last word is no English word, its first ("Lake Sorvanne" → "lake"); None when that
    word is no kind of thing (:data:`_KINDS`) or the name joins two ("Spudnuts & Bagels")."""
    words = name.split()
    if len(words) < 2 or "&" in words or "and" in words:
        return None
    if "of" in words:
        candidate = words[words.index("of") - 1]
    elif is_plain_word(words[-1]):
        candidate = words[-1]
    else:
        candidate = words[0]
    lowered = candidate.lower()
    return lowered if lowered in _KINDS else None


def _names_with(context: str, word: str) -> set[str]:
    """Every capitalised run in ``context`` holding the capitalised ``word`` (a sentence
    opening with it counts: it may be a name)."""
    capital = word[:1].upper() + word[1:]
    found: set[str] = set()
    for m in re.finditer(rf"\b{re.escape(capital)}\b", context):
        # a name is a few words long: look no further than _NAME_REACH characters either side
        near = context[max(0, m.start() - _NAME_REACH) : m.start()]
        before = _RUN_BEFORE.search(near)
        after = _RUN_AFTER.match(context, m.end(), m.end() + _NAME_REACH)
        run = (before.group(1) if before else "") + capital + (after.group(1) if after else "")
        found.add(" ".join(w for w in run.split() if w not in _LEADING and w not in _TITLES))
    return found


def _same_name(found: str, name: str) -> bool:
    return found == name or found in name or name in found


def _kind_references(premise: str, context: str, start: int, name: str) -> list[tuple[int, int]]:
    kind = _kind(name)
    if kind is None or context.find(name, 0, start) < 0:
        return []
    spans = [(m.start(), m.end()) for m in re.finditer(rf"\b[Tt]he {kind}\b(?![-'’])", premise)]
    if not spans:
        return []
    if any(not _same_name(found, name) for found in _names_with(context, kind)):
        return []
    return spans


def _short_references(premise: str, context: str, name: str) -> list[tuple[int, int]]:
    """Where ``premise`` calls ``name`` by its last word alone ("Holt" or "Ms Holt" for "Dana
    Holt"; "Greyhollow" for "Greyhollow Tunnel", whose last word is its kind), the context
    writes the whole name, and no other name in the context holds that word ("Sam Holt"
    beside "Dana Holt")."""
    words = name.split()
    if len(words) < 2 or words[0].lower() in _MODIFIERS or name not in context:
        return []  # "New Mexican" or "North Korea" is no longer "Mexican" or "Korea"
    # a name is said short by its last word ("Holt"), or by its first when the last says
    # what kind of thing it names ("Greyhollow" for "Greyhollow Tunnel"); never by a word
    # that is the kind itself ("Tunnel tolls rose")
    parts = {words[-1]}
    if words[-1].lower() in _KINDS | _CLUB_KINDS:
        parts = {words[0]}
    parts = {w for w in parts if w.isalpha() and len(w) >= 3 and w.lower() not in _KINDS}
    parts -= _JOINERS | _TITLES
    spans: list[tuple[int, int]] = []
    for start, end, run in _runs(premise, opening=True):
        said = run.split()
        if len(said) == 2 and said[0] in _TITLES:
            said = said[1:]
        if (
            len(said) == 1
            and said[0] in parts
            and all(_same_name(found, name) for found in _names_with(context, said[0]))
        ):
            spans.append((start, end))
    return spans


def _opening_pronoun(
    premise: str, context: str, start: int, sentences: Sequence[Span], first: int, name: str
) -> tuple[int, int, str] | None:
    m = _PRONOUN.match(premise)
    if m is None:
        return None
    pronoun = m.group(1)
    i = bisect.bisect_left(sentences, start, key=lambda s: s.start)
    for j in range(i - 1, max(first, i - _LOOK_BACK) - 1, -1):
        text = sentences[j].text(context).lstrip()
        opening = _INTRODUCTION.sub("", text, count=1)  # "In 1998, Norvik Systems was …"
        opening = opening[4:] if opening.startswith("The ") else opening
        if opening.startswith(name) and not opening[len(name) : len(name) + 1].isalnum():
            return m.start(1), m.end(1), name + _SUBJECT_PRONOUNS[pronoun]
        if not text.startswith(tuple(p + " " for p in _FAMILY[pronoun])):
            return None
    return None


def resolve_references(
    premise: str,
    hypothesis: str,
    *,
    context: str,
    start: int,
    sentences: Sequence[Span],
    first_sentence: int = 0,
) -> str:
    """``premise`` (the context's text from offset ``start``) with its references to a name of
    ``hypothesis`` that it does not write restated as that name (see the module docstring).
    ``sentences`` are the context's sentence spans in order; ``first_sentence`` is the first
    sentence of the premise's passage (a pronoun is never resolved across passages)."""
    edits: list[tuple[int, int, str]] = []
    for name in _names_of(hypothesis):
        if name in premise:
            continue
        edits += [(a, b, name) for a, b in _kind_references(premise, context, start, name)]
        edits += [(a, b, name) for a, b in _short_references(premise, context, name)]
        pronoun = _opening_pronoun(premise, context, start, sentences, first_sentence, name)
        if pronoun is not None:
            edits.append(pronoun)
    if not edits:
        return premise
    edits.sort()
    out: list[str] = []
    position = 0
    for a, b, said in edits:
        if a < position:
            continue  # two names for one reference: the first found stays
        out.append(premise[position:a])
        out.append(said)
        position = b
    out.append(premise[position:])
    return "".join(out)


# The answer's own references, the mirror of the premise's: a fact whose subject is "it", "he",
# "she" or "they" reads as a hypothesis about anything ("It was established in 1912."), so the
# verifier and retrieval see no name. Its hypothesis is restated with the subject the answer
# opened with, where that subject plainly agrees with the pronoun.
_ANSWER_PRONOUNS = {"it": "thing", "he": "person", "she": "person", "they": "plural"}
_NOT_ANTECEDENTS = _words(
    "it he she they we you i this that these those there which who what one each all some none"
    # a verb in the phrase: the extractor cut the subject badly ("antennae are appendages")
    " is are was were be been has have had do does did will would can could"
)
# "it" that stands for nothing, a clause put after the verb: "It is believed that …", "it is
# unclear when …", "It's important to note …"
_EXPLETIVE_IT = re.compile(
    r"it(?:['’]s|\s+(?:is|was|seems|seemed|appears|appeared|remains|remained|has\s+been|"
    r"had\s+been|(?:will|would|may|might|could|can|should|must)\s+be))\s+"
    r"(?:(?:not|also|still|now|widely|generally|often|commonly|thus|therefore)\s+)*(\w+)",
    re.IGNORECASE,
)
_EXTRAPOSED = _words(
    """believed thought said known reported estimated assumed expected rumoured rumored
    claimed argued suggested noted understood considered recorded documented alleged
    unclear clear likely unlikely possible impossible probable important worth necessary
    essential true false evident obvious apparent certain uncertain unknown interesting
    notable noteworthy difficult hard easy common rare crucial vital surprising
    recommended advisable best better useful"""
)
# a subject's core noun phrase ends before a comma, a relative word or an apposition, and
# before a preposition followed by a lower-case word ("planets in our solar system"), not one
# inside a name ("Battle of Long Island")
_CORE_END = re.compile(
    r",|\s(?:which|who|whose|that|such as|including|like)\b|"
    r"\s(?:of|in|on|at|from|with|for|by|to|about|near|under|over|during)\s(?=[^A-Z])"
)
_ARTICLE_WORDS = _words("the a an")
_POSSESSIVES = _words("his her its their our my your")


def _core(subject: str) -> str:
    end = _CORE_END.search(subject)
    return " ".join((subject[: end.start()] if end else subject).split())


def _agrees(core: str, kind: str) -> bool:
    """Whether the noun phrase ``core`` can be what a pronoun of ``kind`` stands for: a thing
    ("it": a common noun in the singular, or a name whose word says what kind of thing it is,
    "Lake Sorvanne"), a person ("he", "she": a name that is no kind of thing) or a plural
    ("they": a plural common noun or a coordination). A plural name, a possessive pronoun or
    anything else unclear agrees with nothing."""
    words = [w for w in core.split() if w.lower() not in _ARTICLE_WORDS]
    if not words or any(w.lower() in _NOT_ANTECEDENTS for w in words):
        return False
    head = words[-1].lower()
    if not head.isalpha() or head in _POSSESSIVES:
        return False
    name = all(_capitalised(w) for w in words if w not in _JOINERS)
    coordinated = "and" in words or "&" in words or "or" in words
    plural = not name and head.endswith("s") and not head.endswith(("ss", "us", "is"))
    if kind == "plural":
        return plural or (coordinated and not name)
    if coordinated or plural:
        return False
    if kind == "thing":
        return not name or (len(words) > 1 and _kind(" ".join(words)) is not None)
    return name and _kind(" ".join(words)) is None


def _opening_subjects(facts: Sequence[Fact]) -> dict[int, list[tuple[int, str]]]:
    """Per sentence, ``(start, subject)`` of every fact with a subject in the answer, in the
    order the answer writes them."""
    subjects: dict[int, list[tuple[int, str]]] = {}
    for fact in facts:
        if fact.subject_spans and fact.subject.strip():
            start = min(s.start for s in fact.subject_spans)
            subjects.setdefault(fact.sentence, []).append((start, fact.subject))
    for found in subjects.values():
        found.sort()
    return subjects


def _antecedent(
    subjects: dict[int, list[tuple[int, str]]], sentence: int, at: int, pronoun: str
) -> str | None:
    """What the pronoun at answer offset ``at`` stands for: the subject its sentence opens with
    when that comes before it; when the pronoun opens its sentence (or follows only itself),
    the subject the sentence before opens with, through a run of sentences opening with the
    same pronoun; None unless that subject agrees (:func:`_agrees`)."""
    earlier = [subject for start, subject in subjects.get(sentence, []) if start < at]
    back = 0
    while not earlier or earlier[0].strip().lower() == pronoun:
        back += 1
        earlier = [subject for _, subject in subjects.get(sentence - back, [])]
        if back > _LOOK_BACK or not earlier:
            return None
    core = _core(earlier[0])
    return core if _agrees(core, _ANSWER_PRONOUNS[pronoun]) else None


def restate_answer_pronouns(
    facts: Sequence[Fact], hypotheses: Sequence[str], answer: str
) -> list[str]:
    """``hypotheses`` (one per fact, as :func:`~enoki_hd.extract.verbalize.verbalize` writes
    them) with a subject "it", "he", "she" or "they" restated as what it stands for in the
    answer: the subject its sentence opens with, or, when the pronoun opens the sentence, the
    subject the sentence before opens with (through sentences that open with the same pronoun)
    — only where that subject agrees with the pronoun (:func:`_agrees`). "A pork chop is a cut
    of meat, so it has no chromosomes": "It has no chromosomes." → "Pork chop has no
    chromosomes."; "The province was founded in 1912. It lasted until 1924.": "It lasted until
    1924." → "Province lasted until 1924.". An "it" that stands for a clause put after its verb
    ("It is believed that …", "it is unclear when …") is left alone. Only the text judged
    changes: spans, grounding and the structural checks read the fact as the answer writes
    it."""
    subjects = _opening_subjects(facts)
    restated = list(hypotheses)
    for i, (fact, hypothesis) in enumerate(zip(facts, hypotheses, strict=True)):
        pronoun = fact.subject.strip().lower()
        if pronoun not in _ANSWER_PRONOUNS or not fact.subject_spans:
            continue
        if not re.match(rf"{pronoun}\b", hypothesis, re.IGNORECASE):
            continue
        at = min(s.start for s in fact.subject_spans)
        expletive = _EXPLETIVE_IT.match(answer, at)
        if expletive and expletive.group(1).lower() in _EXTRAPOSED:
            continue
        antecedent = _antecedent(subjects, fact.sentence, at, pronoun)
        if antecedent:
            rest = hypothesis[len(pronoun) :]
            restated[i] = antecedent[:1].upper() + antecedent[1:] + rest
    return restated
