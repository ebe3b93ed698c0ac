"""The fact judgement: every branch of the fusion rule, and FactJudge on anchored facts."""

from __future__ import annotations

import pytest

from enoki_hd.types import Evidence, Fact, FactVerdict, NLIScores, SentenceVerdict, Span
from enoki_hd.verify.evidence import EvidenceDecision
from enoki_hd.verify.grounding import GroundingIndex, GroundingResult
from enoki_hd.verify.judge import (
    NLI_DECISIVE,
    FactJudge,
    Fusion,
    cut_dates_widened,
    fuse,
    join_spans,
    to_answer_span,
    whole_dates,
    whole_rates,
)

MISMATCH = GroundingResult("mismatch", 0.4, ["12"], [("12", "7")], 4, missing_names=["12"])
ABSENT = GroundingResult("absent", 0.8, ["noel", "gallagher"], [], 3)
ABSENT_NAMES = GroundingResult(
    "absent", 0.8, ["noel", "gallagher"], [], 3, missing_names=["noel", "gallagher"]
)
PARTIAL_NAME = GroundingResult("partial", 0.25, ["52"], [], 4, missing_names=["52"])
PARTIAL = GroundingResult("partial", 0.2, ["formed"], [], 3)
GROUNDED = GroundingResult("grounded", 0.0, [], [], 2)
EMPTY = GroundingResult("empty", 0.0, [], [], 0)


def nli(hall: float, *, contradiction_share: float = 0.5) -> NLIScores:
    """Scores with ``hall`` not-entailed, split between contradiction and neutral."""
    return NLIScores(1 - hall, hall * (1 - contradiction_share), hall * contradiction_share)


def test_nli_mode_and_nothing_to_ground_leave_nli_alone() -> None:
    for grounding in (MISMATCH, ABSENT, GROUNDED, EMPTY, None):
        assert fuse(nli(0.3), grounding, mode="nli") == Fusion(pytest.approx(0.3), None, "nli")
    assert fuse(nli(0.7), EMPTY, mode="hybrid") == Fusion(pytest.approx(0.7), None, "nli")
    assert fuse(nli(0.7), None, mode="hybrid") == Fusion(pytest.approx(0.7), None, "nli")


def test_value_conflict_is_contradicted_whatever_nli_says() -> None:
    assert fuse(nli(0.1), MISMATCH, mode="hybrid") == Fusion(0.9, "contradicted", "value_conflict")
    high = fuse(nli(0.95), MISMATCH, mode="hybrid")
    assert high == Fusion(pytest.approx(0.95), "contradicted", "value_conflict")
    assert fuse(nli(0.1), MISMATCH, mode="grounding") == Fusion(
        0.9, "contradicted", "value_conflict"
    )


def test_grounding_mode_follows_the_grounding_status() -> None:
    assert fuse(nli(0.1), ABSENT, mode="grounding") == Fusion(0.8, "unverifiable", "grounding")
    assert fuse(nli(0.9), PARTIAL, mode="grounding") == Fusion(0.2, "supported", "grounding")
    assert fuse(nli(0.99), GROUNDED, mode="grounding") == Fusion(0.0, "supported", "grounding")


def test_grounded_words_do_not_outvote_a_decisive_nli_contradiction() -> None:
    # every word occurs in the context, NLI says 0.99 not entailed: the old mean (0.495) called
    # this supported
    fusion = fuse(nli(0.99, contradiction_share=0.9), GROUNDED, mode="hybrid")
    assert fusion == Fusion(pytest.approx(0.99), "contradicted", "nli")
    neutral = fuse(nli(0.95, contradiction_share=0.2), GROUNDED, mode="hybrid")
    assert neutral == Fusion(pytest.approx(0.95), "unverifiable", "nli")
    at_the_bar = fuse(nli(NLI_DECISIVE), PARTIAL, mode="hybrid")
    assert at_the_bar.label == "unverifiable" and at_the_bar.score == pytest.approx(NLI_DECISIVE)


def test_below_the_decisive_bar_hybrid_weighs_both_signals() -> None:
    fusion = fuse(nli(0.2), ABSENT, mode="hybrid")
    assert fusion == Fusion(pytest.approx(0.5), None, "grounding")
    fusion = fuse(nli(0.85), PARTIAL, mode="hybrid", weight=0.25)
    assert fusion == Fusion(pytest.approx(0.25 * 0.85 + 0.75 * 0.2), None, "nli")
    assert fuse(nli(0.4), ABSENT, mode="hybrid", weight=1.0) == Fusion(
        pytest.approx(0.4), None, "nli"
    )


