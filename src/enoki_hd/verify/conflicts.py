"""Structural conflicts: a fact whose words all occur in its evidence, arranged so that the
evidence says the opposite — what word overlap cannot see and a small NLI model often misses.

Seventeen checks, each on one evidence sentence at a time, on surface word order (no parse), each
firing only when it is sure; silence means "no conflict found", never "supported":

- **role reversal**: the fact says *S R O* ("Harbor Bank bought Crestline Credit"), an
  evidence sentence says *O R S* in the active voice ("Crestline Credit bought the regional
  lender Harbor Bank") and no evidence sentence says *S R O*. Only for a direct object (a
  relation that does not end in a preposition), arguments that are names or noun phrases
  (no digits, no pronouns; what follows a name that opens the object is set aside when the
  evidence does not hold the whole object: "beat Westmarch United 3–1 on Saturday",
  "acquire Orvane Systems for an undisclosed sum", and the name is blamed), a relation that
  is not symmetric ("married", "met") nor a verb of saying (a quote before "said Danielle
  Busby" is reporting order), and no preposition, passive ("was bought by") or clause
  boundary between the relation and *S*.
  The same for a name after a preposition of the fact's object ("from", "to", "for",
  "against", "into"; not "with", mostly symmetric, nor "by"): "Hansol Cells imports its
  battery cells from Velmora Electric" against "Velmora Electric imports its battery cells
  from the Korean supplier Hansol Cells" — the evidence says *N R … p S* (the preposition at
  most eight words after the relation, *S* at most four after it, no clause word,
  preposition or punctuation between) and none says *S R … p N*.
- **exception**: the evidence states the relation for all but *X* ("open every day except
  Mondays") and the fact states it for *X* ("open on Mondays"): the fact's subject and
  relation words occur before ``except`` / ``other than`` / ``apart from`` / ``excluding``,
  and a content word of the fact's object follows it.
- **negation**: the fact's subject, relation and object words occur in one evidence sentence
  in that order with a negation between subject and relation ("the drug is not approved for
  children"; not one between two commas, "The company, not its rival, built the bridge";
  not a sentence that excepts the fact's subject, "All staff except managers must attend"
  for "Managers do not have to attend"), and the fact is not negated — or the fact is
  negated and an evidence sentence states it without any negation; or the evidence denies
  the fact's subject as a whole where the fact states it of some ("Several passengers were
  injured" against "None of the passengers were injured" or "No passengers were injured";
  the fact's quantifier left out).
- **direction**: the fact's relation holds a word of one direction ("rose", "before", "won",
  "approved") and an evidence sentence, without negation and without any word of that
  direction, has a word of the opposite one ("fell", "after", "lost", "rejected") at most six
  words after the fact's subject. A fact whose relation has no word of its own ("were",
  "had") reads its object's leading comparative instead: "Bass violins were smaller" against
  "Bass violins were usually somewhat larger than the modern cello" (pairs of whole words,
  "larger" / "smaller", "higher" / "lower", "older" / "younger", …; not "more" / "less").
  Not a sentence that excepts the fact's subject or object ("The shop is open every day
  except Sunday" for "The shop is closed on Sunday"), and not a sentence of opening hours
  for an opening or closing at a time of day ("The library closes at 5 p.m." against "The
  library is open from 09:00 to 17:00": both give hours; the values are compared, not the
  words "open" and "close"). A fact with a number is read by its
  value first: when the word that gives that number in an evidence sentence ("fell by 6%",
  "fell to nearly 240": the word before it, past "by", "to", "nearly", …) is of the
  opposite direction, in a clause that names no other subject ("…, while imports of
  seaweed into the county fell by 6%" for "Imports of seaweed into Halvorsen County rose by
  6%", whatever rose before the "while"), and no evidence sentence gives the number in the
  fact's direction, the fact is contradicted.
- **value role**: the fact states a value for its relation ("online sales grew 8%"), an
  evidence sentence gives the same relation of the same subject another value of that kind
  ("Online sales, however, grew 12%") and no evidence sentence gives it the fact's value —
  the fact took a value the context states for something else ("Sales fell 8%"). Only for an
  object with exactly one number or date, a subject that is a name or noun phrase, a relation
  with a content word, and neither side negated; only in the order subject, relation, value:
  the subject's head word (its last word before a preposition) at most six words before the
  relation word with no clause word, semicolon, negation or value between, and the value at
  most eight words after it before any clause word or punctuation (a coordinated value, "and
  7% in the second", is given the same relation); not from a sentence whose subject carries
  another ordinal ("The author's first novel was published in 1990" for "Her second novel").
  The relation word is found in the words of its group too ("named" / "appointed", "bought"
  / "acquired" / "purchased", "began" / "started", "finished" / "ended" / "concluded", "led" /
  "headed" / "directed" / "conducted", "hired" / "recruited", "built" / "constructed",
  "founded" / "established"), for this check, the next and the agent check; verbs of
  direction are no group ("rose by 60" and "grew from 180 to 240" give one change two
  ways).
- **pairing**: the fact pairs a value with a name ("Ankle swelling was reported by 11% of
  patients taking Corvastin"; "Sales grew 8% in Asia") that an evidence sentence pairs with
  another value in a parallel structure, giving the fact's value to another name ("… by 11%
  of patients taking Luvadipine and by 2% of those taking Corvastin"; "Sales grew 8% in
  Europe and 5% in Asia"): a value's name is the first name after it before the next value
  (the last one before it when the fact writes the name first), the two pairs tied by the
  same word ("taking" / "taking", "in" / "in"), values of one kind (percentages, money,
  years, plain numbers; a number after a capitalised word is a model's, "AirPure 500").
  Only for a fact with one value and one name (a fact with a value and no name reads the
  answer's words right after it, up to a punctuation mark: the rules cut "11% of patients"
  and "patients taking Corvastin" apart); not when an evidence sentence pairs them as the
  fact does or another sentence holds them both. The name is blamed (the fact's words
  when the name is not among them).
- **name role**: the value-role check for a name — the fact gives its relation a name ("The
  concert will be conducted by Amara Quist"), an evidence sentence gives the same relation
  of the same subject another name in the same slot ("The opening concert will be conducted
  by Jonas Berg"; a title of one or two lower-case words may stand before it: "designed by
  the engineer Tomas Lind") and does not hold the fact's name anywhere, and no such sentence
  gives the fact's name. Only for an object that is a name (capitalised words, at most
  four, no digit), the subject and relation words the value-role check reads, and an
  evidence sentence that holds every word of the fact's subject ("the closing concert" is not
  "the opening concert"), its slot opening with the preposition the relation ends in, or
  with none for a direct object ("composed the soundtrack for X" gives no "composed … by");
  the name is blamed. A slot's name that may be the fact's, as the agent check compares names
  (initials, "UK" for "the United Kingdom", "ESA" for "the European Space Agency", or a word
  in common), is no rival. An object that opens with a name and goes on (the tagger's
  "Martin Oyelaran as its new chief scientific officer"), when the evidence does not hold
  it whole, is read as that name, as the role check reads it; not a list of names ("Lita
  Stantic and Pablo Trapero").
- **agent**: the name-role check for the fact's subject — the fact gives its relation and
  object to a name ("Ana Ruiz scored the winning goal"), an evidence sentence gives the same
  relation and object to another name right before the relation word ("Carla Mendes scored
  the winning goal in the 88th minute"; the relation read by its first content word, its
  verb; auxiliaries between allowed, not a passive), and no
  evidence sentence that gives the relation that object holds the fact's name — even when
  the name is elsewhere in the evidence ("Her teammate Ana Ruiz was sent off"), which a small
  verifier reads as support (entailment 0.99). Only for a root fact (a refinement's root
  carries its agent), a direct object that opens with a clear noun phrase (its words up to a
  preposition, clause word or punctuation are compared), and names that cannot be
  one: no shared word but a kind of name ("Lund University" / "Uppsala University" differ,
  "Mendes" / "Carla Mendes" do not), neither the other's initials or shortening ("IBM",
  "Fed"), no pronoun ("He scored …" may be her), and no one plain English word that opens a
  sentence ("Livestock played a significant role": a capital there says nothing of a name,
  unless the evidence writes the word capitalised inside a sentence). ``contradicted`` when
  the object is definite ("the winning goal", a name, a possessive), ``unverifiable`` when
  not ("Smith won a medal" leaves room for Jones's); the name is blamed. The relation is
  found in the words of its group too (as for the value-role check; "lead" / "direct" /
  "conduct" among them), the evidence's name may stand in apposition between commas ("The
  principal conductor, Tobias Reinholt, will lead the opening concert"), and a passive fact
  with its agent is read in the active voice ("The opening concert will be conducted by
  Amara Quist" as "Amara Quist conducted the opening concert"; ``contradicted`` when the
  answer's subject is definite, "The opening concert").
- **dropped hedge**: the fact states plainly what an evidence sentence states only under a
  hedge between the same subject and relation ("the checklist reduces readmissions" against
  "a checklist may reduce readmissions"), and no evidence sentence states it plainly. The fact
  is ``unverifiable``, not contradicted: the evidence allows it, it does not establish it. A
  fact under a modal that hedges ("may", "could", "can", "would", "should") is hedged itself;
  "will", "shall" and "must" state it plainly ("will extend" against "may extend"). The
  same for a verb of proof: "The rise in sulphur dioxide confirms that magma is moving toward
  the surface" ("confirms", "proves", "shows", "demonstrates", "establishes" and a "that"
  clause) against "… could signal that magma is moving closer to the surface" — every
  content word of the clause after a "that" with a hedge at most four words before it, and
  no sentence giving the clause after a verb of proof without one.
- **uniqueness**: the fact makes its subject the only or main one ("runoff is the main
  source", "caused solely by", "the barrier alone"; "is the cause", "the reason", "the
  source" with a bare form of "be" — the "the" read from the answer when the fact left it
  out) and an evidence sentence without such a word makes it one of several ("lists runoff
  as one of several sources"; "is thought to be one of a number of factors" for "the
  cause").
- **antonym**: the fact reads as an evidence sentence with one word swapped for its
  opposite ("Cabourg is the least stately of the old Channel resorts" against "Cabourg is the
  most stately …"; "Lean retailing implies a dramatic increase in inventory" against "… a
  dramatic reduction in the amount of inventory"): every content word of the fact but one
  is in the sentence, the sentence has an opposite of that one (a table of pairs: "longest" /
  "shortest", "good" / "bad", "include" / "exclude", "buy" / "sell", "east" / "west", …; or
  the word under a negating prefix: "intended" / "unintended", "profit" / "non-profit")
  beside a word that stands beside it in the fact, and neither the sentence nor the fact
  holds a negation or "than" (a comparison said the other way round with the opposite word
  is the same claim). At least three content words in the fact; not when the answer itself
  holds the opposite word ("all male or all female", split into two facts).
- **quantifier**: the fact says its relation of all of a group ("All of the bank's branches
  will keep their Saturday opening"; "all", "every", "each" opening the subject) and an
  evidence sentence says it of part of that group: a word of part ("most", "half", "a
  majority", "few"; "some", "many", "several") at most five words before the group's noun,
  no "all" / "every" / "each" between, and one of the fact's relation or object words after
  the noun in its clause (before a clause word or semicolon): "Most of the 14 branches of
  the bank will stay open on Saturdays"; no evidence sentence says it of all of them.
  ``contradicted`` after "most", "half", "a majority", "a minority", "few" (the evidence
  says not all); ``unverifiable`` after "some", "many", "several", which leave room for all.
- **identity**: the fact names who or what holds a role the answer gives with a definite
  article or possessive ("The capital of France is Lyon", "Lyon is the capital of France"),
  an evidence clause (up to a semicolon) gives the same role to someone else with "is" /
  "was" in the fact's tense ("Paris is the capital of France"; "Its director is Anna Berg"
  for "the director of the museum"; "was" the director then is no conflict with "is" now),
  and no evidence clause holds the fact's name beside the role's noun ("Some say Lyon is the
  capital"). Only for a relation that is a bare form of "be", a name on one side (capitalised
  words) and on the other a lower-case noun phrase of at most six words; the evidence's role
  words (its head noun included) must all be the fact's, and the two names must share no word
  ("Shakespeare" is "William Shakespeare"). Needs the answer (``find_conflict(...,
  answer=...)``), which tells a definite role ("the capital") from an indefinite one ("a city
  in France", which many names can be).
- **comparison**: the answer compares two things with a comparative and "than" ("Headaches
  were more frequent with the older tablet than with the new one"; "The Falcon is faster
  than the Osprey") and an evidence sentence makes the same comparison, on the same topic,
  the other way round ("… more frequent with the new tablet than with the older one"): the
  words that tell the two apart sit on the opposite sides of "than". Only the fact whose
  relation holds the comparative and whose object (or, when the answer compares subjects,
  subject) holds a compared word; only the same comparative ("more frequent", "faster"), so
  "lower than" for "higher than" the other way round (the same claim) is never read as one.
  Needs the answer (``find_conflict(..., answer=...)``). ``contradicted``, as a role reversal.
- **duration**: the fact gives a length in years ("Årdal directed the Kingsreach Observatory
  for 22 years") and an evidence sentence that holds the fact's subject and all its other
  content words but one (a word's family counts: "directed" / "director") dates it by two
  years more than a year apart from that ("served as director … from 1996 until her
  retirement in 2014": 18 years; "from … to", "between … and"); no evidence sentence gives
  the fact's length. Only a length stated plainly ("for", "lasted", "spent" right before the
  number; "for nearly 22 years" is the verifier's), a sentence with one such period and no
  negation. The length is blamed. (The right length is supported the other way: restated
  as the period, :mod:`enoki_hd.verify.periods`.)
- **status**: the fact puts still to come an event an evidence sentence says has happened
  ("The Tessaly Bridge is expected to reopen to traffic" against "The Tessaly Bridge, which
  had been closed since …, reopened to traffic last month"), or says has happened one an
  evidence sentence puts still to come ("HMS Corrigan has completed its sea trials" against
  "Sea trials are planned for next year"). Still to come: "will", "is" / "are" "expected",
  "due", "scheduled", "set", "planned", … "to", "plans to", "intends to"; happened: a past
  form ("reopened", "built") or a participle after "has" / "was", with no modal, "to",
  negation or word of expectation in the four words before it. The event is the fact's verb
  (its family) with its subject before it and the head of its object at most eight words
  after; for a fact whose verb says its object took place ("completed", "held",
  "conducted", …), also that object as what "is planned" / "are scheduled" / "will" … (its
  subject named in that sentence or the one before). Not when an evidence
  sentence states the event as the fact does, nor for another instance ("plans to hire 300
  more", "further sea trials are planned"), nor for a negated fact. The future's words or
  the past verb are blamed.
- **order**: the fact puts one event after (before, until) another ("Blood cultures had
  been taken after the patient was started on antibiotics": the relation ends in the word,
  the object is the other event) and an evidence sentence puts them the other way round
  with the same word ("The patient was started on antibiotics after blood cultures had been
  taken"): every content word of the fact's object before the word, every one of its
  subject and relation after it, no negation; none says it as the fact does. At least two
  content words on each side, none shared. ``contradicted``, as a role reversal
  (``decided_by="role_conflict"``).

Words are compared lower-cased with light suffix stripping ("acquired" = "acquires"), a
negative contraction as its verb and "n't", and a phrase is found with determiners aside
inside it ("fire at Lindqvist paper mill" in "the fire at the Lindqvist paper mill"); the
relation is found by its last content word. A fact of the tagger whose relation holds more
than its verb ("Hansol Cells | imports its battery cells from | Velmora Electric", "The
Aldren 7 smartphone | is heavier than | its predecessor") is also checked as the rules
extractor cuts it ("imports | its battery cells from Velmora Electric", "is | heavier than
its predecessor") by the role and direction checks, when it shows no conflict as it is.
Used by :mod:`enoki_hd.verify.judge` in the ``hybrid`` and ``grounding`` modes: a conflict
labels the fact ``contradicted`` (``decided_by="role_conflict"`` / ``"exception_conflict"``
/ ``"negation_conflict"`` / ``"direction_conflict"`` / ``"value_role_conflict"`` /
``"name_role_conflict"`` / ``"agent_conflict"`` / ``"uniqueness_conflict"`` /
``"identity_conflict"`` / ``"quantifier_conflict"`` / ``"antonym_conflict"`` /
``"duration_conflict"`` / ``"status_conflict"`` / ``"pairing_conflict"``), or
``unverifiable`` (``"hedge_conflict"``, an ``"agent_conflict"`` of an indefinite object, a
``"quantifier_conflict"`` after "some", "many", "several").
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Literal

from enoki_hd.text import fold_compat, segment_sentences, tokenize_words
from enoki_hd.types import Fact, Span
from enoki_hd.verify.grounding import (
    compare_value,
    is_plain_word,
    parse_numbers,
    starts_sentence,
    value_of,
)
from enoki_hd.verify.periods import DURATION_RE, elapsed_years, year_count


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


ConflictKind = Literal[
    "role",
    "exception",
    "negation",
    "direction",
    "value_role",
    "name_role",
    "agent",
    "hedge",
    "uniqueness",
    "identity",
    "quantifier",
    "antonym",
    "duration",
    "status",
    "pairing",
]

_DETERMINERS = _set("the a an its their his her our your my this that these those some any")
_PRONOUNS = _set(
    "it he she they we i you him them us me this that these those which who whom what "
    "there here one"
)
_AUXILIARIES = _set(
    "is are was were be been being am 's 're has have had do does did will would shall should "
    "can could may might must also then still already just only first later"
)
_BE_FORMS = _set("is are was were be been being am get got gets")
_NEGATORS = _set("not n't never no cannot neither nor")
# Words that deny by themselves, as a subject or object ("contained none of them").
_NEGATIVE_PRONOUNS = _set("none nothing nobody nowhere")
# Words that deny the verb after them without a "not": "failed to win", "was unable to
# reach", "tried unsuccessfully to contact".
_IMPLICATIVE_NEGATORS = _set("unable failed fails fail refused refuses refuse unsuccessfully")
# ... but not in a comparison: "second to none", "better than nothing".
_IDIOM_BEFORE_NONE = _set("to than")
# "not only", "not just": a negation that adds instead of denying.
_NEGATION_SOFTENERS = _set("only just merely simply")
_PREPOSITIONS = _set(
    "in on at for by with from to of into onto over under about after before during since "
    "until through across against between among toward towards via per than as like upon "
    "within without behind beyond near"
)
# Words that end a clause (or start another) between a relation and its object, and the
# semicolon: "may cause dizziness; it often causes nausea" does not hedge the nausea.
_CLAUSE_WORDS = _set(
    "which that who whom whose where when while after before because although though since "
    "and or but if unless whereas ;"
)
_EXCEPTION_RE = re.compile(r"\b(?:except(?:\s+for)?|other than|apart from|excluding|but not)\b")
_MAX_GAP = 6  # words between an argument and the relation at most
# Prepositions that give a verb's second party ("imports … from X", "sold … to X"); not "with"
# (mostly symmetric: "merged with", "partnered with") nor "by" (a passive's agent).
_ROLE_PREPOSITIONS = _set("from to for against into")


@dataclass(frozen=True)
class Conflict:
    """A structural conflict between a fact and one sentence of its evidence."""

    kind: ConflictKind
    sentence: str
    # the fact's words that are wrong, as the fact writes them, to blame: the value of a value
    # role ("8%"), the universal of a quantifier conflict ("All"), the swapped word of an
    # antonym conflict ("least"); None: the fact's usual spans
    value: str | None = None
    # the evidence allows the fact without establishing it (a dropped hedge; another agent of
    # an indefinite object: "Jones won a medal" leaves room for Smith's)
    allows: bool = False

    @property
    def decided_by(self) -> str:
        return f"{self.kind}_conflict"

    @property
    def label(self) -> Literal["contradicted", "unverifiable"]:
        """What the conflict makes the fact: one the evidence allows without establishing (a
        dropped hedge, another agent of an indefinite object) leaves it ``unverifiable``;
        every other conflict ``contradicted``."""
        return "unverifiable" if self.kind == "hedge" or self.allows else "contradicted"


def _stem(word: str) -> str:
    """Lower-cased, without an -ing/-ed/-es/-s ending, a final e and a doubled final consonant
    ("approved", "approves", "approve" → "approv"; "dropped", "drop" → "drop"); irregular
    forms stay apart ("bought" ≠ "buy")."""
    word = word.lower().replace("’", "'")
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "aeiou":
        word = word[:-1]
    return word


_DETERMINER_STEMS = frozenset(_stem(w) for w in _DETERMINERS)


# Verbs of saying: "'We are thankful,' said Danielle Busby" puts the quote first and the
# speaker after the verb, the inverted order of reporting, not the roles swapped.
_SAYING = frozenset(
    _stem(w)
    for w in _set(
        "said say says told tell tells added add adds asked ask asks wrote write writes "
        "stated state states explained explain explains noted note notes replied reply "
        "replies recalled recall recalls continued continue continues insisted insist insists"
    )
)

# Relations whose arguments can be swapped without changing the meaning.
_SYMMETRIC = frozenset(
    _stem(w)
    for w in _set(
        "marry married met meet face faced fight fought play played battle battled "
        "resemble resembled equal equalled equaled date dated befriend befriended rival rivalled "
        "border bordered tie tied draw drew match matched neighbour neighboured neighbor "
        "neighbored wed divorce divorced"
    )
)


# Words of opposite direction: a fact stating one where its evidence states the other about the
# same subject, and nothing of the fact's own group, is contradicted. (Not "up", "down",
# "above", "below": mostly particles and places, "set up", "shut down"; not "permit", more
# often the noun — "its extraction permit" — than the verb, and a noun of the fact's own group
# in the evidence sentence silences the check.)
_DIRECTIONS = (
    (
        "rise rose risen increase grow grew grown gain climb jump surge soar expand raise "
        "higher more greater larger",
        "fall fell fallen decrease shrink shrank shrunk lose lost drop decline sink sank slump "
        "plunge contract reduce lower less fewer smaller",
    ),
    ("before earlier prior preceded", "after later following followed"),
    ("win won beat defeat", "lose lost"),
    ("accept approve allow grant", "reject refuse deny ban forbid prohibit"),
    ("open opened", "close closed shut"),
    ("uphold upheld", "overturn overturned quash quashed"),
)


def _opposite_tables(
    pairs: tuple[tuple[str, str], ...], key: Callable[[str], str]
) -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """``(group, opposites)``: per word of ``pairs`` (read through ``key``), the words of its
    own sense and of the opposite one."""
    groups: dict[str, frozenset[str]] = {}
    opposites: dict[str, frozenset[str]] = {}
    for one, other in pairs:
        for words, opposite in ((one, other), (other, one)):
            group = frozenset(key(w) for w in words.split())
            against = frozenset(key(w) for w in opposite.split())
            for word in group:
                groups[word] = groups.get(word, frozenset()) | group
                opposites[word] = opposites.get(word, frozenset()) | against
    return groups, opposites


# per stem
_GROUPS, _OPPOSITES = _opposite_tables(_DIRECTIONS, _stem)

# Comparatives of opposite sense: a fact that gives its subject one ("Bass violins were
# smaller") where an evidence sentence gives the same subject the other ("Bass violins were
# usually somewhat larger") is contradicted. Whole words, not stems; not "more" / "less",
# whose sense is the next word's ("more popular", "less expensive").
_COMPARATIVE_PAIRS = (
    ("larger bigger greater", "smaller lesser"),
    ("higher", "lower"),
    ("longer", "shorter"),
    ("taller", "shorter"),
    ("older", "younger newer"),
    ("wider broader", "narrower"),
    ("heavier", "lighter"),
    ("faster quicker", "slower"),
    ("stronger", "weaker"),
    ("earlier", "later"),
    ("warmer hotter", "colder cooler"),
    ("richer", "poorer"),
)


# per whole word
_COMPARATIVE_GROUPS, _COMPARATIVE_OPPOSITES = _opposite_tables(_COMPARATIVE_PAIRS, str.lower)


# The verb of a contraction whose stem is not the verb itself ("can't", "won't", "shan't").
_CONTRACTED = {"ca": "can", "wo": "will", "sha": "shall"}


def _words(text: str) -> list[str]:
    """The words of ``text`` in the form every check compares them in: lower case, curly
    apostrophes straightened and in Unicode compatibility form (:func:`fold_compat`: an accent
    written as a separate mark, "Pa\u0301ris", is the "Páris" a context writes composed),
    and a negative contraction as its verb and "n't" ("isn't" → "is", "n't"; "can't" →
    "can", "n't"), so that every check reads it as the negation it is."""
    out = []
    for span in tokenize_words(text):
        word = fold_compat(span.text(text)).lower().replace("’", "'")
        if word.endswith("n't") and len(word) > 3 and word[:-3].isalpha():
            out += [_CONTRACTED.get(word[:-3], word[:-3]), "n't"]
        else:
            out.append(word)
    return out


def _phrase(text: str, *, max_words: int = 6, digits: bool = False) -> list[str] | None:
    """The stems of a noun phrase without leading determiners; None when it is not a clear
    noun phrase (empty, a pronoun, more than ``max_words`` words, digits unless ``digits``)."""
    words = [w for w in _words(text) if any(c.isalnum() for c in w)]
    while words and words[0] in _DETERMINERS:
        words = words[1:]
    if not words or len(words) > max_words:
        return None
    if not digits and any(any(c.isdigit() for c in w) for w in words):
        return None
    if len(words) == 1 and words[0] in _PRONOUNS:
        return None
    return [_stem(w) for w in words]


def _occurrences(stems: list[str], phrase: list[str]) -> list[tuple[int, int]]:
    """``(start, end)`` of each place ``stems`` hold ``phrase``, determiners aside inside it:
    "fire at Lindqvist paper mill", as the rules extractor writes a subject, is found in "the
    fire at the Lindqvist paper mill" (and a phrase's own determiner need not be there)."""
    phrase = [p for p in phrase if p not in _DETERMINER_STEMS] or phrase
    out = []
    for i, stem in enumerate(stems):
        if stem != phrase[0]:
            continue
        j, k = i, 0
        while j < len(stems) and k < len(phrase):
            if stems[j] == phrase[k]:
                k += 1
            elif stems[j] not in _DETERMINER_STEMS:
                break
            j += 1
        if k == len(phrase):
            out.append((i, j))
    return out


