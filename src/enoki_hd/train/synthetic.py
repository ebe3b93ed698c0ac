"""Synthetic *fact* NLI pairs made from plain, unlabelled sentences.

The verifier is asked about short verbalized facts, not about SNLI-style captions, so we teach
it that shape. For every source sentence (the premise) we build, from its dependency parse:

- entailment: a fact the sentence states (subject + verb group + one object), or the sentence
  with one optional modifier removed;
- contradiction: that fact with one entity, number or year swapped for another of the same
  type, or with its negation flipped;
- neutral: that fact with an added modifier that the sentence does not license, or a fact taken
  from an unrelated sentence, re-attached to this sentence's subject.

Only unlabelled text is used (CaRB dev sentences, MuSHROOM training answers); never evaluation
sets. Generation is deterministic for a given seed.
"""

from __future__ import annotations

import logging
import random
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from enoki_hd.train.nli_data import NLIPair, read_jsonl

logger = logging.getLogger(__name__)

ENTITY_TYPES = ("PERSON", "GPE", "ORG", "NORP", "LOC", "FAC", "WORK_OF_ART", "EVENT", "LANGUAGE")
OBJECT_DEPS = ("dobj", "attr", "acomp", "oprd", "dative")
DROPPABLE_DEPS = ("amod", "advmod", "appos", "npadvmod")
ADDED_ADJECTIVES = (
    "famous",
    "controversial",
    "first",
    "largest",
    "oldest",
    "award-winning",
    "short-lived",
    "official",
    "only",
    "private",
)
# removing these changes what the sentence claims, so dropping them is not an entailment
NON_DROPPABLE = {
    "not",
    "never",
    "no",
    "last",
    "next",
    "former",
    "previous",
    "alleged",
    "fake",
    "false",
    "so-called",
    "almost",
    "nearly",
    "hardly",
    "barely",
    "non",
    "un",
}
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)*\b")


@dataclass(frozen=True)
class SyntheticPair(NLIPair):
    kind: str = ""


def detokenize_ptb(sentence: str) -> str:
    """Undo PTB-style tokenization (CaRB sentences are stored as `` a , b . ''-style tokens)."""
    s = sentence.strip()
    s = s.replace("``", '"').replace("''", '"').replace("-LRB-", "(").replace("-RRB-", ")")
    s = re.sub(r"\s+([,.;:!?%)\]])", r"\1", s)
    s = re.sub(r"([(\[$])\s+", r"\1", s)
    s = re.sub(r"\s+(n't|'s|'re|'ve|'ll|'d|'m)\b", r"\1", s)
    s = re.sub(r'"\s+([^"]*?)\s+"', r'"\1"', s)
    return s


def load_source_sentences(
    carb_sentences: str | None, mushroom_jsonl: str | None, *, nlp
) -> list[str]:
    """Plain sentences from CaRB dev and MuSHROOM answers (sentence-split with spaCy)."""
    sentences: list[str] = []
    if carb_sentences:
        with open(carb_sentences, encoding="utf-8") as handle:
            sentences.extend(detokenize_ptb(line) for line in handle if line.strip())
    if mushroom_jsonl:
        answers = [row["model_output_text"] for _, row in read_jsonl(mushroom_jsonl)]
        for doc in nlp.pipe(answers, batch_size=64):
            sentences.extend(s.text.strip() for s in doc.sents)
    return [s for s in sentences if 6 <= len(s.split()) <= 60 and not s.endswith("?")]


def _span_text(tokens) -> str:
    """Tokens in sentence order, joined as written; a gap left by removed tokens becomes a space."""
    tokens = sorted(set(tokens), key=lambda t: t.i)
    parts = []
    for token, following in zip(tokens, [*tokens[1:], None], strict=True):
        adjacent = following is not None and following.i == token.i + 1
        parts.append(token.text_with_ws if adjacent else token.text + " ")
    return "".join(parts).strip()


def _without_clauses(head) -> list:
    """The head's subtree minus relative clauses, clausal modifiers and appositions inside it,
    and minus punctuation at its edges: those are separate facts."""
    removed: set = set()
    for token in head.subtree:
        if token is not head and token.dep_ in ("relcl", "acl", "appos", "advcl", "ccomp"):
            removed |= set(token.subtree)
    kept = sorted((t for t in head.subtree if t not in removed), key=lambda t: t.i)
    while kept and kept[0].is_punct:
        kept.pop(0)
    while kept and kept[-1].is_punct and kept[-1].text not in ('"', ")"):
        kept.pop()
    return kept