def test_an_absent_name_is_unverifiable_unless_nli_is_decisive() -> None:
    # NLI all but entails it, but "52" occurs nowhere in the context: the mean (0.5 * 0.1 +
    # 0.5 * 0.25 = 0.175) would call it supported
    fusion = fuse(nli(0.1), PARTIAL_NAME, mode="hybrid")
    assert fusion == Fusion(pytest.approx(0.625), "unverifiable", "absent_name")
    # the score is the larger of the mean and (1 + grounding score) / 2
    assert fuse(nli(0.2), ABSENT_NAMES, mode="hybrid") == Fusion(
        pytest.approx(0.9), "unverifiable", "absent_name"
    )
    assert fuse(nli(0.85), PARTIAL_NAME, mode="hybrid", weight=1.0) == Fusion(
        pytest.approx(0.85), "unverifiable", "absent_name"
    )
    # contradiction as the verifier's most likely label makes it contradicted
    leaning = fuse(NLIScores(0.3, 0.2, 0.5), PARTIAL_NAME, mode="hybrid")
    assert leaning == Fusion(pytest.approx(0.625), "contradicted", "absent_name")
    assert fuse(NLIScores(0.6, 0.1, 0.3), PARTIAL_NAME, mode="hybrid").label == "unverifiable"
    # decisive NLI and value conflicts keep their labels
    decisive = fuse(nli(0.95, contradiction_share=0.9), PARTIAL_NAME, mode="hybrid")
    assert decisive == Fusion(pytest.approx(0.95), "contradicted", "nli")
    assert fuse(nli(0.1), MISMATCH, mode="hybrid").label == "contradicted"
    # switched off, the mean decides as before
    off = fuse(nli(0.1), PARTIAL_NAME, mode="hybrid", absent_names=False)
    assert off == Fusion(pytest.approx(0.175), None, "grounding")
    # grounding mode follows the status alone
    assert fuse(nli(0.1), PARTIAL_NAME, mode="grounding").label == "supported"


@pytest.mark.parametrize(
    ("scores", "mode", "weight", "message"),
    [
        (nli(0.5), "vote", 0.5, "mode must be"),
        (NLIScores(0.0, 1.0, 0.5), "hybrid", 0.5, "must be in \\[0, 1\\]"),
        (NLIScores(0.0, float("nan"), 0.0), "hybrid", 0.5, "must be in \\[0, 1\\]"),
        (nli(0.5), "hybrid", -0.1, "weight must be in"),
    ],
)
def test_fuse_rejects_bad_arguments(
    scores: NLIScores, mode: str, weight: float, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        fuse(scores, GROUNDED, mode=mode, weight=weight)  # type: ignore[arg-type]


def test_fact_judge_rejects_bad_settings() -> None:
    with pytest.raises(ValueError, match="verification must be"):
        FactJudge("vote")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="hybrid_weight"):
        FactJudge("hybrid", 1.5)
    with pytest.raises(ValueError, match="threshold"):
        FactJudge("hybrid", 0.5, -0.1)


ANSWER = "Suede sold 12 albums."
CONTEXT = "Suede released 7 albums."


def _fact() -> Fact:
    # (Suede, sold, 12 albums) with its spans in ANSWER
    return Fact(
        "f0.0",
        0,
        "Suede",
        "sold",
        "12 albums",
        subject_spans=[Span(0, 5)],
        relation_spans=[Span(6, 10)],
        object_spans=[Span(11, 20)],
        delta=[Span(11, 20)],
    )


def _decision(probs: NLIScores, label: str) -> EvidenceDecision:
    return EvidenceDecision(label, probs, Evidence(0, len(CONTEXT), CONTEXT), 1)  # type: ignore[arg-type]


def test_fact_judge_blames_the_unfound_words_and_reports_the_value_conflict() -> None:
    judge = FactJudge("hybrid")
    verdict = judge.judge(
        ANSWER,
        [_fact()],
        ["Suede sold 12 albums."],
        [_decision(NLIScores(0.6, 0.3, 0.1), "supported")],
        grounding=GroundingIndex(CONTEXT),
    )[0]
    assert verdict.label == "contradicted" and verdict.decided_by == "value_conflict"
    assert verdict.score == pytest.approx(0.9)
    # "sold" and "12" have no trace in the context; "Suede" and "albums" do
    assert [ANSWER[s.start : s.end] for s in verdict.blamed or []] == ["sold", "12"]


def _judged_entailed(answer: str, fact: Fact, hypothesis: str, context: str) -> FactVerdict:
    """``fact``'s hybrid verdict when the verifier entails it (0.8) from the whole
    ``context``."""
    decision = EvidenceDecision(
        "supported", NLIScores(0.8, 0.15, 0.05), Evidence(0, len(context), context), 1
    )
    judge = FactJudge("hybrid")
    return judge.judge(answer, [fact], [hypothesis], [decision], grounding=GroundingIndex(context))[
        0
    ]


def test_a_fact_that_starts_mid_sentence_with_an_absent_name_is_an_absent_name() -> None:
    answer = 'There was no commander named "Robertson" who led the British forces.'
    context = "The British forces were commanded by General William Howe."
    start = answer.index('"Robertson"')
    fact = Fact(
        "f0.0",
        0,
        '"Robertson"',
        "led",
        "the British forces",
        subject_spans=[Span(start, start + 11)],
        relation_spans=[Span(answer.index("led"), answer.index("led") + 3)],
        object_spans=[Span(answer.index("the British"), len(answer) - 1)],
    )
    verdict = _judged_entailed(answer, fact, '"Robertson" led the British forces.', context)
    # the subject's capital is read in the answer, where "Robertson" follows "named": a name
    # found nowhere in the context (judged in the fact's own words it started a sentence)
    assert (verdict.label, verdict.decided_by) == ("unverifiable", "absent_name")
    assert [answer[s.start : s.end] for s in verdict.blamed or []] == ["Robertson", "led"]