def _content_words(relation: str) -> list[str]:
    """The relation's words that are no auxiliary, negation or preposition, in order."""
    return [
        w
        for w in _words(relation)
        if any(c.isalnum() for c in w) and w not in _AUXILIARIES | _NEGATORS | _PREPOSITIONS
    ]


def _relation_head(relation: str) -> tuple[str | None, bool, bool]:
    """(stem of the relation's last content word, relation ends in a preposition, relation
    holds a negation)."""
    words = [w for w in _words(relation) if any(c.isalnum() for c in w)]
    negated = any(w in _NEGATORS for w in words)
    ends_in_preposition = bool(words) and words[-1] in _PREPOSITIONS
    content = _content_words(relation)
    return (_stem(content[-1]) if content else None), ends_in_preposition, negated


@functools.lru_cache(maxsize=256)
def _evidence_sentences(evidence: str) -> tuple[tuple[str, list[str], list[str]], ...]:
    """(text, words, stems) per evidence sentence; cached, since all four checks of every fact
    judged against the same evidence read it."""
    out = []
    for span in segment_sentences(evidence, backend="regex"):
        text = span.text(evidence)
        words = _words(text)
        out.append((text, words, [_stem(w) for w in words]))
    return tuple(out)


def _ordered(
    words: list[str],
    stems: list[str],
    first: list[str],
    relation: str,
    second: list[str],
) -> bool:
    """Whether ``first R second`` occurs in the active voice: ``first`` at most _MAX_GAP words
    before the relation word (no clause word between), the relation not after a form of
    "be", and ``second`` at most _MAX_GAP words after it with no preposition, clause word or
    punctuation between."""
    for r in _active_relations(words, stems, first, relation):
        for s_start, _ in _occurrences(stems, second):
            if r < s_start <= r + _MAX_GAP + 1 and _plain(words[r + 1 : s_start]):
                return True
    return False


def _plain(between: list[str]) -> bool:
    """Whether no preposition, clause word or punctuation stands in ``between``."""
    return not any(
        w in _PREPOSITIONS or w in _CLAUSE_WORDS or not any(c.isalnum() for c in w) for w in between
    )


def _active_relations(
    words: list[str], stems: list[str], first: list[str], relation: str
) -> Iterator[int]:
    """The positions of the relation word with ``first`` as its subject in the active voice:
    ``first`` at most _MAX_GAP words before it with no clause word between, and no form of
    "be" right before it."""
    for _, f_end in _occurrences(stems, first):
        for r in range(f_end, min(len(stems), f_end + _MAX_GAP + 1)):
            if stems[r] != relation:
                continue
            if any(w in _CLAUSE_WORDS for w in words[f_end:r]):
                break
            if r > 0 and words[r - 1] in _BE_FORMS:
                continue
            yield r


