"""Is a sentence English the parser can read? A lexicon share test.

Rule (:func:`english_counts`, :func:`is_unparseable`): over the sentence's tokens that hold a
letter, each read as every lexical check reads words (:func:`enoki_hd.text.fold_compat`: the
invisible characters of scraped text dropped, compatibility forms folded), a token is *known* when it is ASCII and either an English stop word or, when three
letters or longer, a word (or the lemma of a word) in the English lexicon of the spaCy
pipeline's lemmatizer tables (WordNet-derived, ~89k forms). Capitalised tokens are left out —
names are in no lexicon and German capitalises every noun — except a known first word
(``The``, ``Die``). A sentence is *unparseable* when known / counted is below the threshold
(default 0.55). A sentence with no counted token (numbers, emoji, a bare name such as
``Skyfall``) is not unparseable: there is nothing to judge it by.

Measured with the small English model: on the 641 CaRB dev sentences the share is never below
0.75; on the 725 answer sentences of psiloqa_en50, mushroom_dev30, ragtruth_sent48 and
factcheck_dev30 never below 0.63. On 28 sentences in 15 other languages written for the tests
it is below 0.55 for 27 (a Dutch sentence, 0.56, is missed: Dutch shares many short words with
English). Jargon-dense English sits near the threshold (``Kubernetes orchestrates containerized
microservices via kubelet daemons.`` scores 0.5 and is flagged). Short words are left out of the
lexicon test because ``la``, ``il`` or ``de`` are in the English lexicon (as abbreviations) yet
are the most frequent words of other languages.
"""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING

from enoki_hd.extract.rules.markdown import mask_markdown
from enoki_hd.text import DEFAULT_SPACY_MODEL, fold_compat, load_spacy_pipeline
from enoki_hd.types import Span

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

logger = logging.getLogger(__name__)

DEFAULT_MIN_ENGLISH_SHARE = 0.55
_MIN_LEXICON_WORD = 3
_LEXICON_TABLES = ("lemma_index", "lemma_exc")
# The share test reads stop flags and lemmas only: no parse, no entities (disabled per call on
# the one shared pipeline).
_LANGUAGE_DISABLE = ("parser", "ner")


@functools.lru_cache(maxsize=4)
def english_lexicon(nlp: Language) -> frozenset[str]:
    """The lower-cased English words known to ``nlp``'s lemmatizer (empty if it has none)."""
    words: set[str] = set()
    if nlp.has_pipe("lemmatizer"):
        lookups = getattr(nlp.get_pipe("lemmatizer"), "lookups", None)
        for name in _LEXICON_TABLES:
            if lookups is None or not lookups.has_table(name):
                continue
            table = lookups.get_table(name)
            for key in table:
                value = table[key]
                if isinstance(value, dict):
                    words.update(value)
                    for forms in value.values():
                        words.update(forms)
                else:
                    words.update(value)
    if not words:
        logger.warning(
            "spaCy pipeline %s has no lemmatizer lookup tables; every sentence is treated as "
            "parseable English",
            nlp.meta.get("name", "?"),
        )
    return frozenset(w.lower() for w in words if isinstance(w, str))


def english_counts(doc: Doc, lexicon: frozenset[str]) -> tuple[int, int]:
    """``(recognised, considered)`` token counts of the rule in the module docstring."""
    recognised = considered = 0
    first = True
    for token in doc:
        # a word is read as every lexical check reads it: "was\u200b" is "was"
        word = fold_compat(token.text)
        if not any(c.isalpha() for c in word):
            continue
        if "-" in word:
            # a word the extractor merged with its prefix ("co-founded"): the lexicon has no
            # such form, and the prefix says nothing about the language either way
            continue
        lower = word.lower()
        known = word.isascii() and (
            (token.is_stop if word == token.text else doc.vocab[word].is_stop)
            or (
                len(lower) >= _MIN_LEXICON_WORD
                and (lower in lexicon or fold_compat(token.lemma_).lower() in lexicon)
            )
        )
        # Capitalised words are names (or German nouns) unless the sentence starts with a
        # known word ("The", "Die"): they say nothing about the language.
        skip = word[0].isupper() and not (first and known)
        first = False
        if skip:
            continue
        considered += 1
        recognised += known
    return recognised, considered


def is_unparseable(
    recognised: int, considered: int, *, threshold: float = DEFAULT_MIN_ENGLISH_SHARE
) -> bool:
    """Whether counts from :func:`english_counts` fall below the English share threshold."""
    return considered > 0 and recognised / considered < threshold


def unparseable_sentences(
    answer: str,
    sentences: list[Span],
    *,
    model: str = DEFAULT_SPACY_MODEL,
    threshold: float = DEFAULT_MIN_ENGLISH_SHARE,
) -> set[int]:
    """Indices of ``sentences`` (half-open offsets into ``answer``) with no parseable English,
    by the rule in the module docstring, without parsing: the detector's language check when
    no rules extractor runs (sentence level, pre-extracted facts)."""
    nlp = load_spacy_pipeline(model)
    lexicon = english_lexicon(nlp)
    if not lexicon:
        return set()
    disable = [name for name in _LANGUAGE_DISABLE if name in nlp.pipe_names]
    masked = mask_markdown(answer)  # markup and URLs are no words of any language
    docs = nlp.pipe((s.text(masked) for s in sentences), disable=disable)
    return {
        i
        for i, doc in enumerate(docs)
        if is_unparseable(*english_counts(doc, lexicon), threshold=threshold)
    }