def test_an_unknown_word_after_a_name_in_the_answer_is_part_of_the_name() -> None:
    answer = "The species known as the jewel oak gall wasp is Acraspis cerasi."
    context = "Species of Acraspis: Acraspis alaria, Acraspis quercushirta - jewel oak gall wasp."

    def at(words: str) -> list[Span]:
        start = answer.index(words)
        return [Span(start, start + len(words))]

    # the rules extractor's root fact: the object's head alone, "Acraspis" its refinement's
    fact = Fact(
        "f0.0",
        0,
        "species",
        "is",
        "cerasi",
        subject_spans=at("species"),
        relation_spans=[Span(answer.index(" is ") + 1, answer.index(" is ") + 3)],
        object_spans=at("cerasi"),
        delta=at("cerasi"),
    )
    decision = EvidenceDecision(
        "supported", NLIScores(0.8, 0.15, 0.05), Evidence(0, len(context), context), 1
    )
    verdict = FactJudge("hybrid").judge(
        answer, [fact], ["Species is cerasi."], [decision], grounding=GroundingIndex(context)
    )[0]
    # "cerasi" follows the name "Acraspis" in the answer, though not in the fact's words
    assert (verdict.label, verdict.decided_by) == ("unverifiable", "absent_name")
    assert [answer[s.start : s.end] for s in verdict.blamed or []] == ["cerasi"]


def test_a_coarse_root_fact_is_also_grounded_on_its_object_alone() -> None:
    answer = "The Funicular Rigiblick is a popular mode of transport for locals and tourists."
    context = "The Funicular Rigiblick is a popular mode of transport in Zurich."

    def at(words: str) -> list[Span]:
        start = answer.index(words)
        return [Span(start, start + len(words))]

    obj = at("for locals and tourists")
    fact = Fact(
        "f0.0",
        0,
        "The Funicular Rigiblick",
        "is a popular mode of transport",
        "for locals and tourists",
        subject_spans=at("The Funicular Rigiblick"),
        relation_spans=at("is a popular mode of transport"),
        object_spans=obj,
        delta=obj,
    )
    decision = EvidenceDecision(
        "supported", NLIScores(0.7, 0.25, 0.05), Evidence(0, len(context), context), 1
    )

    def judged(root_delta: bool) -> FactVerdict:
        judge = FactJudge("hybrid", root_delta=root_delta)
        hypothesis = [answer[:-1] + "."]
        return judge.judge(
            answer, [fact], hypothesis, [decision], grounding=GroundingIndex(context)
        )[0]

    # all its words: 2 of 9 weighed units new (locals, tourists: 0.22), diluted below 0.5
    diluted = judged(False)
    assert diluted.label == "supported"
    # its object alone: all new (1.0); the fact is unverifiable and blames those two words
    alone = judged(True)
    assert (alone.label, alone.decided_by) == ("unverifiable", "grounding")
    assert alone.score is not None and diluted.score is not None and alone.score > diluted.score
    assert [answer[s.start : s.end] for s in alone.blamed or []] == ["locals", "tourists"]


def test_a_raised_threshold_has_the_last_word_over_the_rules() -> None:
    """At threshold 0.95 a value conflict (score 0.9) is supported like any score below it —
    before, it stayed "contradicted" while its sentence and the spans counted it supported."""

    def judged(threshold: float, probs: NLIScores, label: str) -> FactVerdict:
        judge = FactJudge("hybrid", threshold=threshold)
        decision = _decision(probs, label)
        return judge.judge(
            ANSWER,
            [_fact()],
            ["Suede sold 12 albums."],
            [decision],
            grounding=GroundingIndex(CONTEXT),
        )[0]

    conflict = judged(0.95, NLIScores(0.6, 0.3, 0.1), "supported")
    assert (conflict.label, conflict.decided_by, conflict.score) == (
        "supported",
        "value_conflict",
        pytest.approx(0.9),
    )
    decisive = judged(0.99, NLIScores(0.03, 0.02, 0.95), "contradicted")
    assert decisive.label == "supported" and decisive.score == pytest.approx(0.97)
    assert judged(0.5, NLIScores(0.03, 0.02, 0.95), "contradicted").label == "contradicted"