def _oblique_name(obj: str) -> tuple[str, list[str]] | None:
    """``(preposition, stems of the name)`` for an object that ends in a phrase naming someone
    after one of :data:`_ROLE_PREPOSITIONS` ("its battery cells *from Velmora Electric*"):
    the name's words all capitalised, at most four, no digit, and a word before the
    preposition; None otherwise."""
    spans = tokenize_words(obj)
    texts = [s.text(obj).replace("’", "'") for s in spans]
    for p in range(len(texts) - 1, 0, -1):
        if texts[p].lower() not in _ROLE_PREPOSITIONS:
            continue
        name = texts[p + 1 :]
        while name and name[0].lower() in _DETERMINERS:
            name = name[1:]
        if not name or len(name) > 4 or not all(w[:1].isupper() for w in name if w != "&"):
            return None
        if any(c.isdigit() for w in name for c in w) or name[0].lower() in _PRONOUNS:
            return None
        return texts[p].lower(), [_stem(w) for w in name]
    return None


def _oblique_ordered(
    words: list[str],
    stems: list[str],
    first: list[str],
    relation: str,
    preposition: str,
    second: list[str],
) -> bool:
    """Whether ``first R … preposition … second`` occurs in the active voice: ``first`` at
    most _MAX_GAP words before the relation word with no clause word between and no form of
    "be" right before it, the preposition at most eight words after it with no clause word,
    preposition or punctuation between, and ``second`` at most four words after the
    preposition with none of those either ("Velmora Electric imports its battery cells from
    the Korean supplier Hansol Cells")."""

    for r in _active_relations(words, stems, first, relation):
        for q in range(r + 1, min(len(words), r + 9)):
            if words[q] != preposition:
                continue
            if not _plain(words[r + 1 : q]):
                break
            for s_start, _ in _occurrences(stems, second):
                if q < s_start <= q + 5 and _plain(words[q + 1 : s_start]):
                    return True
    return False


def _oblique_role_conflict(
    fact: Fact, evidence: str, subject: list[str], head: str
) -> Conflict | None:
    """The role-reversal check for a name after a preposition of the object ("Hansol Cells
    imports its battery cells from Velmora Electric" against "Velmora Electric imports its
    battery cells from the Korean supplier Hansol Cells"): an evidence sentence says *N R …
    p S* and none says *S R … p N*."""
    found = _oblique_name(fact.object)
    if found is None:
        return None
    preposition, name = found
    if set(subject) & set(name):
        return None
    sentences = _evidence_sentences(evidence)
    if any(_oblique_ordered(w, s, subject, head, preposition, name) for _, w, s in sentences):
        return None
    for text, words, stems in sentences:
        if _oblique_ordered(words, stems, name, head, preposition, subject):
            return Conflict("role", text)
    return None


def _opening_name(obj: str) -> str | None:
    """The name that opens ``obj`` when more follows it: its words up to the first
    preposition, clause word, punctuation or word with a digit, all capitalised and no
    determiner ("Westmarch United 3–1" → "Westmarch United", "Orvane Systems for an
    undisclosed sum" → "Orvane Systems"); None when no name opens it ("below 80", "the
    uniforms at its mill") or nothing follows the name."""
    spans = tokenize_words(obj)
    texts = [span.text(obj) for span in spans]
    end = next(
        (
            i
            for i, t in enumerate(texts)
            if t.lower() in _PREPOSITIONS | _CLAUSE_WORDS
            or not any(c.isalnum() for c in t)
            or any(c.isdigit() for c in t)
        ),
        len(texts),
    )
    if end == len(texts) or end == 0:
        return None
    named = obj[spans[0].start : spans[end - 1].end]
    return named if _is_name(named) else None


def _found_anywhere(evidence: str, phrase: list[str]) -> bool:
    """Whether any evidence sentence holds ``phrase`` (stems, determiners aside)."""
    return any(_occurrences(stems, phrase) for _, _, stems in _evidence_sentences(evidence))


def role_conflict(fact: Fact, evidence: str) -> Conflict | None:
    """The role-reversal check of the module docstring."""
    subject, obj = _phrase(fact.subject), _phrase(fact.object)
    named = _opening_name(fact.object)
    if named is not None and (obj is None or not _found_anywhere(evidence, obj)):
        # "Westmarch United 3–1", "Orvane Systems for an undisclosed sum" (the tagger's
        # coarser objects): the name that opens the object is its argument, and is blamed
        obj = _phrase(named)
    else:
        named = None
    head, oblique, negated = _relation_head(fact.relation)
    if subject is None or head is None or oblique or negated or fact.negated:
        return None
    if head in _SYMMETRIC or head in _SAYING:
        return None
    if obj is not None and not set(subject) & set(obj):
        sentences = _evidence_sentences(evidence)
        if any(_ordered(w, s, subject, head, obj) for _, w, s in sentences):
            return None
        for text, words, stems in sentences:
            if _ordered(words, stems, obj, head, subject):
                return Conflict("role", text, value=named)
    return _oblique_role_conflict(fact, evidence, subject, head)


_ORDER_WORDS = _set("after before until")


_FUNCTION_WORDS = (
    _DETERMINERS | _AUXILIARIES | _PREPOSITIONS | _PRONOUNS | _NEGATORS | _CLAUSE_WORDS
)


def _content_positions(words: list[str]) -> list[tuple[int, str]]:
    """(position, stem) of the ``words`` that hold a letter and are no determiner,
    auxiliary, preposition, pronoun, negation or clause word, in order."""
    return [
        (k, _stem(w))
        for k, w in enumerate(words)
        if any(c.isalpha() for c in w) and w not in _FUNCTION_WORDS
    ]


def _order_content(words: list[str]) -> set[str]:
    """The stems of :func:`_content_positions`, as a set."""
    return {stem for _, stem in _content_positions(words)}


def order_conflict(fact: Fact, evidence: str) -> Conflict | None:
    """The order check of the module docstring: the fact says *A after B* (its relation ends
    in "after", "before" or "until", its object the other event) and an evidence sentence
    says *B after A* with the same word — every content word of the object before it, every
    one of the subject and relation after it — and no evidence sentence says *A after B*."""
    relation = _words(fact.relation)
    if fact.negated or not relation or relation[-1] not in _ORDER_WORDS:
        return None
    word = relation[-1]
    first = _order_content(_words(fact.subject) + relation[:-1])
    second = _order_content(_words(fact.object))
    if len(first) < 2 or len(second) < 2 or first & second:
        return None
    found = None
    for text, words, stems in _evidence_sentences(evidence):
        if set(words) & _NEGATORS:
            continue
        for c, w in enumerate(words):
            if w != word:
                continue
            before, after = set(stems[:c]), set(stems[c + 1 :])
            if first <= before and second <= after:
                return None  # stated as the fact states it
            if second <= before and first <= after and found is None:
                found = text
    return Conflict("role", found) if found is not None else None


def exception_conflict(fact: Fact, evidence: str) -> Conflict | None:
    """The exception check of the module docstring."""
    head, _, negated = _relation_head(fact.relation)
    subject = _phrase(fact.subject)
    if head is None or subject is None or negated or fact.negated:
        return None
    object_words = {
        _stem(w)
        for w in _words(fact.object)
        if any(c.isalpha() for c in w) and w not in _DETERMINERS | _PREPOSITIONS
    }
    if not object_words:
        return None
    for text, _, _ in _evidence_sentences(evidence):
        for match in _EXCEPTION_RE.finditer(text.lower()):
            before = [_stem(w) for w in _words(text[: match.start()])]
            after = _words(text[match.end() :])
            excepted = []
            for word in after:
                if not any(c.isalnum() for c in word) or word in _CLAUSE_WORDS:
                    break
                excepted.append(_stem(word))
            if (
                head in before
                and _occurrences(before, subject)
                and object_words & set(excepted[:4])
            ):
                return Conflict("exception", text)
    return None


def _denies(words: list[str]) -> bool:
    """Whether ``words`` hold a negation that denies ("not", "never", a "failed to" or
    "unable to"), not one that adds ("not only", "not just") nor a "no" that a preposition
    governs ("A man with no shirt on is holding a football" denies no holding)."""
    return any(
        (
            w in _NEGATORS
            and (words[i + 1] if i + 1 < len(words) else "") not in _NEGATION_SOFTENERS
            and not (w == "no" and i > 0 and words[i - 1] in _PREPOSITIONS)
        )
        or (w in _IMPLICATIVE_NEGATORS and "to" in words[i + 1 : i + 3])
        for i, w in enumerate(words)
    )


def _subject_to_relation(
    words: list[str], stems: list[str], subject: list[str], head: str, obj: list[str]
) -> Iterator[list[str]]:
    """The words between each occurrence of ``subject`` and the relation word ``head`` that
    follows it within _MAX_GAP words with ``obj`` after it, no clause word between."""
    for _, s_end in _occurrences(stems, subject):
        for r in range(s_end, min(len(stems), s_end + _MAX_GAP + 1)):
            if stems[r] != head or not any(o > r for o, _ in _occurrences(stems, obj)):
                continue
            between = words[s_end:r]
            if not any(w in _CLAUSE_WORDS for w in between):
                yield between


_QUANTIFIERS = _set("several many some few most all both numerous multiple various")
# what opens a subject the evidence denies as a whole: "no", "none of the", "neither of its"
_NONE_OF = _set("none neither")


def _denied_subject(words: list[str], start: int) -> bool:
    """Whether the subject that starts at ``start`` is denied as a whole: right after "no"
    ("No passengers were hurt") or after "none of" / "neither of" and a determiner or
    none ("None of the passengers were injured")."""
    k = start - 1
    if k >= 0 and words[k] in _DETERMINERS:
        k -= 1
    if k >= 1 and words[k] == "of" and words[k - 1] in _NONE_OF:
        return True
    return k == start - 1 and k >= 0 and words[k] == "no"


def _quantifier_negation(fact: Fact, evidence: str, head: str) -> Conflict | None:
    """A fact stated of some of its subject ("Several passengers were injured") against an
    evidence sentence that denies it of all ("None of the passengers were injured", "No
    passengers were injured"): the subject's words after its quantifier, right after "no" or
    "none of the", then the relation word at most _MAX_GAP words on with no clause word or
    negation between, then the object's words, if it has any."""
    words = [w for w in _words(fact.subject) if any(c.isalnum() for c in w)]
    while words and words[0] in _DETERMINERS | _QUANTIFIERS:
        words = words[1:]
    subject = _phrase(" ".join(words))
    obj = _phrase(fact.object) if fact.object.strip() else []
    if subject is None or obj is None:
        return None
    for text, sentence_words, stems in _evidence_sentences(evidence):
        for s_start, s_end in _occurrences(stems, subject):
            if not _denied_subject(sentence_words, s_start):
                continue
            for r in range(s_end, min(len(stems), s_end + _MAX_GAP + 1)):
                if sentence_words[r] in _CLAUSE_WORDS or sentence_words[r] in _NEGATORS:
                    break
                if stems[r] == head and (not obj or _occurrences(stems[r + 1 :], obj)):
                    return Conflict("negation", text)
    return None


def _states_a_negation(words: list[str]) -> bool:
    """Whether a sentence's ``words`` hold any negation: a negator, a "failed" / "unable", or
    a "none" / "nothing" / "nobody" ("contained none of these goodies"), but not in a
    comparison ("second to none")."""
    return any(
        w in _NEGATORS
        or w in _IMPLICATIVE_NEGATORS
        or (w in _NEGATIVE_PRONOUNS and (i == 0 or words[i - 1] not in _IDIOM_BEFORE_NONE))
        for i, w in enumerate(words)
    )


def negation_conflict(fact: Fact, evidence: str) -> Conflict | None:
    """The negation check of the module docstring."""
    head, _, relation_negated = _relation_head(fact.relation)
    fact_negated = relation_negated or fact.negated
    opening = next(iter(_words(fact.subject)), "")
    if head is not None and not fact_negated and opening not in _NEGATORS | _NONE_OF:
        conflict = _quantifier_negation(fact, evidence, head)
        if conflict is not None:
            return conflict
    subject, obj = _phrase(fact.subject), _phrase(fact.object)
    if head is None or subject is None or obj is None:
        return None
    excepted = _content_stems(fact.subject)
    for text, words, stems in _evidence_sentences(evidence):
        # A negated fact conflicts only with a sentence that has no negation at all.
        if fact_negated and _states_a_negation(words):
            continue
        if _excepts(text, excepted):
            continue  # "All staff except managers must attend" does not say managers must
        for between in _subject_to_relation(words, stems, subject, head, obj):
            if _denies(_outside_commas(between)) != fact_negated:
                return Conflict("negation", text)
    return None


def _outside_commas(words: list[str]) -> list[str]:
    """``words`` without what stands between two commas: "The company, not its rival, built
    the bridge" denies the rival, not the building ("however" of ", however, did not build"
    goes, the "not" after it stays)."""
    out: list[str] = []
    opened: int | None = None
    for word in words:
        if word == ",":
            if opened is None:
                opened = len(out)
                continue
            del out[opened:]
            opened = None
            continue
        out.append(word)
    return out


def _stated_comparative(fact: Fact) -> str | None:
    """The comparative a fact with no relation word of its own gives its subject ("Bass
    violins | were | smaller", "… | had | a lower pitch"): the object's first word after its
    determiners, when it is one of :data:`_COMPARATIVES`; None otherwise."""
    head, oblique, _ = _relation_head(fact.relation)
    if head is not None or oblique:
        return None
    words = [w for w in _words(fact.object) if any(c.isalnum() for c in w)]
    while words and words[0] in _DETERMINERS:
        words = words[1:]
    return words[0] if words and words[0] in _COMPARATIVE_OPPOSITES else None


_MODEL_NUMBER_RE = re.compile(r"\b[A-Z][\w-]*\s+\d[\w.-]*\b")


def _clause_words_before(words: list[str], stems: list[str], j: int) -> set[str]:
    """The stems of the words other than function words between the start of the clause of
    the word at ``j`` (the sentence's, or the last clause word or semicolon before ``j``) and
    ``j``: what names the clause's subject."""
    c = j - 1
    while c >= 0 and words[c] not in _CLAUSE_WORDS and words[c] != ";":
        c -= 1
    return {
        stems[k]
        for k in range(c + 1, j)
        if any(ch.isalpha() for ch in words[k])
        and words[k] not in _AUXILIARIES | _DETERMINERS | _PREPOSITIONS | _PRONOUNS
    }


def _of_another_subject(words: list[str], stems: list[str], j: int, subject: list[str]) -> bool:
    """Whether the word at ``j`` belongs to a clause whose subject is not the fact's: its
    :func:`_clause_words_before` are there, and none of them is of the fact's subject ("…,
    while imports rose by 6%" or "Exports rose while …" for a fact about imports; not "… and
    rose in the second quarter", which shares the sentence's subject)."""
    between = _clause_words_before(words, stems, j)
    return bool(between) and not between & set(subject)


