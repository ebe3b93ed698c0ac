"""The rules extractor's pipeline, from answer text to anchored facts.

mask Markdown (offsets kept) → parse each sentence with spaCy → flag sentences that are not
parseable English (and skip questions) → split into clauses → propose facts with the rule families → shape spans
→ filter → de-duplicate. Every span is a half-open ``[start, end)`` character offset pair into
the ORIGINAL answer.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from enoki_hd.extract import register
from enoki_hd.extract.rules import language
from enoki_hd.extract.rules.candidates import FactBuilder, shape_facts
from enoki_hd.extract.rules.clauses import find_clause
from enoki_hd.extract.rules.families import appositive, copula, participial, verb_object
from enoki_hd.extract.rules.markdown import mask_markdown
from enoki_hd.extract.rules.syntax import SUBJECT_DEPS, is_copula
from enoki_hd.text import (
    DEFAULT_SPACY_MODEL,
    load_spacy_pipeline,
    segment_sentences,
    split_long_text,
)
from enoki_hd.types import Fact, Span

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Token
    from spacy.tokens import Span as DocSpan

logger = logging.getLogger(__name__)


@dataclass
class RulesAnalysis:
    """What the rules extractor found in one answer.

    ``sentences`` are the sentence spans used (offsets into the answer); ``unparseable`` the
    indices of sentences with no parseable English (they yield no facts; a detector reports
    them as ``unsupported_language``); ``dropped`` the number of candidate facts left out by
    the per-sentence cap.
    """

    facts: list[Fact]
    sentences: list[Span]
    unparseable: set[int] = field(default_factory=set)
    dropped: int = 0


# Prefixes that are no words of their own: the tokenizer splits "co-founded" into "co", "-",
# "founded", and the parser then reads "co" as a noun and "-" as the verb ("Ruppert co-owned the
# Red Sox" gave no fact, "He co-founded the company" gave (He, co, )). Merged back into one
# token before parsing, the word is tagged and attached as the verb (or adjective) it is.
_BOUND_PREFIXES = frozenset(
    {"co", "re", "pre", "non", "un", "mis", "self", "anti", "semi", "multi", "ex", "mid"}
    | {"post", "inter", "pro", "sub"}
)


def merge_prefixed_words(doc: Doc) -> Doc:
    """``doc`` (tokenized, not yet parsed) with each prefix its tokenizer split off by a hyphen
    merged back into its word: "co", "-", "founded" → "co-founded". Only a bound prefix
    (:data:`_BOUND_PREFIXES`) written against the hyphen and a lower-case word; character
    offsets are unchanged."""
    spans = []
    i = 0
    while i + 2 < len(doc):
        prefix, hyphen, word = doc[i], doc[i + 1], doc[i + 2]
        if (
            prefix.lower_ in _BOUND_PREFIXES
            and hyphen.text == "-"
            and not prefix.whitespace_
            and not hyphen.whitespace_
            and word.is_alpha
            and word.is_lower
        ):
            spans.append(doc[i : i + 3])
            i += 3
        else:
            i += 1
    if spans:
        with doc.retokenize() as retokenizer:
            for span in spans:
                retokenizer.merge(span)
    return doc


# The words a title leaves in lower case ("Gone with the Wind", "To the Lighthouse").
_TITLE_SMALL_WORDS = frozenset(
    {"a", "an", "the", "and", "of", "with", "in", "on", "to", "for", "at", "by", "from"}
)
_QUOTES = frozenset({'"', "\u201c", "\u201d"})
_PRONOUNS = frozenset({"he", "she", "it", "they", "we"})


def title_run_end(doc: Doc) -> int:
    """The end (token index) of the title a sentence starts with, or 0: a run of at least two
    capitalised words (small words inside it in lower case), or a quoted run, followed by its
    verb in lower case ("To Kill a Mockingbird was published …", "\u201cGone with the
    Wind\u201d is …"). Not a quotation that ends in punctuation, a run a pronoun starts a new
    sentence in, or a subordinate clause's opening; and not across a colon: "Star Wars: The
    Force Awakens is …" reads as an answer's "The Orthodox: The Orthodox are the
    traditionalists …", a label and its sentence."""
    end = 0
    if len(doc) and doc[0].text in _QUOTES:
        end = next((t.i + 1 for t in doc[1:12] if t.text in _QUOTES), 0)
        if end > 2 and doc[end - 2].is_punct:
            return 0  # a quotation: '"My only strength is my difference," says M'Sa'
    else:
        for token in doc:
            if token.lower_ in _PRONOUNS and token.i and token.head.i >= token.i:
                break  # "Greek letter F. He had taught …": a sentence after a bad split
            if token.text[:1].isupper():
                end = token.i + 1
            elif not (token.i and token.lower_ in _TITLE_SMALL_WORDS):
                break
    if end < 2 or end >= len(doc) or not doc[end].text[:1].islower():
        return 0
    verb = next((t for t in doc[end:] if not t.tag_.startswith("RB")), doc[end])
    if not (verb.tag_.startswith("VB") or verb.tag_ == "MD"):
        return 0  # a title is followed by its verb ("Speaking of Jean Charles de Menezes")
    first = doc[0]
    if first.dep_ in ("mark", "advmod") and first.head.i >= end and first.head.dep_ != "ROOT":
        return 0  # a clause's opening ("When Albright was …, Stahl asked", "Although X is …")
    return end


def title_misparsed(doc: Doc, end: int) -> bool:
    """Whether the parse of a sentence that starts with a title (:func:`title_run_end`) took
    the title apart: the main verb inside it ("Gone with the Wind is …" made "Gone" the
    root), no subject ("To the Lighthouse is set in …"), a subject inside it that is a verb
    ("A Star Is Born is …": "Born"), or one after words that are no adverbial of the main
    verb ("As I Lay Dying is …": "Dying"; :func:`_adverbial_prefix`)."""
    root = doc[0].sent.root
    if root.i < end:
        return True
    subject = next((c for c in root.children if c.dep_ in SUBJECT_DEPS), None)
    if subject is None:
        return True
    if subject.i >= end:
        return False
    if subject.pos_ in ("VERB", "AUX"):
        return True
    return subject.left_edge.i > 0 and not _adverbial_prefix(doc[: subject.left_edge.i], root)


# How a sentence's opening words before its subject attach to the main verb when they are an
# adverbial of their own ("Today Apple announced …", "On Monday Congress passed …", "However
# Smith disagreed"), not a piece of a title ("As I Lay Dying is …": "As" a mark on the main
# verb; "Richard I used …": "Richard" a name read as an adverbial noun).
_PREFIX_DEPS = frozenset({"advmod", "npadvmod", "prep", "intj", "cc", "punct"})
_WHEN = frozenset({"DATE", "TIME"})  # "Last Saturday I was …": a day's name is no title


def _adverbial_prefix(prefix: DocSpan, root: Token) -> bool:
    """Whether ``prefix`` is whole adverbials of ``root``: each of its words whose head lies
    outside it hangs on the root by :data:`_PREFIX_DEPS` (an adverbial noun not a name)."""
    inside = range(prefix.start, prefix.end)
    heads = [t for t in prefix if t.head.i not in inside]
    return all(
        t.head.i == root.i
        and t.dep_ in _PREFIX_DEPS
        and not (t.dep_ == "npadvmod" and t.pos_ == "PROPN" and t.ent_type_ not in _WHEN)
        for t in heads
    )


def is_question(doc: Doc) -> bool:
    """A sentence ending in ``?`` asks rather than asserts: it has no facts to check."""
    last = next((t for t in reversed(doc) if not t.is_space), None)
    return last is not None and last.text.startswith("?")


def propose(builder: FactBuilder, doc: Doc) -> None:
    """Run every rule family over one parsed sentence, in token order (none for a question)."""
    if is_question(doc):
        return
    for token in doc:
        if token.dep_ == "appos":
            appositive.propose(builder, token)
        clause = find_clause(token)
        if clause is None:
            continue
        if clause.kind == "participial":
            participial.propose(builder, clause)
        elif is_copula(clause.predicate) and len(clause.heads) == 1:
            copula.propose(builder, clause)
        else:
            verb_object.propose(builder, clause)


@register("rules")
class RulesExtractor:
    """Relational facts from a spaCy dependency parse, with incremental chains.

    For one (subject, relation) the facts go from coarse to fine (``band`` → ``rock band`` →
    ``English rock band``); each refinement's ``parent`` is the next coarser fact's id and its
    ``delta`` the spans it adds (function words left out when it adds content words). A fact
    without parent has as ``delta`` its object spans (else relation, else subject): what it
    asserts. Ids are ``f{sentence}.{k}``, deterministic; ``source`` is ``rules:<family>`` and
    ``confidence`` the family's (:data:`~enoki_hd.extract.rules.candidates.FAMILY_CONFIDENCE`).

    Args:
        model: spaCy pipeline name (default the small English model; ``en_core_web_trf`` or
            ``en_core_web_lg`` where installed).
        max_facts_per_sentence: cap on the facts of one sentence; candidates past it are
            dropped and counted in :attr:`RulesAnalysis.dropped` (logged).
        max_phrase_tokens: longest subject or object phrase kept, in tokens; longer chain
            steps are not emitted.
        max_sentence_chars: sentences longer than this are parsed in pieces cut at line
            breaks, sentence punctuation or whitespace (logged), never truncated.
        min_english_share: sentences whose English-lexicon share is below this yield no
            facts and are reported unparseable (:mod:`.language`).
        batch_size: sentences per ``nlp.pipe`` batch.
    """

    name = "rules"

    def __init__(
        self,
        *,
        model: str = DEFAULT_SPACY_MODEL,
        max_facts_per_sentence: int = 64,
        max_phrase_tokens: int = 24,
        max_sentence_chars: int = 5_000,
        min_english_share: float = language.DEFAULT_MIN_ENGLISH_SHARE,
        batch_size: int = 64,
    ) -> None:
        for option, value in (
            ("max_facts_per_sentence", max_facts_per_sentence),
            ("max_phrase_tokens", max_phrase_tokens),
            ("max_sentence_chars", max_sentence_chars),
            ("batch_size", batch_size),
        ):
            if value < 1:
                raise ValueError(f"{option} must be >= 1, got {value}")
        if not 0.0 <= min_english_share <= 1.0:
            raise ValueError(f"min_english_share must be in [0, 1], got {min_english_share}")
        self.model = model
        self.max_facts_per_sentence = max_facts_per_sentence
        self.max_phrase_tokens = max_phrase_tokens
        self.max_sentence_chars = max_sentence_chars
        self.min_english_share = min_english_share
        self.batch_size = batch_size
        self._last: tuple[tuple[str, tuple[Span, ...] | None], RulesAnalysis] | None = None

    def config(self) -> dict[str, Any]:
        """The name and every option (``get_extractor(**config())`` rebuilds this extractor)."""
        return {
            "name": self.name,
            "model": self.model,
            "max_facts_per_sentence": self.max_facts_per_sentence,
            "max_phrase_tokens": self.max_phrase_tokens,
            "max_sentence_chars": self.max_sentence_chars,
            "min_english_share": self.min_english_share,
            "batch_size": self.batch_size,
        }

    @property
    def nlp(self) -> Language:
        """The spaCy pipeline (loaded on first use, shared through the loader's cache)."""
        return load_spacy_pipeline(self.model)

    def extract(self, answer: str, *, sentences: list[Span] | None = None) -> list[Fact]:
        """Facts of ``answer`` with spans into the original answer (see the class docstring)."""
        return self.analyze(answer, sentences=sentences).facts

    def unparseable_sentences(self, answer: str, sentences: list[Span] | None = None) -> set[int]:
        """Indices of the sentences with no parseable English (they yield no facts)."""
        return self.analyze(answer, sentences=sentences).unparseable

    def analyze(self, answer: str, *, sentences: list[Span] | None = None) -> RulesAnalysis:
        """Facts, sentence spans and unparseable sentences of ``answer``.

        The last answer's analysis is kept, so :meth:`extract` followed by
        :meth:`unparseable_sentences` on the same answer parses once.
        """
        if not isinstance(answer, str):
            raise TypeError(f"answer must be str, got {type(answer).__name__}")
        key = (answer, None if sentences is None else tuple(sentences))
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        if sentences is None:
            sentences = segment_sentences(answer, model=self.model)
        for span in sentences:
            if not isinstance(span, Span) or span.end > len(answer):
                raise ValueError(
                    f"sentence {span!r} is not a Span inside the answer of length {len(answer)}"
                )
        analysis = self._analyze(answer, list(sentences))
        self._last = (key, analysis)
        return analysis

    def _pieces(self, masked: str, sentence: Span) -> list[Span]:
        text = masked[sentence.start : sentence.end]
        if len(text) <= self.max_sentence_chars:
            return [sentence]
        logger.info(
            "sentence %d:%d has %d characters; parsing it in pieces of at most %d",
            sentence.start,
            sentence.end,
            len(text),
            self.max_sentence_chars,
        )
        return [
            Span(sentence.start + s, sentence.start + e)
            for s, e in split_long_text(text, self.max_sentence_chars)
        ]

    def _reparse_title(self, doc: Doc) -> Doc:
        """``doc`` parsed again with the title it starts with as one word, when the parse took
        the title apart and the title, as one word, is the main verb's subject (else ``doc``):
        "To Kill a Mockingbird was published in 1960" had "Kill" as its subject."""
        end = title_run_end(doc)
        if not end or not title_misparsed(doc, end):
            return doc
        quoted = int(doc[0].text in _QUOTES)  # the quotes stay marks around the name
        start, stop = doc[quoted].idx, doc[end - 1 - quoted].idx + len(doc[end - 1 - quoted])
        merged = merge_prefixed_words(self.nlp.make_doc(doc.text))
        words = [t.i for t in merged if start <= t.idx < stop]
        with merged.retokenize() as retokenizer:
            retokenizer.merge(merged[words[0] : words[-1] + 1])
        reparsed = next(iter(self.nlp.pipe([merged])))
        title = reparsed[quoted]
        if title.dep_ in SUBJECT_DEPS and title.head == title.sent.root:
            return reparsed
        return doc

    def _analyze(self, answer: str, sentences: list[Span]) -> RulesAnalysis:
        nlp = self.nlp
        lexicon = language.english_lexicon(nlp)
        masked = mask_markdown(answer)
        units = [
            (index, piece) for index, s in enumerate(sentences) for piece in self._pieces(masked, s)
        ]
        docs = nlp.pipe(
            (merge_prefixed_words(nlp.make_doc(masked[p.start : p.end])) for _, p in units),
            batch_size=self.batch_size,
        )
        parsed: list[list[tuple[Span, Doc]]] = [[] for _ in sentences]
        for (index, piece), doc in zip(units, docs, strict=True):
            parsed[index].append((piece, self._reparse_title(doc)))
        facts: list[Fact] = []
        unparseable: set[int] = set()
        dropped = 0
        for index, pieces in enumerate(parsed):
            counts = [language.english_counts(doc, lexicon) for _, doc in pieces]
            recognised, considered = sum(c[0] for c in counts), sum(c[1] for c in counts)
            if lexicon and language.is_unparseable(
                recognised, considered, threshold=self.min_english_share
            ):
                logger.debug(
                    "sentence %d is not parseable English (%d/%d)", index, recognised, considered
                )
                unparseable.add(index)
                continue
            k = 0
            for piece, doc in pieces:
                room = self.max_facts_per_sentence - k
                builder = FactBuilder(
                    doc, max_facts=max(room, 0), max_phrase_tokens=self.max_phrase_tokens
                )
                propose(builder, doc)
                dropped += builder.dropped
                facts.extend(
                    shape_facts(
                        doc,
                        builder.candidates,
                        answer=answer,
                        base=piece.start,
                        sentence=index,
                        first_k=k,
                    )
                )
                k += len(builder.candidates)
        if dropped:
            logger.info(
                "left out %d candidate facts past the cap of %d per sentence",
                dropped,
                self.max_facts_per_sentence,
            )
        return RulesAnalysis(facts, sentences, unparseable, dropped)