def test_fact_judge_blames_the_value_a_value_role_conflict_finds() -> None:
    answer = "Suede sold 7 albums in Japan."
    context = "Suede sold 12 albums in Japan and released 7 albums in all."
    fact = Fact(
        "f0.0",
        0,
        "Suede",
        "sold",
        "7 albums in Japan",
        subject_spans=[Span(0, 5)],
        relation_spans=[Span(6, 10)],
        object_spans=[Span(11, 28)],
    )
    decision = EvidenceDecision(
        "supported", NLIScores(0.9, 0.05, 0.05), Evidence(0, len(context), context), 1
    )
    verdict, no_conflicts = (
        FactJudge("hybrid", conflicts=conflicts).judge(
            answer, [fact], [answer], [decision], grounding=GroundingIndex(context)
        )[0]
        for conflicts in (True, False)
    )
    # every word and the 7 occur in the context, but "sold" is given 12 there
    assert (verdict.label, verdict.decided_by) == ("contradicted", "value_role_conflict")
    assert [answer[s.start : s.end] for s in verdict.blamed or []] == ["7"]
    assert no_conflicts.label == "supported" and no_conflicts.blamed is None


def test_a_value_conflict_in_a_root_facts_object_grounded_alone_blames_the_value() -> None:
    answer = "The band Suede sold 7 albums in Kyoto."
    context = "Suede sold 12 albums in Japan and released 7 albums in all."
    obj = Span(answer.index("7"), len(answer) - 1)
    fact = Fact(
        "f0.0",
        0,
        "The band Suede",
        "sold",
        "7 albums in Kyoto",
        subject_spans=[Span(0, 14)],
        relation_spans=[Span(15, 19)],
        object_spans=[obj],
        delta=[obj],
    )
    decision = EvidenceDecision(
        "supported", NLIScores(0.9, 0.05, 0.05), Evidence(0, len(context), context), 1
    )
    verdict = FactJudge("hybrid", root_delta=True).judge(
        answer, [fact], [answer], [decision], grounding=GroundingIndex(context)
    )[0]
    assert verdict.decided_by == "value_role_conflict"
    # the object was grounded alone ("Kyoto" weighs more there); the value's place is read
    # in the object's own words, not in the whole fact's
    assert [answer[s.start : s.end] for s in verdict.blamed or []] == ["7"]


def test_fact_judge_nli_mode_labels_by_threshold_and_decision() -> None:
    judge = FactJudge("nli", threshold=0.5)
    facts, hypotheses = [_fact(), _fact()], ["h1", "h2"]
    decisions = [
        _decision(NLIScores(0.3, 0.6, 0.1), "unverifiable"),
        _decision(NLIScores(0.6, 0.2, 0.2), "supported"),
    ]
    verdicts = judge.judge(ANSWER, facts, hypotheses, decisions)
    assert [v.label for v in verdicts] == ["unverifiable", "supported"]
    assert [v.blamed for v in verdicts] == [None, None]


def test_fact_judge_needs_a_grounding_index_unless_nli() -> None:
    with pytest.raises(ValueError, match="needs a grounding index"):
        FactJudge("hybrid").judge(
            ANSWER, [_fact()], ["h"], [_decision(NLIScores(0.6, 0.3, 0.1), "supported")]
        )


def test_join_spans_maps_back_to_answer_offsets() -> None:
    text, offsets = join_spans(ANSWER, [Span(11, 20), Span(0, 5)])
    assert text == "Suede 12 albums"
    assert to_answer_span(Span(6, 8), offsets) == Span(11, 13)
    assert to_answer_span(Span(0, 5), offsets) == Span(0, 5)


def _fallback(text: str) -> SentenceVerdict:
    return SentenceVerdict(
        0, Span(0, len(text)), text, 0.086, "supported", method="sentence-nli-fallback"
    )


def test_a_sentence_without_facts_is_fused_with_its_grounding_in_hybrid_mode() -> None:
    context = GroundingIndex("The film was released in 2012 and directed by Sam Mendes.")
    entailed = EvidenceDecision("supported", NLIScores(0.914, 0.06, 0.026), None, 0)
    # one unit, missing from the whole context: 0.5 * 0.086 + 0.5 * 1.0 = 0.543
    skyfall = FactJudge("hybrid").judge_fallback(_fallback("Skyfall"), entailed, context)
    assert (skyfall.label, skyfall.score) == ("unverifiable", pytest.approx(0.543))
    assert skyfall.method == "sentence-nli-fallback"
    # the absent-name rule applies as to a fact ("Mendez" is a name mid-sentence)
    named = FactJudge("hybrid").judge_fallback(
        _fallback("Directed by Sam Mendez"), entailed, context
    )
    assert named.label == "unverifiable"
    assert named.score == pytest.approx((1 + 2 / 5) / 2)  # directed 1, sam 2, mendez 2 missing
    # words found in the context leave the NLI decision as it was
    found = FactJudge("hybrid").judge_fallback(
        _fallback("Directed by Sam Mendes"), entailed, context
    )
    assert (found.label, found.score) == ("supported", pytest.approx(0.043))
    # other modes and other methods are left alone
    assert FactJudge("nli").judge_fallback(_fallback("Skyfall"), entailed, context).label == (
        "supported"
    )
    fact_based = SentenceVerdict(0, Span(0, 7), "Skyfall", 0.1, "supported", method="max")
    assert FactJudge("hybrid").judge_fallback(fact_based, entailed, context) is fact_based


FERRY = "The ferry takes 90 minutes in calm conditions."
FERRY_CONTEXT = "The ferry takes 90 minutes in calm weather."
FERRY_EVIDENCE = Evidence(0, len(FERRY_CONTEXT), FERRY_CONTEXT)