# Words that may stand between a direction word and the value it gives ("fell by 6%", "rose
# to nearly 40", "grew some 12%", "fell to $20").
_VALUE_LEAD = _set(
    "by to from nearly almost about around roughly some approximately over just $ € £ ¥"
)


def _fact_numbers(fact: Fact) -> list[str]:
    """The numbers the fact's relation and object write, as :func:`_words` splits them."""
    return [w for w in _words(f"{fact.relation} {fact.object}") if w[:1].isdigit()]


def _common_words(subject: str) -> set[str]:
    """The stems of the words of ``subject`` that are no name: its content words but those
    written with a capital after the first ("Sales of Orvane scooters in Norway" → "sales",
    "scooters")."""
    words = [s.text(subject) for s in tokenize_words(subject)]
    return {
        _stem(fold_compat(w).lower())
        for i, w in enumerate(words)
        if any(c.isalpha() for c in w)
        and (i == 0 or not w[:1].isupper())
        and w.lower() not in _DETERMINERS | _PREPOSITIONS | _PRONOUNS | _AUXILIARIES
    }


def _direction_of(words: list[str], stems: list[str], j: int, subject: set[str]) -> str | None:
    """The stem of the direction word that gives the number at ``j`` ("fell by 6"), if any:
    the first word before it that is not one of :data:`_VALUE_LEAD`, within three words, in
    a clause that names no subject or one with every word of ``subject`` (the fact's subject's
    :func:`_common_words`: "sales of its scooters in the country" for "Sales of Orvane
    scooters in Norway", not "bicycle sales" for "scooter sales")."""
    k = j - 1
    while k >= 0 and j - k <= 3 and words[k] in _VALUE_LEAD:
        k -= 1
    if k < 0 or j - k > 3 or stems[k] not in _OPPOSITES:
        return None
    between = _clause_words_before(words, stems, k)
    return stems[k] if not between or subject <= between else None


def _value_direction_conflict(
    fact: Fact, evidence: str, own: frozenset[str], opposite: frozenset[str]
) -> Conflict | None:
    """A value the fact gives its subject in one direction ("imports rose by 6%") that the
    evidence gives it only in the other ("imports … fell by 6%", whatever else rose): the
    direction word right before the value."""
    numbers = set(_fact_numbers(fact))
    subject = _common_words(fact.subject)
    if not numbers or not subject:
        return None
    found: str | None = None
    for text, words, stems in _evidence_sentences(evidence):
        for j, word in enumerate(words):
            if word not in numbers:
                continue
            direction = _direction_of(words, stems, j, subject)
            if direction in own:
                return None
            if direction in opposite and found is None:
                found = text
    return Conflict("direction", found) if found is not None else None


# Words and their opposites for the antonym check, whole words (read through _stem). Not "on" /
# "off" (particles), not "war" / "peace" (titles: "War and Peace").
_ANTONYM_PAIRS = (
    "longest shortest,largest smallest,biggest smallest,highest lowest,best worst,most least,"
    "first last,earliest latest,oldest youngest,oldest newest,fastest slowest,"
    "richest poorest,strongest weakest,widest narrowest,heaviest lightest,hottest coldest,"
    "good bad,better worse,positive negative,favorable unfavorable,favourable unfavourable,"
    "true false,legal illegal,safe unsafe,safe dangerous,possible impossible,likely unlikely,"
    "common rare,common uncommon,successful unsuccessful,success failure,strong weak,"
    "rich poor,cheap expensive,early late,above below,maximum minimum,permanent temporary,"
    "public private,full empty,present absent,guilty innocent,alive dead,ancient modern,"
    "rural urban,wet dry,happy unhappy,happy sad,easy difficult,easy hard,simple complex,"
    "inside outside,north south,east west,northern southern,eastern western,male female,"
    "majority minority,increase reduction,increase decrease,gain loss,profit loss,"
    "surplus deficit,import export,buy sell,bought sold,buyer seller,employer employee,"
    "winner loser,victory defeat,valid invalid,accurate inaccurate,correct incorrect,"
    "able unable,visible invisible,start end,begin end,beginning end,entrance exit,"
    "arrival departure,arrive depart,remember forget,include exclude,included excluded,"
    "allowed forbidden,accept reject,agree disagree,support oppose,love hate,like dislike,"
    "friend enemy,ally enemy,wealthy poor,high low,long short,large small,big small,old young,"
    "old new,fast slow,hot cold,warm cool,light dark,heavy light,thick thin,wide narrow,"
    "deep shallow,loud quiet,always never,more fewer,more less,many few,much little,"
    "beginning ending,left right,upward downward,upper lower,forward backward,same different,"
    "similar different,internal external,input output,minor major,inferior superior,"
    "optimistic pessimistic,honest dishonest,agree disagree,approve disapprove,"
    "advantage disadvantage,continued discontinued,appear disappear,obey disobey"
)
# a word and the same word under a negating prefix ("intended" / "unintended", "profit" /
# "non-profit"): opposites too, when the word is at least this long
_NEGATING_PREFIXES = ("un", "non-", "non")
_DEGREE_BEFORE = _set("less least more most non - somewhat slightly")
_PREFIXED_MIN_LENGTH = 4
_, _ANTONYMS = _opposite_tables(
    tuple((one, other) for one, other in (p.split() for p in _ANTONYM_PAIRS.split(","))), _stem
)
_ANTONYM_MIN_WORDS = 3  # content words a fact needs for the antonym check


@functools.lru_cache(maxsize=1024)
def _sentence_content(text: str) -> tuple[tuple[tuple[int, str], ...], frozenset[str]]:
    """:func:`_content_positions` of an evidence sentence's words, and its stems as a set;
    cached, since every fact judged against the same evidence reads its sentences."""
    content = tuple(_content_positions(_words(text)))
    return content, frozenset(stem for _, stem in content)


@functools.lru_cache(maxsize=256)
def _evidence_content(evidence: str) -> frozenset[str]:
    """The content stems of all of ``evidence``'s sentences."""
    return frozenset().union(
        *(_sentence_content(text)[1] for text, _, _ in _evidence_sentences(evidence))
    )


@functools.lru_cache(maxsize=4096)
def _opposites_of(stem: str) -> frozenset[str]:
    """The stems opposite to ``stem``: its pairs in the table, the stem with a negating
    prefix ("intend" / "unintend", "profit" / "non-profit"), and the stem without "un"
    ("unknown" / "known"; not without "non": "non-sensitive" is also "less sensitive")."""
    found = set(_ANTONYMS.get(stem, frozenset()))
    if len(stem) >= _PREFIXED_MIN_LENGTH:
        found |= {prefix + stem for prefix in _NEGATING_PREFIXES}
    if stem.startswith("un") and len(stem) - 2 >= _PREFIXED_MIN_LENGTH:
        found.add(stem[2:])
    return frozenset(found)


def antonym_conflict(fact: Fact, evidence: str, answer: str | None = None) -> Conflict | None:
    """The antonym check of the module docstring."""
    if fact.negated:
        return None
    joined = f"{fact.subject} {fact.relation} {fact.object}"
    said = _words(joined)
    written = [span.text(joined) for span in tokenize_words(joined)]
    positions = _content_positions(said)
    content = [stem for _, stem in positions]
    if len(content) < _ANTONYM_MIN_WORDS or "than" in said or set(said) & _NEGATORS:
        return None
    if not frozenset().union(*map(_opposites_of, content)) & _evidence_content(evidence):
        return None  # no opposite of any of the fact's words anywhere in the evidence
    answered = {stem for _, stem in _content_positions(_words(answer))} if answer else set()
    for text, words, _ in _evidence_sentences(evidence):
        if "than" in words or set(words) & _NEGATORS:
            continue
        other, found = _sentence_content(text)
        missing = [i for i, stem in enumerate(content) if stem not in found]
        if len(missing) != 1:
            continue
        i = missing[0]
        opposites = _opposites_of(content[i]) - set(content) - answered
        before = content[i - 1] if i > 0 else None
        after = content[i + 1] if i + 1 < len(content) else None
        for j, (k, stem) in enumerate(other):
            if stem not in opposites or (k > 0 and words[k - 1] in _DEGREE_BEFORE):
                continue  # "less sensitive", "non - standard": a degree, or a prefix cut off
            if (after is not None and j + 1 < len(other) and other[j + 1][1] == after) or (
                before is not None and j > 0 and other[j - 1][1] == before
            ):
                # the word swapped, as the fact writes it (no contraction split: not negated)
                k_fact = positions[i][0]
                swapped = written[k_fact] if len(written) == len(said) else None
                return Conflict("antonym", text, value=swapped)
    return None


def direction_conflict(fact: Fact, evidence: str) -> Conflict | None:
    """The direction check of the module docstring."""
    words = [w for w in _words(fact.relation) if any(c.isalpha() for c in w)]
    # a name may carry a number ("The Aldren 7 smartphone", "Boeing 747"); a count may not
    model = bool(_MODEL_NUMBER_RE.search(fact.subject))
    subject = _phrase(fact.subject, max_words=10, digits=model)
    if subject is None or fact.negated or any(w in _NEGATORS for w in words):
        return None
    heads = [_stem(w) for w in words if _stem(w) in _OPPOSITES]
    if heads:
        own, opposite, stemmed = _GROUPS[heads[-1]], _OPPOSITES[heads[-1]], True
    elif (comparative := _stated_comparative(fact)) is not None:
        own = _COMPARATIVE_GROUPS[comparative]
        opposite, stemmed = _COMPARATIVE_OPPOSITES[comparative], False
    else:
        return None
    if stemmed and (by_value := _value_direction_conflict(fact, evidence, own, opposite)):
        return by_value
    excepted = _content_stems(fact.subject) | _content_stems(fact.object)
    timed = stemmed and bool(own & _OPENING) and _has_time_of_day(f"{fact.relation} {fact.object}")
    for text, words_, stems in _evidence_sentences(evidence):
        read = stems if stemmed else words_
        if any(w in _NEGATORS for w in words_):
            continue
        if timed and _has_time_of_day(text):
            continue  # "closes at 5 p.m." beside "open from 09:00 to 17:00": hours, both
        if _excepts(text, excepted):
            continue  # "open every day except Sunday" says the shop is closed on Sunday
        if any(
            read[j] in own and not _of_another_subject(words_, stems, j, subject)
            for j in range(len(read))
        ):
            continue
        for _, s_end in _occurrences(stems, subject):
            for k in range(s_end, min(len(stems), s_end + _MAX_GAP + 1)):
                if words_[k] in _CLAUSE_WORDS and stems[k] not in _OPPOSITES:
                    break
                if read[k] in opposite:
                    return Conflict("direction", text)
    return None


# the opening and closing of the direction pairs, whose time of day is no direction
_OPENING = frozenset(_stem(w) for w in ("open", "opened", "close", "closed", "shut"))


def _has_time_of_day(text: str) -> bool:
    """Whether ``text`` gives a time of day ("closes at 5 p.m.", "open from 09:00")."""
    return any(n.kind == "time" for n in parse_numbers(text))


def _content_stems(text: str) -> set[str]:
    """The stems of ``text``'s words that hold a letter, without determiners and
    prepositions."""
    skipped = _DETERMINERS | _PREPOSITIONS
    return {_stem(w) for w in _words(text) if any(c.isalpha() for c in w) and w not in skipped}


def _excepts(sentence: str, objects: set[str]) -> bool:
    """Whether ``sentence`` makes an exception ("except", "other than", "apart from",
    "excluding", "but not") of a word among ``objects`` (stems): what it states holds of
    everything but that."""
    match = _EXCEPTION_RE.search(sentence.lower())
    if match is None or not objects:
        return False
    named = []
    for word in _words(sentence[match.end() :]):
        if word in _SLOT_STOPS or word in _CLAUSE_WORDS - _COORDINATORS:
            break  # the exception is the phrase after the word: "except Sunday, and …"
        named.append(_stem(word))
    return bool(objects & set(named))


_HEDGES = _set(
    "may might could possibly probably perhaps likely unlikely reportedly allegedly "
    "apparently seemingly suggest suggests suggested appear appears appeared seem seems "
    "seemed thought believed expected"
)
# Verbs that present a clause as proved: "confirms that X" against "could signal that X"
_PROOF_VERBS = frozenset(_stem(w) for w in _set("confirms proves shows demonstrates establishes"))
_REPORT_REACH = 4  # words between a hedge and the "that" of its clause at most
# Modals that state a claim plainly ("will extend" against "may extend" drops the hedge);
# the others ("may", "could", "can", "would", "should") hedge the fact themselves.
_CERTAIN_MODALS = _set("will shall must")
_UNIQUE = _set("main only sole solely primary principal single alone exclusively chief")
_UNIQUE_RELATION = _set("solely alone exclusively only")
_VALUE_GAP = 8  # words between the relation and the value it is given at most
_SLOT_STOPS = frozenset(",;:.!?()[]")
_COORDINATORS = _set("and or but")
_NUMBER_WORDS = _set(
    "one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty "
    "forty fifty hundred thousand million billion half quarter third"
)