def _subtree(token) -> set:
    return set(token.subtree)


def _verb_group(root) -> list:
    return [c for c in root.children if c.dep_ in ("aux", "auxpass", "neg", "prt")] + [root]


def extract_simple_fact(sent) -> tuple[list, list, list] | None:
    """(subject tokens, verb-group tokens, object tokens) of the sentence's main clause."""
    root = sent.root
    if root.pos_ not in ("VERB", "AUX"):
        return None
    subjects = [c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")]
    if not subjects:
        return None
    subject = _without_clauses(subjects[0])
    objects = [c for c in root.children if c.dep_ in OBJECT_DEPS]
    if objects:
        obj = _without_clauses(objects[0])
    else:
        preps = [
            c
            for c in root.children
            if c.dep_ == "prep" and c.i > root.i and any(g.dep_ == "pobj" for g in c.children)
        ]
        if not preps:
            return None
        obj = _without_clauses(preps[0])
    if not subject or not obj or len(obj) > 15 or len(subject) > 12:
        return None
    return subject, _verb_group(root), obj


class SyntheticFactBuilder:
    """Builds labelled fact pairs from parsed sentences; see the module docstring."""

    def __init__(self, *, seed: int = 13) -> None:
        self.rng = random.Random(seed)
        self.entity_pool: dict[str, list[str]] = defaultdict(list)
        # (subject, rest of fact, subject is plural) from every sentence with a non-pronoun subject
        self.facts: list[tuple[str, str, bool]] = []

    def _collect(self, docs: list) -> None:
        seen: set[tuple[str, str]] = set()
        for doc in docs:
            for ent in doc.ents:
                if ent.label_ in ENTITY_TYPES and (ent.label_, ent.text) not in seen:
                    seen.add((ent.label_, ent.text))
                    self.entity_pool[ent.label_].append(ent.text)
            fact = extract_simple_fact(next(iter(doc.sents)))
            if fact and fact[0][-1].pos_ != "PRON":
                subject, verb, obj = fact
                plural = subject[-1].tag_ in ("NNS", "NNPS")
                self.facts.append((_span_text(subject), _span_text(verb + obj), plural))

    def build(self, sentences: Iterable[str], *, nlp) -> list[SyntheticPair]:
        sentences = list(sentences)
        docs = list(nlp.pipe(sentences, batch_size=64))
        self._collect(docs)
        pairs: list[SyntheticPair] = []
        for sentence, doc in zip(sentences, docs, strict=True):
            pairs.extend(self._pairs_for(sentence, doc))
        return pairs

    def _pair(self, premise: str, hypothesis: str, label: str, kind: str) -> SyntheticPair:
        hypothesis = re.sub(r"\s+", " ", hypothesis).strip()
        if hypothesis and hypothesis[-1] not in ".!?":
            hypothesis += "."
        hypothesis = hypothesis[0].upper() + hypothesis[1:]
        return SyntheticPair(premise, hypothesis, label, "synthetic_facts", kind)

    def _pairs_for(self, premise: str, doc) -> list[SyntheticPair]:
        sent = next(iter(doc.sents))
        out: list[SyntheticPair] = []
        fact = extract_simple_fact(sent)
        if fact is not None:
            subject, verb, obj = fact
            tokens = subject + verb + obj
            fact_text = _span_text(tokens)
            out.append(self._pair(premise, fact_text, "entailment", "fact"))
            contradiction = self._contradict(fact_text, tokens, premise, verb)
            if contradiction:
                out.append(self._pair(premise, contradiction[0], "contradiction", contradiction[1]))
            neutral = self._neutral(fact_text, subject, obj, premise)
            if neutral:
                out.append(self._pair(premise, neutral[0], "neutral", neutral[1]))
        dropped = self._drop_modifier(sent)
        if dropped:
            out.append(self._pair(premise, dropped, "entailment", "drop_modifier"))
        return out

    def _contradict(self, fact_text: str, tokens: list, premise: str, verb: list):
        options = []
        # in token order: iterating a set of strings would follow PYTHONHASHSEED, and the pairs
        # built would differ from one process to the next
        for ent in dict.fromkeys(t.ent_type_ for t in tokens if t.ent_type_ in ENTITY_TYPES):
            options.append("entity:" + ent)
        year = _YEAR.search(fact_text)
        number = None if year else _NUMBER.search(fact_text)
        if year:
            options.append("year")
        elif number:
            options.append("number")
        options.append("negation")
        choice = self.rng.choice(options)
        if choice.startswith("entity:"):
            ent_type = choice.split(":", 1)[1]
            ent_tokens = [t for t in tokens if t.ent_type_ == ent_type]
            ent = ent_tokens[0].doc[ent_tokens[0].i : ent_tokens[0].i + 1]
            for e in ent_tokens[0].doc.ents:
                if e.start <= ent_tokens[0].i < e.end:
                    ent = e
            candidates = [
                x for x in self.entity_pool[ent_type] if x not in premise and x != ent.text
            ]
            if ent.text in fact_text and candidates:
                return fact_text.replace(ent.text, self.rng.choice(candidates), 1), "swap_entity"
        if choice == "year" and year:
            new_year = str(int(year.group()) + self.rng.choice([-1, 1]) * self.rng.randint(2, 40))
            if new_year not in premise:
                return fact_text[: year.start()] + new_year + fact_text[year.end() :], "swap_year"
        if choice == "number" and number:
            digits = number.group().replace(",", "")
            try:
                value = float(digits)
            except ValueError:
                value = None
            if value is not None:
                new_value = value * self.rng.choice([2, 3, 10]) + self.rng.randint(1, 9)
                new = f"{int(new_value):,}" if value.is_integer() else f"{new_value:.1f}"
                if new not in premise:
                    return fact_text[: number.start()] + new + fact_text[
                        number.end() :
                    ], "swap_number"
        return self._flip_negation(fact_text, verb)

    def _flip_negation(self, fact_text: str, verb: list):
        negations = [t for t in verb if t.dep_ == "neg"]
        if negations:
            neg = negations[0]
            return fact_text.replace(" " + neg.text + " ", " ", 1), "remove_negation"
        auxiliaries = [t for t in verb if t.dep_ in ("aux", "auxpass")] or [
            t for t in verb if t.lemma_ == "be"
        ]
        if auxiliaries:
            aux = auxiliaries[0]
            return re.sub(
                rf"\b{re.escape(aux.text)}\b", aux.text + " not", fact_text, count=1
            ), "negation"
        root = verb[-1]
        if root.tag_ in ("VBD", "VBZ", "VBP"):
            do = {"VBD": "did", "VBZ": "does", "VBP": "do"}[root.tag_]
            return (
                re.sub(
                    rf"\b{re.escape(root.text)}\b", f"{do} not {root.lemma_}", fact_text, count=1
                ),
                "negation",
            )
        return None

    def _neutral(self, fact_text: str, subject: list, obj: list, premise: str):
        heads = [t for t in obj if t.pos_ == "NOUN" and t.dep_ in ("dobj", "attr", "pobj", "oprd")]
        if heads and self.rng.random() < 0.5:
            head = heads[0]
            adjective = self.rng.choice([a for a in ADDED_ADJECTIVES if a not in premise.lower()])
            first = min(
                t.i
                for t in head.subtree
                if (t.i <= head.i and t.dep_ in ("amod", "compound", "nummod")) or t == head
            )
            insert_before = head.doc[first].text
            hypothesis = re.sub(
                rf"\b{re.escape(insert_before)}\b",
                f"{adjective} {insert_before}",
                fact_text,
                count=1,
            )
            if hypothesis != fact_text:
                return hypothesis, "add_modifier"
        if subject[-1].pos_ == "PRON":
            return None
        subject_text = _span_text(subject)
        plural = subject[-1].tag_ in ("NNS", "NNPS")
        others = [
            f for f in self.facts if f[0] != subject_text and f[2] == plural and f[1] not in premise
        ]
        if others:
            _, rest, _ = self.rng.choice(others)
            return f"{subject_text} {rest}", "unrelated_fact"
        return None

    def _drop_modifier(self, sent):
        droppable = [
            t
            for t in sent
            if t.dep_ in DROPPABLE_DEPS
            and len(list(t.subtree)) <= 6
            and t.tag_ not in ("JJS", "JJR", "RBS", "RBR", "WRB", "CD")
            and t.ent_type_ not in ("ORDINAL", "DATE", "CARDINAL")
            and t.lower_ not in NON_DROPPABLE
        ]
        if not droppable:
            return None
        target = self.rng.choice(droppable)
        removed = _subtree(target)
        if target.dep_ == "appos":
            removed |= {
                t
                for t in sent
                if t.dep_ == "punct"
                and abs(t.i - target.i) <= len(removed) + 1
                and (t.i == min(x.i for x in removed) - 1 or t.i == max(x.i for x in removed) + 1)
            }
        kept = [t for t in sent if t not in removed]
        text = _span_text(kept)
        return text if text and text != sent.text.strip() else None