def _ferry_chain() -> list[Fact]:
    ferry, takes, minutes = [Span(4, 9)], [Span(10, 15)], [Span(16, 26)]
    root = Fact("f0.0", 0, "ferry", "takes", "90 minutes", ferry, takes, minutes, delta=minutes)
    # (ferry, takes 90 minutes in, conditions) and its refinement "calm conditions"
    relation = [Span(10, 15), Span(16, 26), Span(27, 29)]
    conditions = Fact(
        "f0.1", 0, "ferry", "takes 90 minutes in", "conditions", ferry, relation,
        [Span(35, 45)], parent="f0.0", delta=[Span(27, 29), Span(35, 45)],
    )  # fmt: skip
    calm = Fact(
        "f0.2", 0, "ferry", "takes 90 minutes in", "calm conditions", ferry, relation,
        [Span(30, 45)], parent="f0.1", delta=[Span(30, 34)],
    )  # fmt: skip
    return [root, conditions, calm]


def _ferry_verdicts(judge: FactJudge, calm: EvidenceDecision) -> list[FactVerdict]:
    """The chain judged with every fact entailed except "calm conditions", decided by
    ``calm``."""
    entailed = EvidenceDecision("supported", nli(0.05), FERRY_EVIDENCE, 1)
    return judge.judge(
        FERRY,
        _ferry_chain(),
        ["h0", "h1", "h2"],
        [entailed, entailed, calm],
        grounding=GroundingIndex(FERRY_CONTEXT),
    )


def test_a_supported_refinement_vouches_for_a_fact_failed_by_grounding_alone() -> None:
    calm = EvidenceDecision("supported", nli(0.05), FERRY_EVIDENCE, 1)
    verdicts = _ferry_verdicts(FactJudge("hybrid"), calm)
    assert [(v.label, v.decided_by) for v in verdicts] == [
        ("supported", "nli"),
        ("supported", "refinement"),  # "conditions" is not in the context, "calm conditions" holds
        ("supported", "nli"),
    ]
    assert verdicts[1].score == verdicts[2].score and verdicts[1].blamed is None
    # switched off, the fact is failed by its word "conditions"
    off = _ferry_verdicts(FactJudge("hybrid", refinement_support=False), calm)
    assert [(v.label, v.decided_by) for v in off][1] == ("unverifiable", "grounding")
    assert [FERRY[s.start : s.end] for s in off[1].blamed or []] == ["conditions"]


def test_an_unsupported_refinement_vouches_for_nothing() -> None:
    calm = EvidenceDecision("contradicted", nli(0.95, contradiction_share=0.9), FERRY_EVIDENCE, 1)
    verdicts = _ferry_verdicts(FactJudge("hybrid"), calm)
    assert [(v.label, v.decided_by) for v in verdicts] == [
        ("supported", "nli"),
        ("unverifiable", "grounding"),
        ("contradicted", "nli"),
    ]


def test_a_refinement_merely_leaning_to_entailment_vouches_for_nothing() -> None:
    """Its grounding checked only its own added word ("calm"), so a lukewarm entailment
    cannot clear the ancestor's "conditions"."""
    calm = EvidenceDecision("supported", nli(0.3), FERRY_EVIDENCE, 1)
    verdicts = _ferry_verdicts(FactJudge("hybrid"), calm)
    assert [(v.label, v.decided_by) for v in verdicts] == [
        ("supported", "nli"),
        ("unverifiable", "grounding"),
        ("supported", "nli"),
    ]


DATED = "Smith was born on 4 March 1950 in Leeds."


def _date_chain(answer: str) -> list[Fact]:
    """The rules extractor's date chain over ``answer``'s "<day> <Month> <year>": (Smith, was
    born on, 1950) -> (…, March 1950) -> (…, 4 March 1950), each refinement's delta the word
    it adds."""
    at = answer.index(" on ") + 4
    words = answer[at:].split()[:3]
    day = Span(at, at + len(words[0]))
    month = Span(day.end + 1, day.end + 1 + len(words[1]))
    year = Span(month.end + 1, month.end + 1 + len(words[2]))
    base = {"subject_spans": [Span(0, 5)], "relation_spans": [Span(6, at - 1)]}
    return [
        Fact("f0.0", 0, "Smith", "was born on", year.text(answer), **base, object_spans=[year]),
        Fact(
            "f0.1", 0, "Smith", "was born on", f"{month.text(answer)} {year.text(answer)}",
            **base, object_spans=[Span(month.start, year.end)], parent="f0.0", delta=[month],
        ),
        Fact(
            "f0.2", 0, "Smith", "was born on", Span(day.start, year.end).text(answer),
            **base, object_spans=[Span(day.start, year.end)], parent="f0.1", delta=[day],
        ),
    ]  # fmt: skip