# not "may", a modal far more often than a month
_MONTHS = _set(
    "january february march april june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)


def _is_value_word(word: str) -> bool:
    """Whether ``word`` (lower-cased) can start a number, an amount or a date."""
    return word[:1].isdigit() or word[:1] in "$€£¥" or word in _NUMBER_WORDS | _MONTHS


@functools.lru_cache(maxsize=256)
def _sentence_tokens(text: str) -> tuple[Span, ...]:
    return tuple(tokenize_words(text))


def _chunk_head(text: str) -> str | None:
    """The stem of the last word of ``text`` before a preposition or clause word, leaving out
    determiners and words of uniqueness ("main source of nitrate pollution" → "sourc", "The
    sea wall alone" → "wall"); None when no word is left."""
    chunk: list[str] = []
    for word in _words(text):
        if word in _PREPOSITIONS or word in _CLAUSE_WORDS:
            break
        if any(c.isalnum() for c in word) and word not in _DETERMINERS | _UNIQUE:
            chunk.append(word)
    return _stem(chunk[-1]) if chunk else None


def _subject_head(text: str) -> str | None:
    """The subject's head word (:func:`_chunk_head`: "Imports of seaweed into the county" →
    "import"); None for a pronoun or no clear noun phrase."""
    return _chunk_head(text) if _phrase(text, max_words=10, digits=True) is not None else None


# Verbs that give one relation in other words: "Galloway Biotech has named Martin Oyelaran as
# its new chief scientific officer" against "Galloway Biotech has appointed Dr. Rana Haddad
# as its new chief scientific officer". The value-role, name-role and agent checks find a
# relation by any word of its group (not verbs of direction, "rose" / "grew": "rose by 60" and
# "grew from 180 to 240" give one change two ways).
_RELATION_GROUPS = (
    "appoint appointed appoints name named names nominate nominated nominates",
    "buy buys bought acquire acquired acquires purchase purchased purchases",
    "begin begins began begun start started starts commence commenced commences",
    "finish finished finishes end ended ends conclude concluded concludes",
    "lead leads led head headed heads direct directed directs conduct conducted conducts",
    "hire hired hires recruit recruited recruits",
    "build builds built construct constructed constructs",
    "found founded founds establish established establishes",
)
_RELATION_SYNONYMS = {
    stem: group
    for group in (frozenset(_stem(w) for w in line.split()) for line in _RELATION_GROUPS)
    for stem in group
}


def _values_given(
    text: str, words: list[str], stems: list[str], subject: str, head: str
) -> Iterator[str]:
    """The text after each occurrence of the relation word ``head`` that has the subject's
    head word ``subject`` (:func:`_subject_head`) at most _MAX_GAP words before it (no clause
    word, semicolon, negation or value between), up to _VALUE_GAP words and before the first
    clause word or punctuation: the slot where the sentence gives the relation its value ("38
    research grants this year" of "The foundation awarded 38 research grants this year, up
    from 29 the year before"); then the text of each coordinate or list item after it that
    starts with a value ("7% in the second" of "grew 5% in the first quarter and 7% in the
    second", "four single albums" of "released two studio albums, four single albums")."""
    tokens = _sentence_tokens(text)
    heads = _RELATION_SYNONYMS.get(head, frozenset((head,)))
    for r, stem in enumerate(stems):
        if stem not in heads:
            continue
        before = range(max(0, r - _MAX_GAP - 1), r)
        if not any(
            stems[k] == subject
            and not any(
                w in _CLAUSE_WORDS or w in _NEGATORS or w == ";" or _is_value_word(w)
                for w in words[k + 1 : r]
            )
            for k in before
        ):
            continue  # no "S R value" order: "time rose by 34 minutes with therapy"
        start = r + 1
        while True:
            end = start
            while (
                end < len(words)
                and end < start + _VALUE_GAP
                and words[end] not in _CLAUSE_WORDS
                and words[end] not in _SLOT_STOPS
                and words[end] not in _NEGATORS
            ):
                end += 1
            if end > start:
                yield text[tokens[start].start : tokens[end - 1].end]
            # "grew 5% in the first quarter and 7% in the second", "released two studio
            # albums, four single albums": a coordinated or listed value is given the same
            # relation (not "... and released 7 albums": another clause)
            if end >= len(words) or words[end] not in _COORDINATORS | {","}:
                break
            if words[end] == "," and end + 1 < len(words) and words[end + 1] in _COORDINATORS:
                end += 1  # "5 cars, 3 trucks, and 2 vans"
            start = end + 1
            lead = start
            while lead < len(words) and words[lead] in _PREPOSITIONS | _DETERMINERS:
                lead += 1
            if lead == len(words) or not _is_value_word(words[lead]):
                break


def value_role_conflict(fact: Fact, evidence: str) -> Conflict | None:
    """The value-role check of the module docstring."""
    head, _, negated = _relation_head(fact.relation)
    subject = _subject_head(fact.subject)
    value = value_of(fact.object)
    if head is None or subject is None or value is None or negated or fact.negated:
        return None
    ordinal = _ordinal_before(_words(fact.subject), subject)
    rival = None
    for text, words, stems in _evidence_sentences(evidence):
        for given in _values_given(text, words, stems, subject, head):
            comparison = compare_value(fact.object, given)
            if comparison == "same":
                return None
            if (
                comparison == "other"
                and rival is None
                and not _other_ordinal(words, stems, subject, ordinal)
            ):
                rival = text
    return None if rival is None else Conflict("value_role", rival, value)


_ORDINALS = _set(
    "first second third fourth fifth sixth seventh eighth ninth tenth last latest final "
    "previous next 1st 2nd 3rd 4th 5th 6th 7th 8th 9th 10th"
)


def _ordinal_before(words: list[str], head: str) -> str | None:
    """The ordinal right before the subject's head word ("her second novel" → "second"), or
    None; ``head`` is a stem."""
    for k in range(1, len(words)):
        if _stem(words[k]) == head and words[k - 1] in _ORDINALS:
            return words[k - 1]
    return None


def _other_ordinal(words: list[str], stems: list[str], head: str, ordinal: str | None) -> bool:
    """Whether the sentence's subject head carries an ordinal the fact's does not ("The
    author's first novel was published in 1990" for "Her second novel …"): another thing."""
    return any(
        stems[k] == head and words[k - 1] in _ORDINALS and words[k - 1] != ordinal
        for k in range(1, len(words))
    )


def _capitalised(words: list[str]) -> bool:
    return bool(words) and all(w[0].isupper() or w[0].isdigit() for w in words)


def _leading_name(slot: str) -> list[str] | None:
    """The capitalised words that open ``slot`` after its prepositions, determiners and a
    title of one or two lower-case words ("by Jonas Berg next spring" → ["jonas", "berg"],
    "by the engineer Tomas Lind" → ["tomas", "lind"]), lower-cased; None when it opens with
    anything else ("by the choir of St Mary's")."""
    words = slot.split()
    while words and words[0].lower() in _PREPOSITIONS | _DETERMINERS:
        words = words[1:]
    for title in (1, 2):  # "the engineer Tomas Lind", "the renowned architect Zaha Hadid"
        if (
            len(words) > title
            and words[title][:1].isupper()
            and all(
                w.isalpha() and w.islower() and w not in _CLAUSE_WORDS | _NEGATORS | _PREPOSITIONS
                for w in words[:title]
            )
        ):
            words = words[title:]
            break
    name = []
    for word in words:
        core = word.strip(".,;:!?()\"'")
        if not core or not core[0].isupper():
            break
        name.append(core.lower())
    return name or None


def name_role_conflict(fact: Fact, evidence: str) -> Conflict | None:
    """The name-role check of the module docstring."""
    head, oblique, negated = _relation_head(fact.relation)
    relation_words = [w for w in _words(fact.relation) if any(c.isalnum() for c in w)]
    preposition = relation_words[-1] if oblique else ""
    subject = _subject_head(fact.subject)
    given = fact.object
    named = _opening_name(given)
    whole = _phrase(given, max_words=12, digits=True)
    after = given[len(named) :].split(maxsplit=1) if named is not None else []
    if (
        named is not None
        and given[len(named) : len(named) + 1].isspace()  # not the "U" of "U.K."
        and after
        and after[0].lower() not in _COORDINATORS  # "Lita Stantic and Pablo Trapero": a list
        and (whole is None or not _found_anywhere(evidence, whole))
    ):
        # "Martin Oyelaran as its new chief scientific officer" (the tagger's coarser
        # object): the name that opens it fills the slot, and is blamed
        given = named
    words = [w for w in given.split() if any(c.isalnum() for c in w)]
    while words and words[0].lower() in _DETERMINERS:
        words = words[1:]
    if head is None or subject is None or negated or fact.negated or not words:
        return None
    if len(words) > 4 or not _capitalised(words) or any(c.isdigit() for c in given):
        return None
    name = {w.lower().strip(".,;:!?()\"'") for w in words}
    if name & set(_words(fact.subject)):
        return None
    subject_stems = {
        _stem(w)
        for w in _words(fact.subject)
        if any(c.isalnum() for c in w) and w not in _DETERMINERS | _PREPOSITIONS
    }
    # the fact's name as the agent check compares names: "UK" may be the "United Kingdom"
    own = tuple(
        n for n in (_name_word(w).replace(".", "") for w in words) if n and n not in _NAME_JOINERS
    )
    rival = None
    for text, sentence_words, stems in _evidence_sentences(evidence):
        if not subject_stems <= set(stems):
            continue  # "the closing concert" is not the sentence's "opening concert"
        slots = list(_values_given(text, sentence_words, stems, subject, head))
        if not slots:
            continue
        if name & set(sentence_words):
            return None  # the sentence that gives the relation holds the fact's name
        for slot in slots:
            first = slot.split()[0].lower() if slot.split() else ""
            if (first in _PREPOSITIONS or preposition) and first != preposition:
                continue  # "composed the soundtrack for X" gives no "composed … by"
            leading = _leading_name(slot)
            if leading is None:
                continue
            other = tuple(n for n in leading if n not in _NAME_JOINERS)
            if own and other and _may_be_one(own, other):
                return None  # "located in the UK" against "in the United Kingdom"
            if rival is None:
                rival = text
    return None if rival is None else Conflict("name_role", rival, given)


_NAME_JOINERS = _set("of de van von der la le du da")


def _agent_name(text: str) -> tuple[str, ...] | None:
    """The lower-cased words of a subject that is a name ("Carla Mendes", "St Anne's Clinic",
    "the University of Leeds"), its leading determiners left out; None unless it is one:
    capitalised words, a joining word ("of", "van") only inside, at most six, no digit, no
    pronoun."""
    words = [w for w in text.split() if any(c.isalnum() for c in w)]
    while words and words[0].lower() in _DETERMINERS:
        words = words[1:]
    if not words or len(words) > 6 or any(c.isdigit() for c in text):
        return None
    if not (words[0][0].isupper() and words[-1][0].isupper()):
        return None
    if not all(w[0].isupper() or w.lower() in _NAME_JOINERS for w in words):
        return None
    name = tuple(n for n in map(_name_word, words) if n and n not in _NAME_JOINERS)
    if not name or set(name) & _PRONOUNS:  # "He", "They" at a sentence's start
        return None
    return name


def _name_word(word: str) -> str:
    word = word.lower().replace("’", "'").strip(".,;:!?()\"'")
    return word[:-2] if word.endswith("'s") else word


# words many names of one kind share ("Lund University", "Uppsala University")
_NAME_KINDS = _set(
    "university college school hospital clinic bank company group club united city county "
    "council institute museum party church st saint national royal new north south east west"
)


def _may_be_one(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether two names may name one agent: they share a word that is not a kind of name
    ("Mendes" / "Carla Mendes", "Bill Gates" / "William Gates"), or one is a single word that
    is the other's initials or the start of its first word ("IBM" / "International Business
    Machines", "Fed" / "Federal Reserve")."""
    if (set(a) & set(b)) - _NAME_KINDS:
        return True
    for one, other in ((a, b), (b, a)):
        if len(one) == 1 and len(one[0]) >= 2:
            if one[0] == "".join(w[0] for w in other):
                return True
            if len(one[0]) >= 3 and other[0].startswith(one[0]):
                return True
    return False


def _agent_before(sentence: str, words: list[str], r: int) -> tuple[str, ...] | None:
    """The name that ends right before the relation word at ``r`` — auxiliaries between
    allowed ("Carla Mendes has scored"), none after a form of "be" (a passive) — as
    :func:`_agent_name` gives it; None when the word before is anything else."""
    if r > 0 and words[r - 1] in _BE_FORMS:
        return None  # "the goal was scored by …": the name before is no agent
    k = r - 1
    while k >= 0 and words[k] in _AUXILIARIES - _BE_FORMS:
        k -= 1
    # a name in apposition, between commas: "The principal conductor, Tobias Reinholt, will
    # lead …"
    apposed = k > 0 and words[k] == ","
    k -= apposed
    tokens = _sentence_tokens(sentence)
    name: list[str] = []
    while k >= 0:
        written = tokens[k].text(sentence)
        if written[:1].isupper() or (name and words[k] in _NAME_JOINERS):
            name.insert(0, written)
            k -= 1
            continue
        break
    if apposed and (k < 0 or words[k] != ","):
        return None  # "After the final, Ruiz said": no apposition
    if not name or (k < 0 and len(name) == 1 and not _named_in(name[0], sentence)):
        return None  # "Livestock played …": a sentence's first word, no name
    return _agent_name(" ".join(name))


def _named_in(word: str, text: str) -> bool:
    """Whether a capitalised ``word`` that starts a sentence reads as a name: it is no plain
    English word (:func:`enoki_hd.verify.grounding.is_plain_word`: "Pfizer", "NASA"), or
    ``text`` writes it capitalised inside a sentence ("Smith won …, and Jones won …")."""
    if not is_plain_word(word):
        return True
    return any(
        not starts_sentence(text, m.start())
        for m in re.finditer(rf"(?<!\w){re.escape(word)}(?!\w)", text)
    )


def _opens_sentence(fact: Fact, answer: str | None) -> bool:
    """Whether the fact's subject opens its sentence with no determiner before its name
    (always, when the answer is not known)."""
    if _words(fact.subject)[0] in _DETERMINERS:
        return False
    if answer is None or not fact.subject_spans:
        return True
    return starts_sentence(answer, fact.subject_spans[0].start)


def agent_conflict(fact: Fact, evidence: str, answer: str | None = None) -> Conflict | None:
    """The agent check of the module docstring; ``answer``, the text the fact's spans point
    into, tells a definite object whose article the fact left out ("goal" of "scored the
    winning goal")."""
    if fact.parent is not None:
        return None  # a refinement adds its delta; its root carries the agent
    name = _agent_name(fact.subject)
    if name is not None and len(name) == 1 and _opens_sentence(fact, answer):
        written = fact.subject.split()[-1].strip(".,;:!?()\"'")
        if not _named_in(written, evidence):
            return None  # "Agriculture played …": a sentence's first word, no name
    _, oblique, negated = _relation_head(fact.relation)
    # the relation's verb, its first content word: "conduct" of "is conducting an
    # investigation" (its last, "investigation", would read "Myers investigation" as a deed)
    content = _content_words(fact.relation)
    head = _stem(content[0]) if content else None
    # the object's first chunk: "the winning goal" of "the winning goal in the 88th minute"
    chunk = list(
        itertools.takewhile(
            lambda w: w not in _PREPOSITIONS | _CLAUSE_WORDS and any(c.isalnum() for c in w),
            _words(fact.object),
        )
    )
    obj = _phrase(" ".join(chunk))
    if name is None or head is None or oblique or negated or fact.negated or obj is None:
        return None
    object_head = _chunk_head(fact.object)
    if object_head is None:
        return None
    rival = None
    for text, words, stems in _evidence_sentences(evidence):
        named = set(name) <= {_name_word(w) for w in words}
        for r, stem in enumerate(stems):
            if stem not in _RELATION_SYNONYMS.get(head, {head}):
                continue
            if not _head_after(words, stems, r, object_head, gap=_VALUE_GAP):
                continue
            if not set(obj) <= set(stems[r + 1 :]):
                continue  # "opened a maternity unit" is not "opened a new cancer wing"
            if named:
                return None  # a sentence that gives the relation its object names the fact's
            agent = _agent_before(text, words, r)
            if agent is None or _may_be_one(agent, name):
                continue  # "Mendes scored" is Carla Mendes
            if rival is None:
                rival = text
    if rival is None:
        return None
    first = _words(fact.object)[0]
    definite = first in _DEFINITE or first.endswith("'s") or fact.object[:1].isupper()
    if answer is not None and fact.object_spans and fact.relation_spans:
        # the words the fact left out between its relation and its object ("the winning")
        gap = answer[fact.relation_spans[-1].end : fact.object_spans[0].start].split()
        definite = definite or (bool(gap) and (gap[0].lower() in _DEFINITE or "'s" in gap[0]))
    return Conflict("agent", rival, fact.subject, allows=not definite)


def _head_after(
    words: list[str], stems: list[str], r: int, target: str, *, gap: int = _MAX_GAP + 2
) -> bool:
    """Whether ``target`` (a stem) occurs within ``gap`` words after position ``r``, before a
    clause word."""
    for k in range(r + 1, min(len(stems), r + gap + 1)):
        if words[k] in _CLAUSE_WORDS:
            return False
        if stems[k] == target:
            return True
    return False


def _certainty_dropped(fact: Fact, evidence: str, head: str) -> Conflict | None:
    """The dropped-hedge check for a verb of proof: the fact's relation "confirms", "proves",
    "shows", … with a "that" clause for its object ("The rise … confirms that magma is moving
    toward the surface") and an evidence sentence giving every content word of the clause
    after a "that" with a hedge in the _REPORT_REACH words before it ("… could signal that
    magma is moving closer to the surface"), and none giving it after a verb of proof
    without one."""
    clause = _words(fact.object)
    if head not in _PROOF_VERBS or clause[:1] != ["that"]:
        return None
    content = _order_content(clause[1:])
    if len(content) < 2:
        return None
    hedged = None
    for text, words, stems in _evidence_sentences(evidence):
        for t, word in enumerate(words):
            if word != "that" or not content <= set(stems[t + 1 :]):
                continue
            before = words[max(0, t - _REPORT_REACH) : t]
            if set(before) & _NEGATORS:
                continue
            if set(before) & _HEDGES:
                hedged = hedged or text
            elif {_stem(w) for w in before} & _PROOF_VERBS:
                return None  # stated as proved
    if hedged is None:
        return None
    verb = next(
        (
            w.text(fact.relation)
            for w in tokenize_words(fact.relation)
            if _stem(w.text(fact.relation)) == head
        ),
        None,
    )
    return Conflict("hedge", hedged, value=verb)  # the verb of proof is what is wrong


def hedge_conflict(fact: Fact, evidence: str) -> Conflict | None:
    """The dropped-hedge check of the module docstring."""
    head, _, negated = _relation_head(fact.relation)
    subject = _subject_head(fact.subject)
    objects = [w for w in _words(fact.object) if any(c.isalpha() for c in w)]
    relation_words = set(_words(fact.relation))
    if head is None or subject is None or not objects or negated or fact.negated:
        return None
    hedging_modal = fact.modality is not None and fact.modality not in _CERTAIN_MODALS
    if hedging_modal or relation_words & (_HEDGES | _NEGATORS):
        return None
    proof = _certainty_dropped(fact, evidence, head)
    if proof is not None:
        return proof
    target = _stem(objects[-1])
    hedged = None
    for text, words, stems in _evidence_sentences(evidence):
        for k, stem in enumerate(stems):
            if stem != subject:
                continue
            for r in range(k + 1, min(len(stems), k + _MAX_GAP + 2)):
                between = words[k + 1 : r]
                if any(w in _CLAUSE_WORDS for w in between):
                    break
                if stems[r] != head or not _head_after(words, stems, r, target):
                    continue
                if any(w in _NEGATORS for w in between):
                    continue
                if not any(w in _HEDGES for w in between):
                    return None  # stated plainly
                hedged = hedged or text
    return None if hedged is None else Conflict("hedge", hedged)


def _one_of_after(words: list[str], stems: list[str], anchor: str, noun: str | None) -> bool:
    """Whether ``anchor`` (a stem) is followed, before a clause word and within _MAX_GAP + 2
    words, by "one of", with ``noun`` (a stem; None: any) among the _MAX_GAP words after it."""
    for k, stem in enumerate(stems):
        if stem != anchor:
            continue
        for j in range(k + 1, min(len(words) - 1, k + _MAX_GAP + 3)):
            if words[j] in _CLAUSE_WORDS:
                break
            if (
                words[j] == "one"
                and words[j + 1] == "of"
                and (noun is None or noun in stems[j + 2 : j + 2 + _MAX_GAP])
            ):
                return True
    return False


# Nouns that, with "the" and a form of "be", make the subject the one there is: "Vitamin D
# deficiency is the cause of the fatigue" (not "a cause").
_SOLE_ROLES = _set("cause reason source explanation culprit origin")


def _word_before(answer: str, start: int) -> str:
    """The answer's word right before offset ``start``, lower-cased ("" at its start): the
    article a fact left out of its subject or object ("the" of "the cause")."""
    before = answer[:start].split()[-1:]
    return before[0].lower() if before else ""


def _the_sole_role(fact: Fact, answer: str | None) -> bool:
    """Whether the fact says its subject "is the cause" ("the reason", "the source", …): a
    bare form of "be" and an object that opens with such a noun, "the" before it in the
    fact's object or, in ``answer``, right before the object."""
    relation = [w for w in _words(fact.relation) if any(c.isalnum() for c in w)]
    words = [w for w in _words(fact.object) if any(c.isalnum() for c in w)]
    if relation not in (["is"], ["was"], ["are"], ["were"]) or not words:
        return False
    if words[0] == "the":
        return words[1:2] != [] and words[1] in _SOLE_ROLES
    if words[0] not in _SOLE_ROLES or answer is None or not fact.object_spans:
        return False
    return _word_before(answer, fact.object_spans[0].start) == "the"


def uniqueness_conflict(fact: Fact, evidence: str, answer: str | None = None) -> Conflict | None:
    """The uniqueness check of the module docstring: a word of uniqueness on the subject
    ("the barrier alone"), in the relation ("caused solely by") or before the object's noun
    ("the main source"), or "the cause" (:func:`_the_sole_role`; ``answer`` gives the
    article the fact left out); the evidence's "one of" must follow the subject (for the
    object's word, with the object's noun after it; for "the cause", any noun), or the object
    (for the relation's word)."""
    if fact.negated:
        return None
    subject_words = [w for w in _words(fact.subject) if any(c.isalpha() for c in w)]
    relation_words, object_words = _words(fact.relation), _words(fact.object)
    said = subject_words + relation_words + object_words
    if any(a == "one" and b == "of" for a, b in itertools.pairwise(said)):
        return None
    subject = _subject_head(fact.subject)
    checks: list[tuple[str, str | None]] = []  # (anchor, noun that must follow "one of")
    if subject and set(subject_words) & _UNIQUE:
        checks.append((subject, None))
    if subject and set(object_words[:2]) & _UNIQUE and (noun := _chunk_head(fact.object)):
        checks.append((subject, noun))
    if set(relation_words) & _UNIQUE_RELATION and (anchor := _chunk_head(fact.object)):
        checks.append((anchor, None))
    if subject and _the_sole_role(fact, answer):
        checks.append((subject, None))
    if not checks:
        return None
    for text, words, stems in _evidence_sentences(evidence):
        if set(words) & _UNIQUE:
            continue
        if any(_one_of_after(words, stems, anchor, noun) for anchor, noun in checks):
            return Conflict("uniqueness", text)
    return None


_UNIVERSALS = _set("all every each")
_MOST_PART = _set("most half majority minority few")  # say "not all"
_SOME_PART = _set("some many several")  # leave room for all
_NOT_PART = _set("the at")  # "the most well designed studies", "at most ten"
_QUANTIFIER_REACH = 5  # words between a word of part and the group's noun at most


def _universal_group(subject: str) -> str | None:
    """The stem of the group's noun when ``subject`` opens with "all", "every" or "each"
    ("All of Kestwick Savings Bank's branches" → "branch"); None otherwise, or for a pronoun
    or number ("all of them", "each of the three")."""
    words = [w for w in _words(subject) if any(c.isalnum() for c in w)]
    if not words or words[0] not in _UNIVERSALS:
        return None
    rest = words[1:]
    if rest[:2] == ["one", "of"]:  # "every one of"
        rest = rest[2:]
    if rest[:1] == ["of"]:
        rest = rest[1:]
    chunk: list[str] = []
    for word in rest:
        if word in _PREPOSITIONS or word in _CLAUSE_WORDS:
            break
        if word not in _DETERMINERS:
            chunk.append(word)
    if not chunk or chunk[-1] in _PRONOUNS or any(c.isdigit() for c in chunk[-1]):
        return None
    return _stem(chunk[-1])


def _part_before(words: list[str], stems: list[str], k: int) -> str | None:
    """The word of part ("most", "some", …) at most _QUANTIFIER_REACH words before position
    ``k`` with no universal, clause word or punctuation between; None when there is none."""
    for j in range(k - 1, max(-1, k - 1 - _QUANTIFIER_REACH), -1):
        word = words[j]
        if word in _UNIVERSALS or word in _CLAUSE_WORDS or not any(c.isalnum() for c in word):
            return None
        if word in _MOST_PART or word in _SOME_PART:
            if j > 0 and (words[j - 1] in _NEGATORS or words[j - 1] in _NOT_PART):
                return None  # "not most", "the most" (a superlative), "at most" (a bound)
            return word
    return None


def quantifier_conflict(fact: Fact, evidence: str) -> Conflict | None:
    """The quantifier check of the module docstring."""
    if fact.negated:
        return None
    group = _universal_group(fact.subject)
    if group is None:
        return None
    said = {
        _stem(w)
        for w in _words(f"{fact.relation} {fact.object}")
        if any(c.isalpha() for c in w)
        and w not in _AUXILIARIES | _NEGATORS | _PREPOSITIONS | _DETERMINERS | _PRONOUNS
    }
    if not said:
        return None
    sentences = _evidence_sentences(evidence)
    for _, words, stems in sentences:
        for k, stem in enumerate(stems):
            if stem != group:
                continue
            before = words[max(0, k - _QUANTIFIER_REACH) : k]
            if any(w in _UNIVERSALS for w in before) and not any(w in _NEGATORS for w in before):
                return None  # the evidence says it of all of them somewhere
    for text, words, stems in sentences:
        for k, stem in enumerate(stems):
            if stem != group:
                continue
            end = next((j for j in range(k + 1, len(words)) if words[j] in _CLAUSE_WORDS), None)
            if not said & set(stems[k + 1 : end]):
                continue
            part = _part_before(words, stems, k)
            if part is not None:
                universal = next((w.text(fact.subject) for w in tokenize_words(fact.subject)), None)
                return Conflict("quantifier", text, value=universal, allows=part in _SOME_PART)
    return None


_COPULAS = _set("is are was were")
_PAST_COPULAS = _set("was were")
_DEFINITE = _set("the its his her their")
_ROLE_STOPS = frozenset(',;:.!?()[]"')


def _is_name(text: str) -> bool:
    """Capitalised words only (a digit-led word allowed: "Apollo 11"), at most five, one
    with a letter: "Lyon", "General William Howe"; "the museum" and "Its director" are not."""
    words = [w for w in text.split() if any(c.isalnum() for c in w)]
    if not words or len(words) > 5 or words[0].lower() in _DEFINITE | _DETERMINERS:
        return False
    return any(c.isalpha() for c in text) and _capitalised(words)


def _role(text: str) -> list[str] | None:
    """The content-word stems of a role description ("capital of France" → ["capit",
    "franc"]), its head noun first; None unless it is a lower-case noun phrase of at most six
    words after its determiners."""
    words = [w for w in text.split() if any(c.isalnum() for c in w)]
    while words and words[0].lower() in _DETERMINERS:
        words = words[1:]
    if not words or len(words) > 6 or not words[0][0].islower():
        return None
    if any(w.lower() in _PRONOUNS | _NEGATORS | _CLAUSE_WORDS for w in words):
        return None
    head = _chunk_head(" ".join(words))
    if head is None:
        return None
    rest = [
        _stem(w)
        for w in words
        if w.lower() not in _PREPOSITIONS | _DETERMINERS and _stem(w) != head
    ]
    return [head, *rest]


def _definite_before(answer: str, start: int) -> bool:
    """Whether the answer gives the role at ``start`` with a definite article or possessive
    ("the capital", "its director", "France's capital")."""
    before = answer[:start].rstrip()
    last = before.rsplit(None, 1)[-1].lower() if before else ""
    return last in _DEFINITE or last.endswith(("'s", "’s"))


def _evidence_roles(sentence: str) -> Iterator[tuple[str, str]]:
    """(role, copula) for each "<Name> is <the role>" and "<the role> is <Name>" of an
    evidence sentence (the role with a definite article or possessive), read off its words in
    order (no parse): each side runs from the copula to punctuation or a clause word."""
    words = sentence.replace(",", " , ").split()
    for i, word in enumerate(words):
        if word.lower() not in _COPULAS:
            continue
        left: list[str] = []
        for w in reversed(words[:i]):
            if w in _ROLE_STOPS or w.lower() in _CLAUSE_WORDS:
                break
            left.insert(0, w)
        right: list[str] = []
        for w in words[i + 1 :]:
            if w in _ROLE_STOPS or w.lower() in _CLAUSE_WORDS:
                break
            if w[-1] in _ROLE_STOPS:
                right.append(w[:-1])
                break
            right.append(w)
        for name, role in ((left, right), (right, left)):
            if _capitalised(name) and role and role[0].lower() in _DEFINITE:
                yield " ".join(role), word.lower()


def identity_conflict(fact: Fact, evidence: str, answer: str) -> Conflict | None:
    """The identity check of the module docstring."""
    relation = [w for w in fact.relation.split() if any(c.isalnum() for c in w)]
    if fact.negated or len(relation) != 1 or relation[0].lower() not in _COPULAS:
        return None
    if _is_name(fact.object) and fact.subject_spans:
        name, role_text, role_start = fact.object, fact.subject, fact.subject_spans[0].start
    elif _is_name(fact.subject) and fact.object_spans:
        name, role_text, role_start = fact.subject, fact.object, fact.object_spans[0].start
    else:
        return None
    role = _role(role_text)
    if role is None:
        return None
    definite = role_text.split()[0].lower() in _DEFINITE or _definite_before(answer, role_start)
    if not definite:
        return None
    name_words = set(_words(name))
    clauses = [clause for text, _, _ in _evidence_sentences(evidence) for clause in text.split(";")]
    for clause in clauses:
        words = _words(clause)
        if name_words & set(words) and role[0] in {_stem(w) for w in words}:
            return None  # a clause holds the fact's name beside the role: it may be theirs too
    past = relation[0].lower() in _PAST_COPULAS
    for clause in clauses:
        for evidence_role, copula in _evidence_roles(clause):
            if (copula in _PAST_COPULAS) != past:
                continue  # "was" the director then, "is" now: no conflict
            stated = _role(evidence_role)
            if stated is not None and stated[0] == role[0] and set(stated) <= set(role):
                return Conflict("identity", clause.strip())
    return None


@dataclass(frozen=True)
class _Comparison:
    """One "… COMPARATIVE … than …" of a sentence, as stems: ``key`` the comparative ("faster",
    "more frequent"), ``topic`` the clause's words before it, ``first`` / ``second`` the
    compared things — the words between the comparative and "than" and those after "than"
    (``first`` is the topic when nothing stands between: "The Falcon is faster than …")."""

    key: str
    topic: frozenset[str]
    first: frozenset[str]
    second: frozenset[str]


_COMPARISON_ENDS = frozenset({",", ";", ".", ":", "!", "?"})
_NOT_COMPARED = _set("than more less most least")
_COMPARATIVE_HEADS = frozenset(_COMPARATIVE_GROUPS) | {"more", "less"}


def _compared_stems(words: list[str]) -> frozenset[str]:
    """Stems of the words that can tell two compared things apart: no function word, no
    pronoun ("the new one"), no punctuation."""
    return frozenset(
        _stem(w)
        for w in words
        if any(c.isalnum() for c in w)
        and w not in _DETERMINERS | _PREPOSITIONS | _PRONOUNS | _AUXILIARIES | _NOT_COMPARED
    )


def _comparisons(words: list[str]) -> list[_Comparison]:
    """The comparisons of a sentence's words (see :class:`_Comparison`): a comparative of
    :data:`_COMPARATIVE_GROUPS` or "more" / "less" and its adjective, then "than" within
    fifteen words and no semicolon; the second thing ends at a comma, a sentence mark or
    after eight words."""
    out = []
    start = 0
    for c, word in enumerate(words):
        if word == ";":
            start = c + 1
        if word in _COMPARATIVE_GROUPS:
            key, after = word, c + 1
        elif (
            word in ("more", "less")
            and c + 1 < len(words)
            and words[c + 1].isalpha()
            and words[c + 1] != "than"  # "more than 50": a bound, no comparison
        ):
            key, after = f"{word} {words[c + 1]}", c + 2
        else:
            continue
        t = next((i for i in range(after, min(len(words), c + 16)) if words[i] == "than"), None)
        if t is None or ";" in words[after:t]:
            continue
        end = t + 1
        while end < len(words) and end - t <= 8 and words[end] not in _COMPARISON_ENDS:
            end += 1
        topic = _compared_stems(words[start:c])
        between = _compared_stems(words[after:t])
        second = _compared_stems(words[t + 1 : end])
        if not second:
            continue
        out.append(_Comparison(key, topic, between or topic, second))
    return out


def _answer_sentence(answer: str, at: int) -> str | None:
    """The sentence of ``answer`` holding the offset ``at``."""
    for span in segment_sentences(answer, backend="regex"):
        if span.start <= at < span.end:
            return span.text(answer)
    return None


def comparison_conflict(fact: Fact, evidence: str, answer: str) -> Conflict | None:
    """The comparison check of the module docstring."""
    relation = set(_words(fact.relation))
    if fact.negated or not fact.relation_spans or not relation & _COMPARATIVE_HEADS:
        return None
    sentence = _answer_sentence(answer, fact.relation_spans[0].start)
    if sentence is None:
        return None
    for claim in _comparisons(_words(sentence)):
        if claim.key.split()[0] not in relation:
            continue
        first, second = claim.first - claim.second, claim.second - claim.first
        # the fact must hold a compared thing: its object, or its subject when the subjects
        # are what is compared
        held = fact.subject if claim.first == claim.topic else fact.object
        if not _compared_stems(_words(held)) & (first | second):
            continue
        for text, words, _ in _evidence_sentences(evidence):
            for stated in _comparisons(words):
                if stated.key != claim.key:
                    continue
                if claim.first != claim.topic and not claim.topic & stated.topic:
                    continue  # another topic ("fever" for "headaches")
                first_, second_ = stated.first - stated.second, stated.second - stated.first
                crossed = len(first & second_) + len(second & first_)
                straight = len(first & first_) + len(second & second_)
                if first & second_ and second & first_ and crossed > straight:
                    return Conflict("role", text)
                if straight:
                    return None
    return None


def find_conflict(
    fact: Fact, evidence: str, *, value_role: bool = True, answer: str | None = None
) -> Conflict | None:
    """The first structural conflict between ``fact`` and ``evidence`` (role reversal,
    exception, negation, direction, comparison, order, value role, pairing, name role, agent,
    uniqueness, quantifier, antonym, identity, duration, status, dropped hedge), or None.
    ``value_role=False`` skips the value-role check (the caller already found the fact's value
    in conflict with the evidence, the more direct finding); the comparison and identity
    checks need ``answer``, the text the fact's spans point into."""
    if not evidence.strip():
        return None
    found = _first_conflict(fact, evidence, value_role, answer)
    if found is None and fact.source == "encoder":
        # the tagger's cut read again as the rules cut, by the role and direction checks
        # only: the rules' facts come cut so already, and the other checks read the tagger's
        # facts cut again into conflicts on entailed NLI pairs ("was destined | to unite
        # Italy" as a dropped hedge)
        reshaped = _verb_and_rest(fact)
        if reshaped is not None:
            found = role_conflict(reshaped, evidence) or direction_conflict(reshaped, evidence)
    return found


def _verb_and_rest(fact: Fact) -> Fact | None:
    """A tagger's fact cut as the rules extractor cuts it when its relation holds more than
    the verb ("Hansol Cells | imports its battery cells from | Velmora Electric", "The Aldren 7
    smartphone | is heavier than | its predecessor"): the relation its auxiliaries and verb
    ("imports"; a form of "be" alone before a comparative: "is"), the object the rest of the
    relation and the object ("its battery cells from Velmora Electric", "heavier than its
    predecessor"); None when the relation holds nothing after its verb but a preposition, or
    the fact has no object."""
    words = fact.relation.split()
    if not fact.object.strip():
        return None  # "has fallen down |": no object to move the rest before
    k = 0
    while k < len(words) and words[k].lower().strip(".,") in _AUXILIARIES | _NEGATORS:
        k += 1
    if k == len(words):
        return None
    core = words[k].lower()
    comparative = core.endswith(("er", "est")) or words[k + 1 : k + 2] == ["than"]
    cut = k if k > 0 and comparative and words[k - 1].lower() in _BE_FORMS else k + 1
    if all(w.lower() in _PREPOSITIONS | _DETERMINERS for w in words[cut:]):
        return None  # "was founded in | 1998" is cut so already
    return replace(
        fact,
        relation=" ".join(words[:cut]),
        object=" ".join([*words[cut:], fact.object]).strip(),
    )


_PASSIVE_BE = _set("is are was were be been being")


def _passive_as_active(fact: Fact, answer: str | None) -> tuple[Fact, bool] | None:
    """A passive fact with its agent ("The opening concert | will be conducted by | Amara
    Quist") said in the active voice ("Amara Quist | conducted | opening concert"), for the
    agent check, and whether its subject is definite in the answer ("The opening concert");
    None unless the relation ends in a form of "be", a participle and "by"."""
    words = fact.relation.split()
    lower = [w.lower() for w in words]
    if len(lower) < 3 or lower[-1] != "by" or lower[-3] not in _PASSIVE_BE:
        return None
    verb = lower[-2]
    if not (verb.endswith("ed") or verb in _IRREGULAR_BASE) or not fact.object.strip():
        return None
    active = replace(
        fact,
        subject=fact.object,
        relation=words[-2],
        object=fact.subject,
        subject_spans=list(fact.object_spans),
        relation_spans=[],
        object_spans=[],
    )
    first = _words(fact.subject)[:1]
    definite = bool(first) and (first[0] in _DEFINITE or fact.subject[:1].isupper())
    if answer is not None and fact.subject_spans:
        before = _word_before(answer, fact.subject_spans[0].start)
        definite = definite or before in _DEFINITE or before.endswith("'s")
    return active, definite


def _passive_agent_conflict(fact: Fact, evidence: str, answer: str | None) -> Conflict | None:
    """The agent check of a passive fact read in the active voice ("The opening concert will
    be conducted by Amara Quist" against "The orchestra's principal conductor, Tobias
    Reinholt, will lead the opening concert"): the fact's agent is blamed, and the conflict
    is ``contradicted`` when the fact's subject is definite."""
    passive = _passive_as_active(fact, answer)
    if passive is None:
        return None
    active, definite = passive
    found = agent_conflict(active, evidence, answer)
    return None if found is None else replace(found, allows=not definite)


def _first_conflict(
    fact: Fact, evidence: str, value_role: bool, answer: str | None
) -> Conflict | None:
    """The first conflict of the fact as it is cut, in the order :func:`find_conflict` names."""
    return (
        role_conflict(fact, evidence)
        or exception_conflict(fact, evidence)
        or negation_conflict(fact, evidence)
        or direction_conflict(fact, evidence)
        or (comparison_conflict(fact, evidence, answer) if answer is not None else None)
        or order_conflict(fact, evidence)
        or (value_role_conflict(fact, evidence) if value_role else None)
        or pairing_conflict(fact, evidence, answer)
        or name_role_conflict(fact, evidence)
        or agent_conflict(fact, evidence, answer)
        or _passive_agent_conflict(fact, evidence, answer)
        or uniqueness_conflict(fact, evidence, answer)
        or quantifier_conflict(fact, evidence)
        or antonym_conflict(fact, evidence, answer)
        or (identity_conflict(fact, evidence, answer) if answer is not None else None)
        or duration_conflict(fact, evidence)
        or status_conflict(fact, evidence)
        or hedge_conflict(fact, evidence)
    )


def _same_word(a: str, b: str) -> bool:
    """Two stems of one word or of one family ("direct" / "director", "retir" /
    "retirement"): equal, or one opens the other and has at least five letters."""
    short, long = sorted((a, b), key=len)
    return short == long or (len(short) >= 5 and long.startswith(short))


def duration_conflict(fact: Fact, evidence: str) -> Conflict | None:
    """The duration check: the fact gives a length in years ("Årdal directed the Kingsreach
    Observatory for 22 years"), and an evidence sentence that holds the fact's subject and
    all of its other content words but one dates the same thing by two years ("Dr. Selma
    Årdal served as director of the Kingsreach Observatory from 1996 until her retirement in
    2014": 18 years) more than a year apart from it; no evidence sentence gives the fact's
    length itself. The number is blamed. Only a length stated plainly ("for", "lasted",
    "spent" right before the number; "for nearly 22 years" is left to the verifier), a
    sentence with one such period and no negation, and a fact that is not negated."""
    if fact.negated:
        return None
    text = " ".join(_words(" ".join((fact.subject, fact.relation, fact.object))))
    match = DURATION_RE.search(text)
    years = year_count(match.group("n")) if match else None
    if match is None or years is None:
        return None
    rest = _content_positions(_words(text[: match.start()] + " " + text[match.end() :]))
    wanted = [stem for _, stem in rest]
    subject = {stem for _, stem in _content_positions(_words(fact.subject))}
    if len(wanted) < 2 or not subject:
        return None
    stated = re.compile(rf"\b{years}\s+years?\b|\b{re.escape(match.group('n'))}\s+years?\b")
    found = None
    for sentence, words, stems in _evidence_sentences(evidence):
        lowered = " ".join(words)
        if stated.search(lowered):
            return None  # "… for 22 years" said in the evidence
        if _denies(words):
            continue
        period = elapsed_years(lowered)
        if period is None or abs(period[1] - period[0] - years) <= 1:
            continue
        present = {s for s in wanted if any(_same_word(s, t) for t in stems)}
        if not subject & present or len(present) < len(set(wanted)) - 1:
            continue
        if found is None:
            found = sentence
    if found is None:
        return None
    written = re.search(rf"\b{re.escape(match.group('n'))}\s+years?\b", fact.object, re.I)
    return Conflict("duration", found, value=written.group(0) if written else None)


# Words that put an event still to come: "will reopen", "is expected to reopen", "are planned
# for next year", "plans to build".
_FUTURE_LEADS = _set("expected due scheduled set slated planned poised going")
_INTENT_VERBS = _set("plan plans intend intends aim aims")
_PRESENT_BE = _set("is are am")
# Irregular past forms the check reads besides the regular -ed ones, with their base.
_IRREGULAR_BASE = {
    "built": "build", "bought": "buy", "sold": "sell", "won": "win", "began": "begin",
    "begun": "begin", "held": "hold", "made": "make", "took": "take", "taken": "take",
    "gave": "give", "given": "give", "left": "leave", "went": "go", "gone": "go", "ran": "run",
    "met": "meet", "paid": "pay", "sent": "send", "spent": "spend", "lost": "lose",
    "found": "find", "chose": "choose", "chosen": "choose", "wrote": "write",
    "written": "write", "brought": "bring", "rose": "rise", "risen": "rise", "fell": "fall",
    "fallen": "fall", "grew": "grow", "grown": "grow", "became": "become", "become": "become",
}  # fmt: skip
_IRREGULAR_PAST = frozenset(_IRREGULAR_BASE)
# Words before a verb that keep it from stating a past event ("will have reopened", "is
# expected to have", "could have", "never reopened").
_NOT_DONE_BEFORE = _set(
    "to will would shall should may might could can must not n't never no expected due "
    "scheduled planned set going if unless"
)
# Another instance of the event, which a past one does not rule out: "plans to hire 300
# more", "further sea trials are planned".
_ANOTHER = _set("more another additional further again second other")
_STATUS_REACH = 8  # words between the event's verb and its object's head at most
_PAST_AUXILIARIES = _set("has have had was were been")


def _verb_stem(word: str) -> str:
    """The stem of a verb in any form, an irregular past read as its base ("built" → "build",
    "reopened" → "reopen")."""
    return _stem(_IRREGULAR_BASE.get(word, word))


def _is_past(words: list[str], k: int) -> bool:
    """Whether the verb at ``k`` states a past event: a past form ("reopened", "built"), or
    a participle after "has" / "have" / "had" / "was" / "were" ("has completed"), with no
    modal, "to", negation or word of expectation in the four words before it; not a present
    passive ("is recorded") nor a participle before its agent without an auxiliary
    ("Palestrina, performed by the Royal Opera")."""
    word = words[k]
    regular = word.endswith("ed") and len(word) > 4 and _stem(word) != word
    if not (regular or word in _IRREGULAR_PAST):
        return False
    before = words[k - 1] if k > 0 else ""
    if before in _PRESENT_BE | {"be", "being"}:
        return False
    if words[k + 1 : k + 2] == ["by"] and before not in _PAST_AUXILIARIES:
        return False
    return not set(words[max(0, k - 4) : k]) & _NOT_DONE_BEFORE


def _future_verb(words: list[str]) -> tuple[int, int] | None:
    """(start of the future marker, position of the verb) when ``words`` (a relation) put an
    event still to come: "is expected to reopen", "will reopen", "plans to build"; None
    otherwise, or when the marker is past ("was expected to")."""
    for i, word in enumerate(words):
        if word in ("will", "shall"):
            k = i + 1 + (words[i + 1 : i + 2] == ["be"])
            return (i, k) if k < len(words) else None
        if word in _PRESENT_BE and words[i + 1 : i + 2] and words[i + 1] in _FUTURE_LEADS:
            if words[i + 2 : i + 3] != ["to"]:
                return None
            k = i + 3 + (words[i + 3 : i + 4] == ["be"])
            return (i, k) if k < len(words) else None
        if word in _INTENT_VERBS and words[i + 1 : i + 2] == ["to"] and i + 2 < len(words):
            return (i, i + 2)
    return None


def _done_verb(words: list[str]) -> int | None:
    """The position of the verb when ``words`` (a relation) state a past event: "has
    completed", "has already completed", "was reopened", "reopened", "built"; None otherwise
    (a modal, a future, a present)."""
    if set(words) & (_NEGATORS | {"will", "shall", "would", "may", "might", "could", "can",
                                  "should", "must", "to"}):  # fmt: skip
        return None
    k = 0
    if words[:1] and words[0] in ("has", "have", "had", "was", "were"):
        k = 1
        while k < len(words) and words[k] in ("already", "been", "just", "now", "also"):
            k += 1
    if k < len(words) and (words[k].endswith("ed") or words[k] in _IRREGULAR_PAST):
        return k
    return None


def status_conflict(fact: Fact, evidence: str) -> Conflict | None:
    """The status check: the fact puts an event still to come that an evidence sentence says
    has happened ("The Tessaly Bridge is expected to reopen to traffic" against "The Tessaly
    Bridge … reopened to traffic last month"), or says has happened what an evidence sentence
    puts still to come ("HMS Corrigan has completed its sea trials" against "Sea trials are
    planned for next year"). The event is the fact's verb (its family: "reopen" /
    "reopened") with the head of its object at most eight words after it, and the fact's
    subject before it in the sentence; or, for a fact whose verb says its object took place
    ("completed", "held"), that object as what "is planned", "are scheduled", "will" (the
    subject named in that sentence or the one before). Not when any evidence sentence states the event as
    the fact does, nor for another instance of it ("plans to hire 300 more", "further sea
    trials are planned"), nor for a negated fact. The future's words ("expected to reopen")
    or the past verb ("completed") are blamed."""
    if fact.negated:
        return None
    relation = [w for w in _words(fact.relation) if any(c.isalnum() for c in w)]
    subject = _subject_head(fact.subject)
    target = _chunk_head(fact.object)
    if subject is None or target is None or not relation:
        return None
    future = _future_verb(relation)
    done = None if future is not None else _done_verb(relation)
    if future is None and done is None:
        return None
    verb_at = future[1] if future is not None else done
    if verb_at is None:
        return None
    verb = _verb_stem(relation[verb_at])
    bare = done == 0  # "needed in", "received before": no auxiliary before the past form
    taking_place = done is not None and verb in _TAKING_PLACE
    sentences = _evidence_sentences(evidence)
    if done is not None and _stated_done(sentences, verb, fact.object):
        return None
    found = None
    for n, (text, words, stems) in enumerate(sentences):
        if _denies(words) and future is None:
            continue
        for k, word in enumerate(words):
            stem = stems[k] if word not in _IRREGULAR_BASE else _verb_stem(word)
            if not _same_word(stem, verb) or subject not in stems[:k]:
                continue
            if not _head_after(words, stems, k, target, gap=_STATUS_REACH):
                continue
            past = _is_past(words, k)
            window = words[max(0, k - 4) : k + 1]
            marker = _future_verb(window)
            # the future's own verb ("will consider the comments received": not "received"),
            # and in the active voice for a fact's bare past form, which may be a participle
            # ("items needed in the new facility" is no "will be needed")
            planned = marker is not None and marker[1] == len(window) - 1
            if planned and bare and window[-2:-1] == ["be"]:
                planned = False
            if (past and future is None) or (planned and future is not None):
                return None  # stated as the fact states it
            if set(words[k + 1 : k + 1 + _STATUS_REACH]) & _ANOTHER:
                continue
            if (past and future is not None) or (planned and done is not None):
                found = found or text
        if taking_place and found is None and _planned_object(fact, sentences, n):
            found = text
    if found is None:
        return None
    shown = fact.relation.split()
    if future is not None:
        start = next(
            (i for i, w in enumerate(shown) if w.lower() not in _PRESENT_BE | {"will", "shall"}),
            0,
        )
        return Conflict("status", found, value=" ".join(shown[start : future[1] + 1]))
    return Conflict("status", found, value=shown[verb_at] if verb_at < len(shown) else None)


# Verbs that say an event of their object took place ("completed its sea trials", "held the
# vote"), so that the object still to come ("Sea trials are planned") denies them; not "made
# its album" against "The album is due for release".
_TAKING_PLACE = frozenset(
    _stem(w) for w in _set("complete finish hold conduct carry undergo stage host begin start")
)
# What puts an event still to come as the subject of "is" / "are": "planned", "scheduled".
_PLANNED_LEADS = _set("planned scheduled slated")


def _planned_object(
    fact: Fact, sentences: tuple[tuple[str, list[str], list[str]], ...], n: int
) -> bool:
    """Whether sentence ``n`` puts still to come the event the fact's verb says took place
    (the caller checks that the verb is one of :data:`_TAKING_PLACE`: "completed its sea
    trials" against "Sea trials are planned for next year", "… are scheduled", "… will take
    place"): the object's words
    right before "is" / "are" "planned" / "scheduled" / "slated", or "will", without a word of
    another instance before them, and the fact's subject named in it or the sentence
    before."""
    phrase = _phrase(fact.object)
    subject = _subject_head(fact.subject)
    if phrase is None or subject is None:
        return False
    _, words, stems = sentences[n]
    near = set(stems) | (set(sentences[n - 1][2]) if n > 0 else set())
    if subject not in near:
        return False
    for start, end in _occurrences(stems, phrase):
        after = words[end : end + 2]
        planned = (after[:1] and after[0] in _PRESENT_BE and after[1:] and after[1] in
                   _PLANNED_LEADS) or after[:1] == ["will"]  # fmt: skip
        if planned and not set(words[max(0, start - 2) : start]) & (_ANOTHER | _NEGATORS):
            return True
    return False


def _stated_done(
    sentences: tuple[tuple[str, list[str], list[str]], ...], verb: str, obj: str
) -> bool:
    """Whether a sentence gives the fact's verb (its family) as a past event and the fact's
    object anywhere ("Sea trials were completed in May", in either order)."""
    phrase = _phrase(obj)
    if phrase is None:
        return False
    return any(
        _occurrences(stems, phrase)
        and any(
            _same_word(stems[k] if w not in _IRREGULAR_BASE else _verb_stem(w), verb)
            and _is_past(words, k)
            for k, w in enumerate(words)
        )
        for _, words, stems in sentences
    )


# --- pairing: a value given the name the evidence pairs with another value ---------------

_CURRENCY = frozenset("$€£¥")
_PERCENT_WORDS = _set("% percent per cent")


@dataclass(frozen=True)
class _Mention:
    """A value or a name among a text's tokens: its first and last token, and what it is (a
    value's number and kind, a name's lower-cased words)."""

    first: int
    last: int
    value: tuple[str, str] | None = None
    name: tuple[str, ...] | None = None


@functools.lru_cache(maxsize=256)
def _pair_mentions(text: str) -> tuple[_Mention, ...]:
    """The values ("11%", "€8.3", "1,200"; kind ``pct``, ``money``, ``year`` or ``plain``)
    and names (runs of capitalised words; a plain English word opening the text is none) of
    ``text``, in order. A number right after a capitalised word is part of a name ("AirPure
    500", "Emberline 40"), not a value."""
    raw = [span.text(text) for span in _sentence_tokens(text)]
    out: list[_Mention] = []
    k = 0
    while k < len(raw):
        token = raw[k]
        if token[:1].isdigit() and any(c.isdigit() for c in token):
            number = token.replace(",", "")
            before = raw[k - 1] if k > 0 else ""
            if before[:1].isupper() and before.lower() not in _DETERMINERS:
                k += 1  # a model's number
                continue
            after = raw[k + 1].lower() if k + 1 < len(raw) else ""
            if after in _PERCENT_WORDS:
                kind = "pct"
            elif before in _CURRENCY:
                kind = "money"
            elif re.fullmatch(r"(?:1\d|20)\d\d", number):
                kind = "year"
            else:
                kind = "plain"
            out.append(_Mention(k, k, value=(number, kind)))
            k += 1
            continue
        if token.lower() in _DETERMINERS | _PRONOUNS:
            k += 1  # "The Tessaly Bridge": the name starts after its article
            continue
        if token[:1].isupper() and token[:1].isalpha():
            j = k
            while j + 1 < len(raw) and (
                raw[j + 1][:1].isupper()
                or (
                    raw[j + 1].lower() in _NAME_JOINERS
                    and j + 2 < len(raw)
                    and raw[j + 2][:1].isupper()
                )
            ):
                j += 1
            words = tuple(w.lower() for w in raw[k : j + 1] if w.lower() not in _NAME_JOINERS)
            opening_plain = k == 0 and j == 0 and is_plain_word(token)
            if words and not opening_plain:
                out.append(_Mention(k, j, name=words))
            k = j + 1
            continue
        k += 1
    return tuple(out)


def _partner(mentions: tuple[_Mention, ...], i: int, after: bool) -> _Mention | None:
    """The name paired with the value ``mentions[i]``: the first name after it before the
    next value (``after``), or the last one before it after the previous value."""
    step = 1 if after else -1
    j = i + step
    while 0 <= j < len(mentions):
        if mentions[j].value is not None:
            return None
        if mentions[j].name is not None:
            return mentions[j]
        j += step
    return None


def _names_one(mention: _Mention | None, name: tuple[str, ...]) -> bool:
    return mention is not None and mention.name is not None and _may_be_one(mention.name, name)


def _link(raw: list[str], value: _Mention, partner: _Mention | None, after: bool) -> str | None:
    """The word that ties a value to its name, which parallel pairs share: the last word
    before the name ("taking" of "11% of patients taking Luvadipine", "in" of "8% in
    Europe"), or, when the name stands first, the last word before the value ("by" of
    "Luvadipine by 11%"); determiners aside. None when no word stands between them."""
    if partner is None:
        return None
    between = raw[value.last + 1 : partner.first] if after else raw[partner.last + 1 : value.first]
    words = [w for w in between if w.isalpha() and w not in _DETERMINERS]
    return words[-1] if words else None


_CONTINUATION_STOP_RE = re.compile(r"[.,;:!?()\[\]\n]")


def _continued(fact: Fact, answer: str | None) -> str:
    """The answer's words right after the fact, up to a punctuation mark and at most six
    ("taking Corvastin" after the rules' "Ankle swelling | was reported by | 11% of
    patients"); empty without the answer or the fact's spans."""
    spans = [*fact.subject_spans, *fact.relation_spans, *fact.object_spans]
    if answer is None or not spans:
        return ""
    rest = answer[max(s.end for s in spans) :]
    stop = _CONTINUATION_STOP_RE.search(rest)
    return " ".join((rest[: stop.start()] if stop else rest).split()[:6])


def pairing_conflict(fact: Fact, evidence: str, answer: str | None = None) -> Conflict | None:
    """The pairing check: the fact pairs a value with a name ("Ankle swelling was reported by
    11% of patients taking Corvastin"; "Sales grew 8% in Asia") that an evidence sentence pairs
    with another value, giving the fact's value to another name ("… by 11% of patients taking
    Luvadipine and by 2% of those taking Corvastin"; "Sales grew 8% in Europe and 5% in
    Asia"). The fact holds one value and one name; a value's name is the first name after it
    before the next value when the fact writes the name after the value (the last one before
    it otherwise), in the evidence as in the fact; the two pairs of the evidence must be
    parallel, their names tied to their values by the same word (:func:`_link`: "taking" /
    "taking", "in" / "in"; not "in 1967 and PhD in 1973 from the University of Moscow").
    Not when any evidence sentence pairs the fact's value with its name or another sentence
    holds them both, nor for names that may be one (:func:`_may_be_one`). The name is
    blamed."""
    if fact.negated:
        return None
    text = " ".join((fact.subject, fact.relation, fact.object))
    mentions = _pair_mentions(text)
    values = [i for i, m in enumerate(mentions) if m.value is not None]
    names = [i for i, m in enumerate(mentions) if m.name is not None]
    if len(values) == 1 and not names and (more := _continued(fact, answer)):
        # the rules cut "11% of patients" and "patients taking Corvastin" apart: the name
        # the answer gives the value right after the fact
        text = f"{text} {more}"
        mentions = _pair_mentions(text)
        values = [i for i, m in enumerate(mentions) if m.value is not None]
        names = [i for i, m in enumerate(mentions) if m.name is not None]
    if len(values) != 1 or len(names) != 1:
        return None
    value = mentions[values[0]].value
    name = mentions[names[0]].name
    assert value is not None and name is not None
    after = names[0] > values[0]
    rival = None
    holding = 0
    for sentence, _, _ in _evidence_sentences(evidence):
        found = _pair_mentions(sentence)
        raw = [span.text(sentence).lower() for span in _sentence_tokens(sentence)]
        partners = {
            i: _partner(found, i, after) for i, m in enumerate(found) if m.value is not None
        }
        own = [i for i in partners if found[i].value == value]
        if any(_names_one(partners[i], name) for i in own):
            return None  # the fact's value paired with its name
        if own and any(_names_one(m, name) for m in found):
            holding += 1  # a sentence with the value and the name, paired or not
        if rival is not None:
            continue
        links = {i: _link(raw, found[i], partners[i], after) for i in partners}
        for i in own:
            if partners[i] is None or links[i] is None:
                continue
            for j in partners:
                w = found[j].value
                if (
                    _names_one(partners[j], name)
                    and w is not None
                    and w[1] == value[1]
                    and w != value
                    and links[j] == links[i]
                ):
                    rival = sentence
    if rival is None or holding > 1:
        return None  # another sentence gives the value and the name some other way
    written = " ".join(
        span.text(text) for span in _sentence_tokens(text)[mentions[names[0]].first :
                                                          mentions[names[0]].last + 1]
    )  # fmt: skip
    return Conflict("pairing", rival, value=written)