def test_whole_dates_widens_a_date_refinements_delta_to_the_facts_date() -> None:
    facts = _date_chain(DATED)
    # "March" is a month of "March 1950", "4" a day of "4 March 1950"
    assert [s.text(DATED) for s in whole_dates(DATED, facts[1], facts[1].delta)] == ["March 1950"]
    assert [s.text(DATED) for s in whole_dates(DATED, facts[2], facts[2].delta)] == ["4 March 1950"]
    # a delta that touches no date is returned as it is, the same list
    plain = Fact(
        "f1.1", 0, "Smith", "was born in", "Leeds", subject_spans=[Span(0, 5)],
        relation_spans=[Span(6, 17)], object_spans=[Span(34, 39)], parent="f1.0",
        delta=[Span(34, 39)],
    )  # fmt: skip
    assert whole_dates(DATED, plain, plain.delta) is plain.delta


RATED = "Volunteers commit at least 4 hours per day."


def test_whole_rates_widens_a_rate_refinements_delta_to_the_facts_rate() -> None:
    """ "per day" refining "at least 4 hours" is grounded as "4 hours per day": against
    "4 hours per week" a mismatch, not a missing word."""
    at, hours, day = RATED.index("at least"), RATED.index("4 hours"), RATED.index("per day")
    per_day, subject, relation = Span(day, day + 7), [Span(0, 10)], [Span(11, 17)]
    fact = Fact(
        "f0.1", 0, "Volunteers", "commit", "at least 4 hours per day", subject_spans=subject,
        relation_spans=relation, object_spans=[Span(at, day + 7)], parent="f0.0",
        delta=[per_day],
    )  # fmt: skip
    assert [s.text(RATED) for s in whole_rates(RATED, fact, fact.delta)] == ["4 hours per day"]
    plain = Fact(
        "f0.0", 0, "Volunteers", "commit", "at least 4 hours", subject_spans=subject,
        relation_spans=relation, object_spans=[Span(at, hours + 7)], parent=None,
        delta=[Span(hours, hours + 7)],
    )  # fmt: skip
    assert whole_rates(RATED, plain, plain.delta) is plain.delta
    weekly = "Volunteers are asked to commit at least 4 hours per week."
    verdict = _judged_entailed(RATED, fact, "Volunteers commit at least 4 hours per day.", weekly)
    assert (verdict.label, verdict.decided_by) == ("contradicted", "value_conflict")
    assert [RATED[s.start : s.end] for s in verdict.blamed or []] == ["day"]


@pytest.mark.parametrize(
    ("answer", "labels", "blamed"),
    [
        # the context's own date: the day and the month are found in it, not absent words
        (DATED, ["supported", "supported", "supported"], [None, None, None]),
        # a wrong day: only the finest fact fails, on the day it adds
        (
            "Smith was born on 5 March 1950 in Leeds.",
            ["supported", "supported", "contradicted"],
            [None, None, ["5"]],
        ),
    ],
)
def test_a_date_refinement_is_grounded_on_its_whole_date(
    answer: str, labels: list[str], blamed: list
) -> None:
    context = "Smith was born on 4 March 1950 in Leeds."
    facts = _date_chain(answer)
    decision = EvidenceDecision(
        "supported", NLIScores(0.9, 0.05, 0.05), Evidence(0, len(context), context), 1
    )
    verdicts = FactJudge("hybrid").judge(
        answer,
        facts,
        [answer] * 3,
        [decision] * 3,
        grounding=GroundingIndex(context),
    )
    assert [v.label for v in verdicts] == labels
    assert [
        None if v.blamed is None else [s.text(answer) for s in v.blamed] for v in verdicts
    ] == blamed


def test_a_part_that_cuts_a_date_at_its_day_is_widened_to_the_date() -> None:
    """ "born 10" of "(born 10 March 1937)": the parse ended the fact inside the date; the day
    alone is grounded as the answer's date. A coarser fact of a chain ("March 1937") and a
    part holding a whole date are left alone."""
    answer = "Robert Nadeau (born 10 March 1937) met Gallie (18 March 1919 – 17 June 1990)."
    born_10 = [Span(0, 13), Span(15, 19), Span(20, 22)]
    widened = cut_dates_widened(answer, born_10)
    assert [s.text(answer) for s in widened] == ["Robert Nadeau", "born", "10 March 1937"]
    span = answer.index("18 March 1919 – 17")
    life = [Span(span, span + len("18 March 1919 – 17"))]
    assert [s.text(answer) for s in cut_dates_widened(answer, life)] == [
        "18 March 1919 – 17 June 1990"
    ]
    coarser = [Span(answer.index("March 1937"), answer.index("March 1937") + 10)]
    assert cut_dates_widened(answer, coarser) is coarser
    whole = [Span(answer.index("10 March"), answer.index("10 March") + 13)]
    assert cut_dates_widened(answer, whole) is whole


US_DATED = "Paterson died on November 10, 2018, at the age of 78."


def _us_date_chain() -> list[Fact]:
    """The rules extractor's chain over "November 10, 2018": (…, 2018) -> (…, November 2018),
    whose object is two pieces of the answer (the day left out) -> (…, November 10, 2018)."""
    month = Span(US_DATED.index("November"), US_DATED.index("November") + 8)
    day = Span(month.end + 1, month.end + 4)  # "10,"
    year = Span(day.end + 1, day.end + 5)
    base = {"subject_spans": [Span(0, 8)], "relation_spans": [Span(9, 16)]}
    return [
        Fact("f0.0", 0, "Paterson", "died on", "2018", **base, object_spans=[year]),
        Fact(
            "f0.1", 0, "Paterson", "died on", "November 2018", **base,
            object_spans=[month, year], parent="f0.0", delta=[month],
        ),
        Fact(
            "f0.2", 0, "Paterson", "died on", "November 10, 2018", **base,
            object_spans=[Span(month.start, year.end)], parent="f0.1", delta=[Span(day.start, day.end - 1)],
        ),
    ]  # fmt: skip


def test_a_date_in_pieces_of_the_answer_is_grounded_whole() -> None:
    """ "November 2018" of "November 10, 2018": the month is grounded as that month of 2018
    (the context writes "Nov 10, 2018"), not as a word the context never has."""
    facts = _us_date_chain()
    assert [s.text(US_DATED) for s in whole_dates(US_DATED, facts[1], facts[1].delta)] == [
        "November",
        "2018",
    ]
    for context, labels, blamed in [
        ("Nov 10, 2018 — Liz Paterson, a three-term congresswoman, died Saturday.", ["supported"] * 3, [None] * 3),
        # another month: the refinement that adds the month fails on the month; the finest
        # fact's date is wrong too, blamed (as any refinement's wrong date) on what it adds
        ("Oct 10, 2018 — Liz Paterson, a three-term congresswoman, died Saturday.", ["supported", "contradicted", "contradicted"], [None, ["November"], ["10"]]),
    ]:  # fmt: skip
        decision = EvidenceDecision(
            "supported", NLIScores(0.9, 0.05, 0.05), Evidence(0, len(context), context), 1
        )
        verdicts = FactJudge("hybrid").judge(
            US_DATED, facts, [US_DATED] * 3, [decision] * 3, grounding=GroundingIndex(context)
        )
        assert [v.label for v in verdicts] == labels
        assert [
            None if v.blamed is None else [s.text(US_DATED) for s in v.blamed] for v in verdicts
        ] == blamed


HEADACHE_CONTEXT = "Mild headaches are not uncommon and usually resolve on their own."
HEADACHE_EVIDENCE = Evidence(0, len(HEADACHE_CONTEXT), HEADACHE_CONTEXT)
HEADACHES = "Headaches happen fairly often and go away without treatment."


def _headache_verdicts(
    judge: FactJudge, sentence: EvidenceDecision | None, fact_hall: float = 0.99
) -> list[FactVerdict]:
    """(Headaches, go away without, treatment), its words grounded, read as a contradiction
    (``fact_hall`` not entailed) by the verifier; ``sentence`` is its sentence judged whole."""
    subject, relation, obj = [Span(0, 9)], [Span(38, 52)], [Span(53, 62)]
    fact = Fact("f0.0", 0, "Headaches", "go away without", "treatment", subject, relation, obj)
    decision = EvidenceDecision(
        "contradicted", nli(fact_hall, contradiction_share=0.9), HEADACHE_EVIDENCE, 0
    )
    return judge.judge(
        HEADACHES,
        [fact],
        ["Headaches go away without treatment."],
        [decision],
        grounding=GroundingIndex(HEADACHE_CONTEXT + " Headaches go away without treatment."),
        sentence_decisions={} if sentence is None else {0: sentence},
    )


def test_a_sentence_entailed_whole_vouches_for_a_fact_the_verifier_alone_failed() -> None:
    window = Evidence(0, 20, HEADACHE_CONTEXT[:20])
    entailed = EvidenceDecision("supported", NLIScores(0.8, 0.15, 0.05), window, 0)
    judge = FactJudge("hybrid", sentence_entailment=0.7)
    # the sentence to judge whole is the one with a fact the verifier alone failed
    assert judge.sentences_to_vouch(_headache_verdicts(FactJudge("hybrid"), None)) == [0]
    [verdict] = _headache_verdicts(judge, entailed)
    assert judge.sentences_to_vouch([verdict]) == []
    assert (verdict.label, verdict.decided_by) == ("supported", "sentence")
    assert verdict.score == pytest.approx(0.2)  # the sentence's hallucination probability
    assert verdict.evidence == window and verdict.blamed is None
    # the fact's own reading is kept in its probabilities
    assert verdict.probs.contradiction == pytest.approx(0.891)
    # off (the default), or the sentence entailed less than asked: the verifier's reading stands
    for judge, sentence in (
        (FactJudge("hybrid"), entailed),
        (FactJudge("hybrid", sentence_entailment=0.85), entailed),
        (FactJudge("hybrid", sentence_entailment=0.7), None),
    ):
        [verdict] = _headache_verdicts(judge, sentence)
        assert (verdict.label, verdict.decided_by) == ("contradicted", "nli")
    assert (
        FactJudge("hybrid").sentences_to_vouch(_headache_verdicts(FactJudge("hybrid"), None)) == []
    )
    # the threshold has the last word: a sentence at or above it vouches for nothing
    lukewarm = EvidenceDecision("supported", NLIScores(0.5, 0.3, 0.2), window, 0)
    [verdict] = _headache_verdicts(FactJudge("hybrid", sentence_entailment=0.4), lukewarm)
    assert (verdict.label, verdict.decided_by) == ("contradicted", "nli")


def test_a_sentence_entailed_whole_never_clears_a_conflict_an_absent_name_or_grounding() -> None:
    entailed = EvidenceDecision("supported", NLIScores(0.95, 0.04, 0.01), HEADACHE_EVIDENCE, 0)
    judge = FactJudge("hybrid", sentence_entailment=0.7)
    # a value conflict: "1998" against the evidence's "2003"
    context = "Suede disbanded in 2003."
    answer = "Suede split up in 1998."
    fact = Fact("f0.0", 0, "Suede", "split up in", "1998", [Span(0, 5)], [Span(6, 17)],
                [Span(18, 22)])  # fmt: skip
    evidence = Evidence(0, len(context), context)
    decision = EvidenceDecision("contradicted", nli(0.6), evidence, 0)
    [verdict] = judge.judge(
        answer, [fact], ["Suede split up in 1998."], [decision],
        grounding=GroundingIndex(context), sentence_decisions={0: entailed},
    )  # fmt: skip
    assert (verdict.label, verdict.decided_by) == ("contradicted", "value_conflict")
    # words the context lacks, the NLI term outweighed by grounding
    decision = EvidenceDecision("supported", nli(0.3), evidence, 0)
    band = Fact("f0.0", 0, "Suede", "split up in", "Leeds", [Span(0, 5)], [Span(6, 17)],
                [Span(18, 23)])  # fmt: skip
    [verdict] = judge.judge(
        "Suede split up in Leeds.", [band], ["Suede split up in Leeds."], [decision],
        grounding=GroundingIndex("Suede formed in London in 1989."),
        sentence_decisions={0: entailed},
    )  # fmt: skip
    assert verdict.label != "supported" and verdict.decided_by in ("absent_name", "grounding")
    # other verification modes leave the facts alone
    [verdict] = _headache_verdicts(FactJudge("nli", sentence_entailment=0.7), entailed)
    assert (verdict.label, verdict.decided_by) == ("contradicted", "nli")
    nli_mode = FactJudge("nli", sentence_entailment=0.7)
    assert nli_mode.sentences_to_vouch(_headache_verdicts(nli_mode, None)) == []


@pytest.mark.parametrize("value", [-0.1, 1.5, float("nan"), True, "0.7"])
def test_sentence_entailment_out_of_range_is_refused(value: object) -> None:
    with pytest.raises(ValueError) as err:
        FactJudge("hybrid", sentence_entailment=value)  # type: ignore[arg-type]
    assert str(err.value) == (
        f"sentence_entailment must be a number in [0, 1] or None (off), got {value!r}"
    )


def _contradicted(answer: str, fact: Fact, context: str) -> FactVerdict:
    """``fact``'s hybrid verdict when the verifier contradicts it (0.97) from ``context``."""
    decision = EvidenceDecision(
        "contradicted", NLIScores(0.01, 0.02, 0.97), Evidence(0, len(context), context), 1
    )
    return FactJudge("hybrid").judge(
        answer, [fact], ["hypothesis"], [decision], grounding=GroundingIndex(context)
    )[0]


def _spanned(answer: str, fact_id: str, subject: str, relation: str, obj: str) -> Fact:
    def at(words: str) -> list[Span]:
        start = answer.index(words)
        return [Span(start, start + len(words))]

    return Fact(fact_id, 0, subject, relation, obj, at(subject), at(relation), at(obj))


@pytest.mark.parametrize(
    ("answer", "subject", "relation", "obj", "blamed"),
    [
        # a denial: its polarity is what the verifier contradicts, so the object is blamed
        # whole, not only the name the context lacks
        (
            'There was no British commander named "Robertson" at the battle.',
            "There",
            "was",
            'no British commander named "Robertson"',
            None,
        ),
        ("The general had never met Robertson.", "The general", "had", "never met Robertson", None),
        # no denial in what the fact blames: the unfound words, as before
        (
            "There was a British commander named Robertson.",
            "There",
            "was",
            "a British commander named Robertson",
            ["Robertson"],
        ),
        # "No." before a number abbreviates "number"
        (
            "The general led No. 5 Regiment under Robertson.",
            "The general",
            "led",
            "No. 5 Regiment under Robertson",
            ["Robertson"],
        ),
    ],
)
def test_a_contradicted_denial_blames_its_object_whole(
    answer: str, subject: str, relation: str, obj: str, blamed: list[str] | None
) -> None:
    context = (
        "General William Howe led the British forces at the battle; No. 5 Regiment was there."
        " A British commander, named in the orders, had never met the general."
    )
    verdict = _contradicted(answer, _spanned(answer, "f0", subject, relation, obj), context)
    assert (verdict.label, verdict.decided_by) == ("contradicted", "nli")
    words = None if verdict.blamed is None else [answer[s.start : s.end] for s in verdict.blamed]
    assert words == blamed
