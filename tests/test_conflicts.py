"""Structural conflicts (verify/conflicts.py): swapped roles, stated exceptions, negations,
directions, values and names given in another role, dropped hedges, uniqueness, identity."""

from __future__ import annotations

from dataclasses import replace

import pytest

from enoki_hd.types import Fact, NLIScores, Span
from enoki_hd.verify.conflicts import (
    _verb_and_rest,
    agent_conflict,
    antonym_conflict,
    comparison_conflict,
    direction_conflict,
    duration_conflict,
    exception_conflict,
    find_conflict,
    hedge_conflict,
    identity_conflict,
    name_role_conflict,
    negation_conflict,
    order_conflict,
    pairing_conflict,
    quantifier_conflict,
    role_conflict,
    status_conflict,
    uniqueness_conflict,
    value_role_conflict,
)
from enoki_hd.verify.grounding import CONTRADICTED_HALL_FLOOR, GroundingResult
from enoki_hd.verify.judge import fuse

HARBOR = "In 2019, Crestline Credit bought the regional lender Harbor Bank for $2.1 billion."
MUSEUM = "The museum is open every day except Mondays, when it is closed for maintenance."


def fact(subject: str, relation: str, obj: str, *, negated: bool = False, source: str = "") -> Fact:
    return Fact("f0", 0, subject, relation, obj, negated=negated, source=source)


# ---------------------------------------------------------------------------------------------
# role reversal
# ---------------------------------------------------------------------------------------------


def test_swapped_roles_are_a_role_conflict_naming_the_sentence() -> None:
    conflict = role_conflict(fact("Harbor Bank", "bought", "Crestline Credit"), HARBOR)
    assert conflict is not None
    assert (conflict.kind, conflict.sentence, conflict.decided_by) == (
        "role",
        HARBOR,
        "role_conflict",
    )


def test_the_roles_as_stated_are_no_conflict() -> None:
    assert role_conflict(fact("Crestline Credit", "bought", "Harbor Bank"), HARBOR) is None
    assert role_conflict(fact("Crestline Credit", "bought", "the lender"), HARBOR) is None


@pytest.mark.parametrize(
    "evidence",
    [
        # passive: the evidence says what the fact says
        "Crestline Credit was bought by Harbor Bank in 2019.",
        "Crestline Credit, bought by Harbor Bank in 2019, kept its name.",
        # both orders stated somewhere
        "Crestline Credit bought Harbor Bank. Years later Harbor Bank bought Crestline Credit.",
        # the second argument is not the relation's object
        "Crestline Credit bought a building from Harbor Bank.",
        # a clause boundary between the first argument and the relation
        "Crestline Credit said that it bought Harbor Bank.",
    ],
)
def test_role_check_stays_silent_where_the_order_proves_nothing(evidence: str) -> None:
    assert role_conflict(fact("Harbor Bank", "bought", "Crestline Credit"), evidence) is None


def test_role_check_skips_symmetric_relations_obliques_numbers_and_pronouns() -> None:
    assert role_conflict(fact("Anna", "married", "Tom"), "Tom married Anna in 1990.") is None
    assert role_conflict(fact("Anna", "lives with", "Tom"), "Tom lives with Anna.") is None
    assert role_conflict(fact("It", "bought", "Acme"), "Acme bought it.") is None
    assert role_conflict(fact("Acme", "sold", "300 units"), "300 units sold Acme.") is None


def test_a_score_after_the_object_is_set_aside_in_the_role_check() -> None:
    """ "Corran Athletic | beat | Westmarch United 3–1" held digits, so the object was no
    clear noun phrase and the swapped result passed; the score is no part of the name."""
    match = "Westmarch United beat Corran Athletic 3–1 on Saturday to move into second place."
    conflict = role_conflict(fact("Corran Athletic", "beat", "Westmarch United 3–1"), match)
    assert conflict is not None and (conflict.kind, conflict.sentence) == ("role", match)
    assert role_conflict(fact("Westmarch United", "beat", "Corran Athletic 3–1"), match) is None
    assert role_conflict(fact("Corran Athletic", "beat", "Westmarch United 2-0"), match) is not None
    # the tagger's coarser objects: what follows the name that opens the object
    coarse = fact("Corran Athletic", "beat", "Westmarch United 3–1 Saturday")
    assert role_conflict(coarse, match) is not None
    deal = "Orvane Systems agreed to acquire Telluric Data for an undisclosed sum."
    sum_ = fact("Telluric Data", "agreed to acquire", "Orvane Systems for an undisclosed sum")
    conflict = role_conflict(sum_, deal)
    assert conflict is not None and conflict.value == "Orvane Systems"  # the name is blamed
    assert (
        role_conflict(fact("Orvane Systems", "agreed to acquire", "Telluric Data for a sum"), deal)
        is None
    )
    # a number that is the object itself is still no phrase, nor a bound without its number
    assert role_conflict(fact("Acme", "sold", "300"), "300 sold Acme.") is None
    bands = "A systolic reading below 120 with a diastolic below 80 is normal."
    assert role_conflict(fact("Normal", "diastolic", "below 80"), bands) is None


def test_a_quote_before_its_speaker_is_reporting_order_not_swapped_roles() -> None:
    quote = '"We are so thankful and blessed," said Danielle Busby, who had twins.'
    said = fact("Danielle Busby", "said", "We are so thankful and blessed")
    assert role_conflict(said, quote) is None
    assert find_conflict(said, quote) is None


def test_role_check_matches_word_forms_and_skips_determiners() -> None:
    conflict = role_conflict(
        fact("the Rovers", "defeated", "the Lions"), "The Lions defeated the Rovers 3-1."
    )
    assert conflict is not None and conflict.kind == "role"


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence"),
    [
        (
            "Hansol Cells",
            "imports",
            "its battery cells from Velmora Electric",
            "Velmora Electric imports its battery cells from the Korean supplier Hansol Cells"
            " and assembles the packs in Grantham.",
        ),
        (
            "Acme",
            "sold",
            "the factory to Brixton Holdings",
            "Brixton Holdings sold the factory to Acme in 2019.",
        ),
        ("The team", "sent", "a letter to Parliament", "Parliament sent a letter to the team."),
    ],
)
def test_a_name_after_the_objects_preposition_swapped_with_the_subject_is_a_role_conflict(
    subject: str, relation: str, obj: str, evidence: str
) -> None:
    conflict = role_conflict(fact(subject, relation, obj), evidence)
    assert conflict is not None
    assert (conflict.kind, conflict.sentence) == ("role", evidence)


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence"),
    [
        # the roles as stated
        (
            "Hansol Cells",
            "imports",
            "its cells from Velmora Electric",
            "Hansol Cells imports its cells from Velmora Electric.",
        ),
        # both orders stated
        (
            "Acme",
            "sold",
            "the factory to Brixton Holdings",
            "Brixton Holdings sold the factory to Acme. Acme sold the factory to Brixton Holdings.",
        ),
        # a passive, another verb, a clause between the relation and the preposition
        (
            "Acme",
            "sold",
            "the factory to Brixton Holdings",
            "Brixton Holdings was sold the factory to Acme.",
        ),
        ("Keldara", "shipped", "wheat to Tarsovia", "Tarsovia imported wheat from Keldara."),
        (
            "Acme",
            "sold",
            "the factory to Brixton Holdings",
            "Brixton Holdings sold the warehouse, which it bought from Acme.",
        ),
        # "with" is mostly symmetric, a lower-case phrase is no name, nor a pronoun
        ("Arden", "shares", "a plant with Lumicell", "Lumicell shares a plant with Arden."),
        ("Acme", "sold", "the factory to a rival", "A rival sold the factory to Acme."),
        ("Acme", "sold", "the factory to them", "They sold the factory to Acme."),
        # a negated fact
        (
            "Acme",
            "did not sell",
            "the factory to Brixton Holdings",
            "Brixton Holdings sold the factory to Acme.",
        ),
    ],
)
def test_the_oblique_role_check_stays_silent_where_the_order_proves_nothing(
    subject: str, relation: str, obj: str, evidence: str
) -> None:
    assert role_conflict(fact(subject, relation, obj), evidence) is None


# ---------------------------------------------------------------------------------------------
# exception
# ---------------------------------------------------------------------------------------------


def test_a_stated_exception_contradicts_the_fact_about_it() -> None:
    conflict = exception_conflict(fact("museum", "is open on", "Mondays"), MUSEUM)
    assert conflict is not None and (conflict.kind, conflict.sentence) == ("exception", MUSEUM)


@pytest.mark.parametrize(
    ("subject", "relation", "obj"),
    [
        ("museum", "is open on", "Tuesdays"),  # not the exception
        ("museum", "is closed on", "Mondays"),  # what the evidence says
        ("museum", "is not open on", "Mondays"),  # negated: agrees
        ("library", "is open on", "Mondays"),  # another subject
    ],
)
def test_exception_check_is_silent_otherwise(subject: str, relation: str, obj: str) -> None:
    assert exception_conflict(fact(subject, relation, obj), MUSEUM) is None


def test_exception_phrasings() -> None:
    conflict = exception_conflict(
        fact("The clinic", "accepts", "walk-in patients"),
        "The clinic accepts all patients apart from walk-in patients.",
    )
    assert conflict is not None and conflict.kind == "exception"


# ---------------------------------------------------------------------------------------------
# negation
# ---------------------------------------------------------------------------------------------


def test_a_denied_statement_contradicts_the_fact() -> None:
    evidence = "The drug is not approved for children under twelve."
    conflict = negation_conflict(fact("The drug", "is approved for", "children"), evidence)
    assert conflict is not None and (conflict.kind, conflict.sentence) == ("negation", evidence)


def test_a_negative_contraction_is_a_negation() -> None:
    """ "isn't", "didn't", "can't" are one word to the tokenizer; every check reads them as
    their verb and "n't"."""
    evidence = "The drug isn't approved for children under twelve."
    conflict = negation_conflict(fact("The drug", "is approved for", "children"), evidence)
    assert conflict is not None and (conflict.kind, conflict.sentence) == ("negation", evidence)
    # a negated fact against the same negation said another way: no conflict
    negated = fact("The drug", "is not approved for", "children", negated=True)
    assert negation_conflict(negated, evidence) is None
    said = "Children can't be given the drug, which isn't approved for them."
    assert negation_conflict(fact("Children", "can be given", "the drug"), said)


def test_a_negated_fact_against_none_is_no_negation_conflict() -> None:
    evidence = "The Harlan deal, however, contained none of these clauses."
    negated = fact("The Harlan deal", "did not contain", "these clauses", negated=True)
    assert negation_conflict(negated, evidence) is None
    plain = "The Harlan deal, however, contained these clauses."
    assert negation_conflict(negated, plain)
    # "second to none" denies nothing
    idiom = "The Harlan deal contained these clauses, which are second to none."
    assert negation_conflict(negated, idiom)


def test_a_verb_that_implies_the_negation_denies() -> None:
    """ "failed to", "was unable to", "tried unsuccessfully to" deny the verb after them."""
    evidence = "The Orvane group failed to complete the merger."
    conflict = negation_conflict(fact("The Orvane group", "completed", "the merger"), evidence)
    assert conflict is not None and (conflict.kind, conflict.sentence) == ("negation", evidence)
    tried = "The dispatcher tried unsuccessfully to contact the aircraft."
    assert negation_conflict(fact("The dispatcher", "contacted", "the aircraft"), tried)
    # a negated fact against them: the same claim, no conflict
    negated = fact("The dispatcher", "could not contact", "the aircraft", negated=True)
    assert negation_conflict(negated, tried) is None
    # "failed" without "to" denies nothing
    other = "The Orvane group completed the merger after a failed bid."
    assert negation_conflict(fact("The Orvane group", "completed", "the merger"), other) is None


def test_a_no_after_a_preposition_denies_nothing() -> None:
    evidence = "A man with no shirt on is holding a football."
    assert negation_conflict(fact("A man", "is holding", "a football"), evidence) is None
    denied = "A man with a coat on is not holding a football."
    assert negation_conflict(fact("A man", "is holding", "a football"), denied)


def test_a_phrase_is_found_with_determiners_aside() -> None:
    """The rules extractor leaves the articles out of a subject ("fire at Kessling sawmill");
    the evidence writes them ("the fire at the Kessling sawmill"), and every check finds the
    phrase all the same."""
    evidence = "The fire at the Kessling sawmill did not start in the drying shed."
    found = fact("fire at Kessling sawmill", "started in", "drying shed")
    conflict = negation_conflict(found, evidence)
    assert conflict is not None and (conflict.kind, conflict.sentence) == ("negation", evidence)
    # the phrase's own article need not be there either
    plain = "Fire at Kessling sawmill did not start in the drying shed."
    assert negation_conflict(fact("the fire at the Kessling sawmill", "started in", "shed"), plain)
    # another word inside the phrase is no determiner
    other = "The fire at the old Kessling sawmill did not start in the drying shed."
    assert negation_conflict(found, other) is None


def test_a_contrast_between_commas_denies_what_it_names_not_the_verb() -> None:
    evidence = "The company, not its rival, built the bridge."
    assert negation_conflict(fact("The company", "built", "the bridge"), evidence) is None


def test_a_plain_statement_that_excepts_the_subject_is_no_negation_conflict() -> None:
    evidence = "All staff except managers must attend the training."
    negated = fact("Managers", "do not have to attend", "the training")
    assert negation_conflict(negated, evidence) is None
    staff = fact("Cleaners", "do not have to attend", "the training")
    assert negation_conflict(staff, "All staff except managers must attend the training.") is None
    plain = "All staff must attend the training."
    assert negation_conflict(fact("Staff", "do not have to attend", "the training"), plain)


def test_a_negation_after_a_parenthetical_still_denies() -> None:
    evidence = "The drug, however, is not approved for children."
    conflict = negation_conflict(fact("The drug", "is approved for", "children"), evidence)
    assert conflict is not None and conflict.kind == "negation"


def test_a_negated_fact_against_a_plain_statement_conflicts() -> None:
    evidence = "The council approved the new bridge in March."
    negated = fact("The council", "did not approve", "the new bridge")
    assert negation_conflict(negated, evidence) is not None
    flagged = fact("The council", "approved", "the new bridge", negated=True)
    assert negation_conflict(flagged, evidence) is not None


@pytest.mark.parametrize(
    "evidence",
    [
        "The drug is approved for children under twelve.",
        "The drug is not only approved for children but also for adults.",
        "The drug, which is not cheap, is approved for children.",
    ],
)
def test_negation_check_is_silent_when_nothing_is_denied(evidence: str) -> None:
    assert negation_conflict(fact("The drug", "is approved for", "children"), evidence) is None


def test_find_conflict_tries_each_check_and_ignores_empty_evidence() -> None:
    assert find_conflict(fact("Harbor Bank", "bought", "Crestline Credit"), HARBOR) is not None
    assert find_conflict(fact("museum", "is open on", "Mondays"), MUSEUM) is not None
    assert find_conflict(fact("museum", "is open on", "Mondays"), "   ") is None
    assert find_conflict(fact("Crestline Credit", "bought", "Harbor Bank"), HARBOR) is None


# ---------------------------------------------------------------------------------------------
# fusion
# ---------------------------------------------------------------------------------------------


def test_a_conflict_makes_the_fusion_contradicted_whatever_nli_says() -> None:
    confident = NLIScores(0.98, 0.01, 0.01)
    grounded = GroundingResult(status="grounded", score=0.0)
    conflict = role_conflict(fact("Harbor Bank", "bought", "Crestline Credit"), HARBOR)
    fused = fuse(confident, grounded, mode="hybrid", conflict=conflict)
    assert (fused.label, fused.decided_by) == ("contradicted", "role_conflict")
    assert fused.score == pytest.approx(CONTRADICTED_HALL_FLOOR)
    assert fuse(confident, grounded, mode="hybrid").label is None
    assert fuse(confident, grounded, mode="nli", conflict=conflict).decided_by == "nli"


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence"),
    [
        ("Several passengers", "were injured", "", "None of the passengers were injured."),
        ("Some passengers", "were injured", "", "No passengers were injured in the crash."),
        ("Passengers", "were injured", "", "Neither of its passengers was injured."),
        ("Many residents", "received", "a letter", "No residents received a letter."),
    ],
)
def test_a_subject_denied_as_a_whole_is_a_negation_conflict(
    subject: str, relation: str, obj: str, evidence: str
) -> None:
    conflict = negation_conflict(fact(subject, relation, obj), evidence)
    assert conflict is not None and (conflict.kind, conflict.sentence) == ("negation", evidence)


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence"),
    [
        # the fact denies it too
        ("No passengers", "were injured", "", "None of the passengers were injured."),
        ("None of the passengers", "were injured", "", "No passengers were injured."),
        # the evidence denies another relation, another object, or not the subject
        ("Several passengers", "were delayed", "", "No passengers were injured."),
        ("Many residents", "received", "a letter", "No residents received a refund."),
        ("Several passengers", "were injured", "", "Passengers with no tickets were injured."),
        # a clause between
        ("Several passengers", "were injured", "", "No passengers who were seated were injured."),
    ],
)
def test_quantifier_negation_is_silent_otherwise(
    subject: str, relation: str, obj: str, evidence: str
) -> None:
    assert negation_conflict(fact(subject, relation, obj), evidence) is None


# ---------------------------------------------------------------------------------------------
# direction
# ---------------------------------------------------------------------------------------------


BASS = (
    "Bass violins were usually somewhat larger than the modern cello, but tuned to the same "
    "nominal pitches or sometimes one step lower."
)


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence"),
    [
        ("Imports", "rose by", "6%", "Imports of seaweed fell by 6% last year."),
        (
            "Blood cultures",
            "had been taken after",
            "the first dose",
            "Blood cultures were taken before the first dose was given.",
        ),
        ("The board", "approved", "the merger", "The board rejected the merger in May."),
        (  # "permit" here is a noun, no word of the fact's direction
            "The board",
            "granted the firm",
            "an extension",
            "The board refused the firm's request to extend its extraction permit.",
        ),
        ("Sales", "dropped in", "March", "Sales climbed in March."),
        # the fact's direction only in a clause with a subject of its own
        ("Exports", "rose by", "4%", "Exports fell by 4% in 2023, while imports rose by 6%."),
        ("Imports", "rose by", "6%", "Exports rose while imports fell by 6%."),
        ("The Court of Appeal", "overturned", "the ruling", "The Court of Appeal upheld it."),
        # a name may carry a number
        ("The Aldren 7 phone", "is", "heavier", "The Aldren 7 phone is lighter than the 6."),
        # a comparative of the opposite sense, read from the object of a relation with no
        # direction word of its own
        ("Bass violins", "were", "smaller", BASS),
        ("The north tower", "is", "the taller", "The north tower is shorter by four metres."),
        ("The patients", "had", "a lower risk", "The patients had a higher risk of relapse."),
    ],
)
def test_a_word_of_the_opposite_direction_is_a_direction_conflict(
    subject: str, relation: str, obj: str, evidence: str
) -> None:
    conflict = direction_conflict(fact(subject, relation, obj), evidence)
    assert conflict is not None and (conflict.kind, conflict.sentence) == ("direction", evidence)


@pytest.mark.parametrize(
    "evidence",
    [
        "Imports rose by 6% after falling in 2019.",  # the fact's own direction is there
        "Imports did not fall last year.",  # negated: no direction stated
        "Exports fell by 6% last year.",  # another subject
        # the fact's direction in a clause that shares the subject, or names it again
        "Imports fell in January and rose by 6% over the year.",
        "Imports fell in January, but imports rose by 6% over the year.",
    ],
)
def test_direction_check_is_silent_otherwise(evidence: str) -> None:
    assert direction_conflict(fact("Imports", "rose by", "6%"), evidence) is None


def test_opening_or_closing_at_a_time_of_day_is_no_direction() -> None:
    """ "closes at 5 p.m." beside "is open from 09:00 to 17:00": both give opening hours,
    which the values check, not the words "open" and "close"; closed on a day the context has
    it open, or opening on a day it is closed, is still the opposite."""
    library = "The library is open from 09:00 to 17:00 on weekdays."
    for relation, obj in (("closes at", "5 p.m."), ("shuts at", "17:00"), ("opened at", "9am")):
        assert direction_conflict(fact("The library", relation, obj), library) is None
    conflict = direction_conflict(fact("The library", "is closed on", "weekdays"), library)
    assert conflict is not None and conflict.kind == "direction"
    museum = "The museum is closed on Mondays."
    for obj in ("Mondays", "Mondays at noon"):  # no hours in the evidence: closed all day
        conflict = direction_conflict(fact("The museum", "opens on", obj), museum)
        assert conflict is not None and conflict.kind == "direction"


ORVANE = (
    "Sales of Orvane bicycles in Norway rose by 12% last year, while sales of its scooters in "
    "the country fell by 4%."
)


def test_the_direction_word_before_the_facts_value_decides() -> None:
    """A value the fact gives in one direction that the evidence gives its subject in the
    other, whatever else in the sentence went the fact's way ("rose by 12%")."""
    scooters = fact("Sales of Orvane scooters in Norway", "rose by", "4%")
    conflict = direction_conflict(scooters, ORVANE)
    assert conflict is not None and (conflict.kind, conflict.sentence) == ("direction", ORVANE)
    assert direction_conflict(fact("Sales of Orvane bicycles", "rose by", "12%"), ORVANE) is None
    # words between the direction and the value
    evidence = "Membership of the club fell to nearly 240 last year."
    assert direction_conflict(fact("Membership of the club", "rose to", "240"), evidence)
    evidence = "Shares in the Orvane group fell by $2 in May."
    assert direction_conflict(fact("Shares in Orvane", "rose by", "$2"), evidence)


@pytest.mark.parametrize(
    "evidence",
    [
        # the value in the fact's direction too
        "Scooter sales fell by 4% in May but rose by 4% over the year.",
        # the value another subject's
        "Bicycle sales fell by 4% in Norway.",
        # the value not given by the direction word
        "In 2023, 4% of scooter riders switched to bicycles, and sales fell.",
    ],
)
def test_the_value_check_is_silent_otherwise(evidence: str) -> None:
    assert direction_conflict(fact("Scooter sales", "rose by", "4%"), evidence) is None


def test_an_exception_of_the_facts_object_is_no_direction_conflict() -> None:
    # "open every day except Sunday" says the shop is closed on Sunday
    evidence = "The shop is open every day except Sunday."
    assert direction_conflict(fact("The shop", "is closed on", "Sunday"), evidence) is None
    # an exception of something else leaves the check as it was
    other = "The shop is open every day except Sunday, and it is open on Monday."
    assert direction_conflict(fact("The shop", "is closed on", "Monday"), other) is not None


def test_a_count_is_no_subject_of_the_direction_check() -> None:
    """ "3 of the 12 members" names no one: a number in a subject stays out of the check
    unless it follows a name ("The Aldren 7")."""
    assert (
        direction_conflict(fact("3 of the 12 members", "rose", ""), "3 of the 12 members fell.")
        is None
    )


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence"),
    [
        ("Bass violins", "were", "larger", BASS),  # what the evidence says
        ("Bass violins", "were", "more popular", "Bass violins were less popular."),  # "more"
        ("Bass violins", "were played with", "smaller bows", BASS),  # a relation of its own
        ("Modern cellos", "were", "smaller", BASS),  # another subject
        (
            "Bass violins",
            "were",
            "smaller",
            "Bass violins were larger than violas but smaller than double basses.",
        ),  # the fact's own sense is there
        ("Bass violins", "were", "smaller", "Bass violins were not larger than cellos."),
    ],
)
def test_comparative_check_is_silent_otherwise(
    subject: str, relation: str, obj: str, evidence: str
) -> None:
    assert direction_conflict(fact(subject, relation, obj), evidence) is None


def test_direction_check_is_silent_when_the_sentence_also_has_the_facts_direction() -> None:
    # "grow" in the relative clause is of the fact's own direction, so "fell" proves nothing
    evidence = "Imports, which analysts had expected to grow, fell sharply."
    assert direction_conflict(fact("Imports", "grew", "sharply"), evidence) is None


def test_stems_join_regular_forms_only() -> None:
    from enoki_hd.verify.conflicts import _stem

    assert {_stem(w) for w in ("approved", "approves", "approve", "approving")} == {"approv"}
    assert _stem("dropped") == _stem("drop") == "drop"
    assert _stem("bought") != _stem("buy")


def test_particles_are_no_direction() -> None:
    evidence = "The company shut down its Leeds factory in 2004."
    assert direction_conflict(fact("The company", "set up", "a factory"), evidence) is None


# ---------------------------------------------------------------------------------------------
# comparison
# ---------------------------------------------------------------------------------------------

TABLETS = "Headaches were more frequent with the new tablet (12%) than with the older one (4%)."


@pytest.mark.parametrize(
    ("answer", "subject", "relation", "obj", "evidence"),
    [
        (  # the compared things between the comparative and "than", and after it
            "Headaches were more frequent with the older tablet than with the new one.",
            "Headaches",
            "were more frequent with",
            "older tablet",
            TABLETS,
        ),
        (  # the fact of the second compared thing
            "Headaches were more frequent with the older tablet than with the new one.",
            "Headaches",
            "were more frequent than with",
            "new one",
            TABLETS,
        ),
        (  # the subjects compared
            "The Falcon 7 is faster than the Osprey.",
            "Falcon 7",
            "is faster than",
            "Osprey",
            "The Osprey is faster than the Falcon 7, but it costs more.",
        ),
        (
            "Rents in Oslo are higher than in Bergen.",
            "Rents in Oslo",
            "are higher than in",
            "Bergen",
            "Rents in Bergen are higher than in Oslo.",
        ),
    ],
)
def test_a_comparison_the_other_way_round_is_a_role_conflict(
    answer: str, subject: str, relation: str, obj: str, evidence: str
) -> None:
    found = spanned(answer, subject, relation, obj)
    conflict = comparison_conflict(found, evidence, answer)
    assert conflict is not None
    assert (conflict.kind, conflict.sentence, conflict.decided_by, conflict.label) == (
        "role",
        evidence,
        "role_conflict",
        "contradicted",
    )
    # find_conflict runs it only with the answer
    assert find_conflict(found, evidence, answer=answer) == conflict
    assert find_conflict(found, evidence) is None


@pytest.mark.parametrize(
    ("answer", "obj", "evidence"),
    [
        # what the evidence says
        ("Headaches were more frequent with the new tablet than with the older one.",
         "new tablet", TABLETS),
        # the same claim in other words: the opposite comparative the other way round
        ("Headaches were less frequent with the older tablet than with the new one.",
         "older tablet", TABLETS),
        # another topic
        ("Fever was more frequent with the older tablet than with the new one.",
         "older tablet", TABLETS),
        # another comparative
        ("Headaches were more severe with the older tablet than with the new one.",
         "older tablet", TABLETS),
        # the places said the other way, the same claim
        ("Headaches were more frequent with the new tablet than the older one.",
         "new tablet",
         "With the new tablet headaches were more frequent than with the older one."),
    ],
)  # fmt: skip
def test_comparison_check_is_silent_otherwise(answer: str, obj: str, evidence: str) -> None:
    relation = answer.split(" with ")[0].split(" ", 1)[1] + " with"
    found = spanned(answer, answer.split()[0], relation, obj)
    assert comparison_conflict(found, evidence, answer) is None


def test_a_bound_is_no_comparison() -> None:
    answer = "More than 40 people attended the first meeting."
    found = spanned(answer, "More than 40 people", "attended", "first meeting")
    evidence = "The first meeting drew more than 40 people, more than the second."
    assert comparison_conflict(found, evidence, answer) is None


# ---------------------------------------------------------------------------------------------
# value role
# ---------------------------------------------------------------------------------------------

KESTREL = (
    "Revenue at Kestrel Foods fell 4% in the first half. Export revenue, however, rose 9% and "
    "now makes up a fifth of the total. The firm hired 120 drivers this year, up from 85 the "
    "year before."
)


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "sentence", "value"),
    [
        # the 4% is the total's fall; the export figure is 9%
        ("Kestrel Foods' export revenue", "rose", "4%", 1, "4%"),
        # 85 is last year's figure; this year's slot says 120
        ("The firm", "hired", "85 drivers", 2, "85"),
    ],
)
def test_a_value_stated_for_something_else_is_a_value_role_conflict(
    subject: str, relation: str, obj: str, sentence: int, value: str
) -> None:
    conflict = value_role_conflict(fact(subject, relation, obj), KESTREL)
    sentences = [
        "Revenue at Kestrel Foods fell 4% in the first half.",
        "Export revenue, however, rose 9% and now makes up a fifth of the total.",
        "The firm hired 120 drivers this year, up from 85 the year before.",
    ]
    assert conflict is not None
    assert (conflict.kind, conflict.sentence, conflict.value, conflict.decided_by) == (
        "value_role",
        sentences[sentence],
        value,
        "value_role_conflict",
    )


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence"),
    [
        # the value as stated
        ("Export revenue", "rose", "9%", KESTREL),
        ("The firm", "hired", "about 120 drivers", KESTREL),
        # a coordinated or listed value is given the same relation
        ("Sales", "grew", "7%", "Sales grew 5% in the first quarter and 7% in the second."),
        (
            "The hearings",
            "were scheduled for",
            "January 2020",
            "The hearings were scheduled for December 2019 and January 2020.",
        ),
        (
            "The band",
            "released",
            "four single albums",
            "The band released two studio albums, four single albums, and one compilation.",
        ),
        # the same value in other words
        ("The plant", "produced", "2.1 million tonnes", "The plant produced 2,100,000 tonnes."),
        # another subject, another relation, a pronoun subject, no value, a negated relation
        ("Imports", "rose", "4%", "Exports rose 9% last year."),
        # the subject's head is "imports", not the "county" of its modifier
        ("Imports into the county", "rose by", "4%", "Exports of county cheese rose by 9%."),
        ("Export revenue", "climbed", "4%", KESTREL),
        ("It", "rose", "4%", "It rose 9% last year."),
        ("Export revenue", "rose", "sharply", KESTREL),
        ("Export revenue", "did not rise", "4%", KESTREL),
        ("Export revenue", "rose", "9%", "Export revenue did not rise 4% as forecast."),
        # two values in the object: which one would be wrong is unclear
        ("Export revenue", "rose", "4% to 9%", KESTREL),
        # the value comes before the relation word: not "S R value"
        (
            "Sleep time",
            "therapy",
            "+34 min",
            "Sleep time rose by 34 minutes with therapy and by 10 minutes with advice.",
        ),
        # the evidence's subject has another ordinal: another thing
        (
            "Her second novel",
            "was published in",
            "1995",
            "The author's first novel was published in 1990 and her second in 1995.",
        ),
    ],
)
def test_value_role_check_is_silent_otherwise(
    subject: str, relation: str, obj: str, evidence: str
) -> None:
    assert value_role_conflict(fact(subject, relation, obj), evidence) is None


def test_a_value_missing_from_a_list_of_values_is_a_value_role_conflict() -> None:
    evidence = "The band released two studio albums, four single albums, and one compilation."
    conflict = value_role_conflict(fact("The band", "released", "five single albums"), evidence)
    assert conflict is not None and conflict.value == "five"


def test_a_semicolon_ends_the_subjects_reach() -> None:
    """ "Lena Vogt; the chemist Omar Haddad won it in 2020": the year is Haddad's, not
    Vogt's — before, "Vogt" six words before "won" made the slot hers."""
    evidence = (
        "The 2019 prize went to the physicist Lena Vogt; the chemist Omar Haddad won it in 2020."
    )
    assert value_role_conflict(fact("Lena Vogt", "won", "the prize in 2019"), evidence) is None
    assert (
        value_role_conflict(fact("Omar Haddad", "won", "the prize in 2019"), evidence) is not None
    )


def test_value_role_compares_dates_and_takes_digits_in_the_subject() -> None:
    evidence = "The Orla 3 bridge was completed in 1979, two years after work began in 1977."
    conflict = value_role_conflict(fact("The Orla 3 bridge", "was completed in", "1981"), evidence)
    assert conflict is not None and conflict.value == "1981"
    assert (
        value_role_conflict(fact("The Orla 3 bridge", "was completed in", "1979"), evidence) is None
    )
    assert find_conflict(fact("work", "began in", "1979"), evidence) is not None


# ---------------------------------------------------------------------------------------------
# dropped hedge
# ---------------------------------------------------------------------------------------------

TRIAL = "Early figures suggest that the new triage rota may shorten waiting times in the clinic."


def test_a_plain_fact_from_a_hedged_sentence_is_an_unverifiable_hedge_conflict() -> None:
    conflict = hedge_conflict(fact("The new triage rota", "shortens", "waiting times"), TRIAL)
    assert conflict is not None
    assert (conflict.kind, conflict.sentence, conflict.label, conflict.decided_by) == (
        "hedge",
        TRIAL,
        "unverifiable",
        "hedge_conflict",
    )
    fused = fuse(
        NLIScores(0.95, 0.03, 0.02),
        GroundingResult(status="grounded", score=0.0),
        mode="hybrid",
        conflict=conflict,
    )
    assert (fused.label, fused.decided_by) == ("unverifiable", "hedge_conflict")
    assert fused.score == pytest.approx(CONTRADICTED_HALL_FLOOR)


def test_a_certain_modal_drops_the_hedge_a_hedging_one_keeps_it() -> None:
    """The check skipped every fact with a modal, so "The ministry will extend the scheme"
    passed against "The ministry may extend the scheme" once the extractor recorded "will"."""
    evidence = "The ministry may extend the subsidy scheme into next year if funds allow."
    for modal in ("will", "must", "shall"):
        plain = Fact(
            "f0", 0, "The ministry", f"{modal} extend", "the subsidy scheme", modality=modal
        )
        conflict = hedge_conflict(plain, evidence)
        assert conflict is not None and conflict.sentence == evidence, modal
    for modal in ("may", "could", "might", "can", "would", "should"):
        hedged = Fact(
            "f0", 0, "The ministry", f"{modal} extend", "the subsidy scheme", modality=modal
        )
        assert hedge_conflict(hedged, evidence) is None, modal
    stated = "The ministry will extend the subsidy scheme into next year."
    plain = Fact("f0", 0, "The ministry", "will extend", "the subsidy scheme", modality="will")
    assert hedge_conflict(plain, stated) is None


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence"),
    [
        # the fact keeps the hedge
        ("The new triage rota", "may shorten", "waiting times", TRIAL),
        ("The new triage rota", "could shorten", "waiting times", TRIAL),
        # stated plainly elsewhere in the evidence
        (
            "The new triage rota",
            "shortens",
            "waiting times",
            TRIAL + " The rota shortens waiting times, the audit found.",
        ),
        # another relation word, another object, a negated fact
        ("The new triage rota", "cuts", "waiting times", TRIAL),
        ("The new triage rota", "shortens", "queues", TRIAL),
        ("The new triage rota", "does not shorten", "waiting times", TRIAL),
        # the hedged clause says something else; the object is after a semicolon
        (
            "The drug",
            "often causes",
            "nausea",
            "The drug may cause dizziness; it often causes nausea.",
        ),
    ],
)
def test_hedge_check_is_silent_otherwise(
    subject: str, relation: str, obj: str, evidence: str
) -> None:
    assert hedge_conflict(fact(subject, relation, obj), evidence) is None


ARDEL = (
    "Geologists say a recent rise in sulphur dioxide emissions could signal that magma is moving"
    " closer to the surface."
)


def test_a_clause_proved_where_the_evidence_hedges_it_is_a_hedge_conflict() -> None:
    """ "confirms that X" against "could signal that X": the verb of proof is blamed."""
    proved = fact(
        "The rise in sulphur dioxide", "confirms", "that magma is moving toward the surface"
    )
    conflict = hedge_conflict(proved, ARDEL)
    assert conflict is not None
    assert (conflict.kind, conflict.sentence, conflict.label, conflict.value) == (
        "hedge",
        ARDEL,
        "unverifiable",
        "confirms",
    )
    shows = fact("The survey", "shows", "that the rota shortens waiting times")
    assert (
        hedge_conflict(shows, "The survey suggests that the rota shortens waiting times.")
        is not None
    )


@pytest.mark.parametrize(
    "evidence",
    [
        # stated as proved somewhere
        ARDEL + " A second survey confirms that magma is moving toward the surface.",
        # the clause says something else
        "Geologists say the rise could signal that the crater is widening.",
        # the hedge is on something else; the clause is proved
        "The rise could signal unrest, and a survey confirms that magma is moving to the surface.",
    ],
)
def test_the_proof_check_is_silent_otherwise(evidence: str) -> None:
    proved = fact(
        "The rise in sulphur dioxide", "confirms", "that magma is moving toward the surface"
    )
    assert hedge_conflict(proved, evidence) is None
    # not a verb of proof, or no "that" clause
    said = fact("The rise in sulphur dioxide", "means", "that magma is moving toward the surface")
    assert hedge_conflict(said, ARDEL) is None


def test_a_modal_the_extractor_recorded_keeps_the_fact_hedged() -> None:
    hedged = Fact("f0", 0, "The new triage rota", "shortens", "waiting times", modality="may")
    assert hedge_conflict(hedged, TRIAL) is None


# ---------------------------------------------------------------------------------------------
# uniqueness
# ---------------------------------------------------------------------------------------------

RUNOFF = "The survey lists road salt as one of several sources of chloride in the Avon Brook."
SEA_WALL = "The Kelby sea wall is one of three defences the town relies on during storms."
FIRE = "A faulty heater was one of several causes of the warehouse fire, investigators said."


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence"),
    [
        ("road salt", "is", "main source of chloride", RUNOFF),  # a word before the noun
        ("The Kelby sea wall alone", "would protect", "the town", SEA_WALL),  # on the subject
        ("The warehouse fire", "was caused solely by", "a faulty heater", FIRE),  # relation
    ],
)
def test_the_only_or_main_one_against_one_of_several_is_a_uniqueness_conflict(
    subject: str, relation: str, obj: str, evidence: str
) -> None:
    conflict = uniqueness_conflict(fact(subject, relation, obj), evidence)
    assert conflict is not None
    assert (conflict.kind, conflict.sentence, conflict.label) == (
        "uniqueness",
        evidence,
        "contradicted",
    )


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence"),
    [
        ("road salt", "is", "source of chloride", RUNOFF),  # no word of uniqueness
        ("road salt", "is", "one of the main sources of chloride", RUNOFF),  # the fact hedges
        ("road salt", "is", "main cause of erosion", RUNOFF),  # another noun after "one of"
        # the evidence itself says "only": it is about something else
        (
            "Castle Mill",
            "is",
            "only museum in the town",
            "Castle Mill, one of the oldest buildings, is the only museum in the town.",
        ),
        # "one of" about another noun of the sentence
        (
            "Castle Mill",
            "is",
            "only museum in the town",
            "Castle Mill, one of the oldest buildings in the town, houses a museum.",
        ),
        ("The warehouse fire", "was caused by", "a faulty heater", FIRE),
        ("The warehouse fire", "was not caused solely by", "a faulty heater", FIRE),
    ],
)
def test_uniqueness_check_is_silent_otherwise(
    subject: str, relation: str, obj: str, evidence: str
) -> None:
    negated = "not" in relation.split()
    assert uniqueness_conflict(fact(subject, relation, obj, negated=negated), evidence) is None


FACTORS = (
    "Vitamin D deficiency is thought to be one of a number of factors that can contribute to"
    " the fatigue reported by some patients."
)


def test_the_cause_against_one_of_several_factors_is_a_uniqueness_conflict() -> None:
    # "the" in the fact's object, or in the answer right before it (the rules drop it)
    conflict = uniqueness_conflict(fact("Vitamin D deficiency", "is", "the cause"), FACTORS)
    assert conflict is not None and (conflict.kind, conflict.sentence) == ("uniqueness", FACTORS)
    answer = "Vitamin D deficiency is the cause of the fatigue."
    cause = Fact(
        "f0", 0, "Vitamin D deficiency", "is", "cause of fatigue",
        subject_spans=[Span(0, 20)], relation_spans=[Span(21, 23)],
        object_spans=[Span(28, 33), Span(34, 36), Span(41, 48)],
    )  # fmt: skip
    assert answer[28:33] == "cause" and answer[41:48] == "fatigue"
    found = find_conflict(cause, FACTORS, answer=answer)
    assert found is not None and found.kind == "uniqueness"
    # without the answer, a bare "cause" is not known to be "the cause"
    assert uniqueness_conflict(cause, FACTORS) is None


@pytest.mark.parametrize(
    ("relation", "obj", "evidence"),
    [
        ("is", "a cause", FACTORS),  # one cause among others
        ("is", "the cause", "Vitamin D deficiency is one of the causes of the fatigue, and the main one."),
        ("is", "the cause", "Vitamin D deficiency causes the fatigue."),
        ("may be", "the cause", FACTORS),  # not a bare "be"
        ("is", "the result", FACTORS),  # no noun of a sole role
    ],
)  # fmt: skip
def test_the_cause_check_is_silent_otherwise(relation: str, obj: str, evidence: str) -> None:
    assert uniqueness_conflict(fact("Vitamin D deficiency", relation, obj), evidence) is None


# ---------------------------------------------------------------------------------------------
# order
# ---------------------------------------------------------------------------------------------

CULTURES = "The patient was started on intravenous antibiotics after blood cultures had been taken."


def test_two_events_in_the_other_order_are_a_role_conflict() -> None:
    swapped = fact(
        "Blood cultures",
        "had been taken after",
        "the patient was started on intravenous antibiotics",
    )
    conflict = order_conflict(swapped, CULTURES)
    assert conflict is not None
    assert (conflict.kind, conflict.sentence, conflict.decided_by, conflict.label) == (
        "role",
        CULTURES,
        "role_conflict",
        "contradicted",
    )
    assert find_conflict(swapped, CULTURES) == conflict
    before = fact("The museum", "closed before", "the new wing opened")
    assert order_conflict(before, "The new wing opened before the museum closed.") is not None


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence"),
    [
        # as the evidence says it
        (
            "The patient",
            "was started on intravenous antibiotics after",
            "blood cultures had been taken",
            CULTURES,
        ),
        # the other word: "B before A" is "A after B"
        (
            "Blood cultures",
            "had been taken before",
            "the patient was started on intravenous antibiotics",
            CULTURES,
        ),
        # a negation in the evidence sentence
        (
            "Blood cultures",
            "had been taken after",
            "the patient was started on antibiotics",
            "The patient was not started on antibiotics after blood cultures had been taken.",
        ),
        # one side of one content word
        ("It", "closed after", "the storm", "The storm came after it closed."),
    ],
)
def test_order_check_is_silent_otherwise(
    subject: str, relation: str, obj: str, evidence: str
) -> None:
    assert order_conflict(fact(subject, relation, obj), evidence) is None


# ---------------------------------------------------------------------------------------------
# quantifier
# ---------------------------------------------------------------------------------------------

BRANCHES = (
    "Most of the 14 branches of Kestwick Savings Bank will stay open on Saturdays after the"
    " restructuring; only the two smallest will switch to weekday-only hours."
)


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence", "label"),
    [
        (
            "All of Kestwick Savings Bank's branches",
            "will keep",
            "their Saturday opening",
            BRANCHES,
            "contradicted",
        ),
        (
            "Every student",
            "passed",
            "the exam",
            "Half of the students passed the exam.",
            "contradicted",
        ),
        ("All students", "passed", "the exam", "A few students passed the exam.", "contradicted"),
        # "some" leaves room for all: the fact is not established, not denied
        (
            "Each patient",
            "received",
            "a placebo",
            "Some patients received a placebo.",
            "unverifiable",
        ),
    ],
)
def test_all_of_a_group_against_part_of_it_is_a_quantifier_conflict(
    subject: str, relation: str, obj: str, evidence: str, label: str
) -> None:
    conflict = quantifier_conflict(fact(subject, relation, obj), evidence)
    assert conflict is not None
    assert (conflict.kind, conflict.sentence, conflict.label, conflict.decided_by) == (
        "quantifier",
        evidence,
        label,
        "quantifier_conflict",
    )
    assert find_conflict(fact(subject, relation, obj), evidence) == conflict
    assert conflict.value == subject.split()[0]  # the universal is what is blamed


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence"),
    [
        ("Most students", "passed", "the exam", "Most students passed the exam."),  # no "all"
        # the evidence says it of all of them too
        (
            "All students",
            "passed",
            "the exam",
            "Most students live nearby. All students passed the exam.",
        ),
        # the part is said to do something else
        (
            "All students",
            "passed",
            "the exam",
            "Most students live on campus; they passed the exam.",
        ),
        ("All students", "passed", "the exam", "Not most students passed the exam."),
        ("All studies", "report", "uncertainty", "The most careful studies report uncertainty."),
        ("All students", "passed", "the exam", "At most ten students passed the exam."),
        ("All of them", "passed", "the exam", "Most of them passed the exam."),  # a pronoun
        ("All students", "did not pass", "the exam", "Most students passed the exam."),
    ],
)
def test_quantifier_check_is_silent_otherwise(
    subject: str, relation: str, obj: str, evidence: str
) -> None:
    negated = "not" in relation.split()
    assert quantifier_conflict(fact(subject, relation, obj, negated=negated), evidence) is None


# ---------------------------------------------------------------------------------------------
# antonym
# ---------------------------------------------------------------------------------------------

CABOURG = "Cabourg is the most stately of the old Channel resorts."
RETAIL = "Lean retailing itself implies a dramatic reduction in the amount of inventory held."


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence"),
    [
        ("Cabourg", "is", "least stately of old Channel resorts", CABOURG),
        ("Lean retailing", "implies", "dramatic increase in inventory", RETAIL),
        ("Men", "are buying", "food on the sidewalk", "Indian men selling food on the sidewalk."),
        (
            "The model temple complex",
            "is at",
            "the east end",
            "At the west end is a model of the whole temple complex.",
        ),
        # a negating prefix added or taken away
        ("This", "is", "an unofficial solution, Liq", "It is the official solution, Liq."),
        ("volume of business mail", "is", "known", "The volume of business mail is unknown."),
        ("The charity", "is", "a profit organisation", "The charity is a non-profit organisation."),
    ],
)
def test_one_word_swapped_for_its_opposite_is_an_antonym_conflict(
    subject: str, relation: str, obj: str, evidence: str
) -> None:
    conflict = antonym_conflict(fact(subject, relation, obj), evidence)
    assert conflict is not None
    assert (conflict.kind, conflict.sentence, conflict.label, conflict.decided_by) == (
        "antonym",
        evidence,
        "contradicted",
        "antonym_conflict",
    )
    assert find_conflict(fact(subject, relation, obj), evidence) == conflict


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence"),
    [
        ("Cabourg", "is", "most stately of old Channel resorts", CABOURG),  # as stated
        # a comparison the other way round with the opposite word is the same claim
        ("Oslo", "is", "less expensive than Bergen", "Bergen is more expensive than Oslo."),
        (
            "Cabourg",
            "is",
            "least stately of old Channel resorts",
            "Cabourg is not the most stately of the old Channel resorts.",
        ),
        # the opposite word belongs to another noun ("young boy", not "old man")
        ("old man", "was", "talking", "An elderly man talking to a young boy by a table."),
        # two words of the fact are not in the sentence
        ("Cabourg", "is", "least grand of old Channel resorts", CABOURG),
        ("Cabourg", "is", "least", CABOURG),  # too few words to align
        # a degree or a prefix cut off by the tokenizer is no opposite
        (
            "organizations",
            "used e-mail for",
            "non-sensitive information",
            "Organizations used e-mail for less sensitive information.",
        ),
        (
            "Tequila and tonic",
            "is",
            "non-standard drink",
            "Tequila and tonic is a non - standard drink.",
        ),
    ],
)
def test_antonym_check_is_silent_otherwise(
    subject: str, relation: str, obj: str, evidence: str
) -> None:
    assert antonym_conflict(fact(subject, relation, obj), evidence) is None


def test_the_antonym_conflict_names_the_swapped_word_as_written() -> None:
    conflict = antonym_conflict(
        fact("Cabourg", "is", "Least stately of old Channel resorts"), CABOURG
    )
    assert conflict is not None and conflict.value == "Least"
    retail = antonym_conflict(fact("Lean retailing", "implies", "dramatic increases"), RETAIL)
    assert retail is not None and retail.value == "increases"


def test_the_antonym_check_is_silent_when_the_answer_holds_both_words() -> None:
    """ "either all male or all female", split into two facts: the answer says both."""
    plants = fact("individual plants", "are", "all female")
    evidence = "The individual plants are all male dioecious."
    assert antonym_conflict(plants, evidence) is not None
    answer = "The individual plants are either all male or all female (dioecious)."
    assert antonym_conflict(plants, evidence, answer) is None


# ---------------------------------------------------------------------------------------------
# identity
# ---------------------------------------------------------------------------------------------

CAPITAL = "Paris is the capital of France. Lyon is its third-largest city."
STAFF = "The museum is run by the city council. Its director is Anna Berg; the curator is Tom Lind."


def spanned(answer: str, subject: str, relation: str, obj: str) -> Fact:
    """A fact whose parts are spans of ``answer`` (each part's first occurrence, the rules
    extractor's words: "capital of France" of "The capital of France")."""

    def part(text: str) -> list[Span]:
        words = text.split()
        at = answer.index(words[0])
        return [Span(at, answer.index(words[-1], at) + len(words[-1]))]

    return Fact(
        "f0", 0, subject, relation, obj, subject_spans=part(subject),
        relation_spans=part(relation), object_spans=part(obj),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("answer", "subject", "relation", "obj", "evidence", "sentence"),
    [
        # a name in the context for the role the answer gives another name, either order
        ("The capital of France is Lyon.", "capital of France", "is", "Lyon", CAPITAL, "Paris is the capital of France."),
        ("Lyon is the capital of France.", "Lyon", "is", "capital of France", CAPITAL, "Paris is the capital of France."),
        # the evidence's role in fewer words ("Its director"), its clause up to the semicolon
        ("The director of the museum is Tom Lind.", "director of museum", "is", "Tom Lind", STAFF, "Its director is Anna Berg"),
        # a possessive gives the role too, in the evidence as in the answer
        ("The city's mayor is Tom Lind.", "city's mayor", "is", "Tom Lind", "Its mayor is Anna Berg.", "Its mayor is Anna Berg."),
    ],
)  # fmt: skip
def test_another_name_for_the_same_definite_role_is_an_identity_conflict(
    answer: str, subject: str, relation: str, obj: str, evidence: str, sentence: str
) -> None:
    conflict = identity_conflict(spanned(answer, subject, relation, obj), evidence, answer)
    assert conflict is not None
    assert (conflict.kind, conflict.sentence, conflict.decided_by, conflict.label) == (
        "identity",
        sentence,
        "identity_conflict",
        "contradicted",
    )
    # find_conflict runs it only with the answer
    found = find_conflict(spanned(answer, subject, relation, obj), evidence, answer=answer)
    assert found == conflict
    assert find_conflict(spanned(answer, subject, relation, obj), evidence) is None


@pytest.mark.parametrize(
    ("answer", "subject", "relation", "obj", "evidence"),
    [
        # the evidence's name
        ("The capital of France is Paris.", "capital of France", "is", "Paris", CAPITAL),
        ("The director of the museum is Anna Berg.", "director of museum", "is", "Anna Berg", STAFF),
        # an indefinite role: many names can be a city in France
        ("Lyon is a city in France.", "Lyon", "is", "city in France", "Paris is the city in France with most visitors."),
        # the evidence holds the fact's name beside the role's noun
        ("The capital of France is Lyon.", "capital of France", "is", "Lyon", "Paris is the capital of France. Some say Lyon is the capital of France."),
        # ... even for another role (the check stays silent where it cannot be sure)
        ("The capital of France is Lyon.", "capital of France", "is", "Lyon", "Paris is the capital of France. Lyon is the capital of France's silk trade."),
        # the fact's name in the evidence's clause: a change of holder, not another holder
        ("The director is Tom Lind.", "director", "is", "Tom Lind", "The director is Anna Berg, until Tom Lind takes over in May."),
        # another tense: who was the director then is not who is now
        ("The director is Tom Lind.", "director", "is", "Tom Lind", "The director was Anna Berg."),
        # a role the evidence states with more words than the fact has
        ("The capital of France is Lyon.", "capital of France", "is", "Lyon", "Paris is the capital of the French fashion world."),
        # a shared word: the same person named shorter
        ("The author of Hamlet is Shakespeare.", "author of Hamlet", "is", "Shakespeare", "William Shakespeare is the author of Hamlet."),
        # not a bare "be"
        ("Lyon became the capital of France.", "Lyon", "became", "capital of France", CAPITAL),
        # the evidence's name with its accent written as a separate mark in the answer (the
        # context composes it): the same name, not another
        ("Pa\u0301ris is the capital of France.", "Pa\u0301ris", "is", "capital of France", "P\u00e1ris is the capital of France."),
        ("The capital of France is P\u00e1ris.", "capital of France", "is", "P\u00e1ris", "Pa\u0301ris is the capital of France."),
    ],
)  # fmt: skip
def test_identity_check_is_silent_otherwise(
    answer: str, subject: str, relation: str, obj: str, evidence: str
) -> None:
    assert identity_conflict(spanned(answer, subject, relation, obj), evidence, answer) is None


# ---------------------------------------------------------------------------------------------
# name role
# ---------------------------------------------------------------------------------------------

CONCERT = (
    "The season's opening concert will be conducted by Jonas Berg. Amara Quist will lead the choir."
)


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence", "sentence"),
    [
        (
            "The opening concert", "will be conducted by", "Amara Quist", CONCERT,
            "The season's opening concert will be conducted by Jonas Berg.",
        ),
        (
            "Galloway Biotech", "has named", "Martin Oyelaran",
            "Galloway Biotech has named Priya Shah as its new chief scientific officer. Martin "
            "Oyelaran, her predecessor, retires in May.",
            "Galloway Biotech has named Priya Shah as its new chief scientific officer.",
        ),
        (
            "The bridge", "was designed by", "Petra Vos",
            "The bridge was designed by the engineer Tomas Lind. Construction was led by Petra "
            "Vos, who later became the city's mayor.",
            "The bridge was designed by the engineer Tomas Lind.",
        ),
        # initials that are not the evidence's name's
        (
            "The plant", "is located in", "UK",
            "The plant is located in the Republic of Ireland near Cork.",
            "The plant is located in the Republic of Ireland near Cork.",
        ),
    ],
)  # fmt: skip
def test_another_name_in_the_relations_slot_is_a_name_role_conflict(
    subject: str, relation: str, obj: str, evidence: str, sentence: str
) -> None:
    conflict = name_role_conflict(fact(subject, relation, obj), evidence)
    assert conflict is not None
    assert (conflict.kind, conflict.sentence, conflict.value, conflict.label) == (
        "name_role",
        sentence,
        obj,
        "contradicted",
    )
    assert conflict.decided_by == "name_role_conflict"


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence"),
    [
        # the evidence's name
        ("The opening concert", "will be conducted by", "Jonas Berg", CONCERT),
        # the fact's name in the sentence that gives the relation (a list the slot cuts)
        ("The film", "starred", "Tom Hanks", "The film starred Meg Ryan, Tom Hanks and Bill Pullman."),
        # not a name
        ("The opening concert", "will be conducted by", "a guest conductor", CONCERT),
        ("The opening concert", "will be conducted by", "Jonas Berg 2", CONCERT),
        # the slot holds no name
        ("The opening concert", "will be conducted by", "Amara Quist", "The opening concert will be conducted by the orchestra's leader."),
        ("The opening concert", "will be conducted by", "Amara Quist", "The opening concert will be conducted by the choir of St Mary's."),
        # another subject gives the relation
        ("The closing concert", "will be conducted by", "Amara Quist", CONCERT),
        # another preposition: another slot
        ("Health", "composed the soundtrack by", "Tame Impala", "Health composed the soundtrack for Rockstar Games."),
        ("Health", "composed", "Tame Impala", "Health composed for Rockstar Games."),
        # negated
        ("The opening concert", "will not be conducted by", "Amara Quist", CONCERT),
        # a list of names that holds the evidence's: no name opening a longer object
        ("The film", "was produced by", "Lita Stantic and Pablo Trapero", "The film was produced by Pablo Trapero."),
        # the evidence's name written out, or its initials: one name
        ("The plant", "is located in", "UK", "The plant is located in the United Kingdom near Leeds."),
        ("The plant", "is located in", "U.K.", "The plant is located in the United Kingdom near Leeds."),
        ("The satellite", "was built by", "European Space Agency", "The satellite was built by ESA in 2004."),
    ],
)  # fmt: skip
def test_name_role_check_is_silent_otherwise(
    subject: str, relation: str, obj: str, evidence: str
) -> None:
    negated = "not" in relation.split()
    assert name_role_conflict(fact(subject, relation, obj, negated=negated), evidence) is None


# ---------------------------------------------------------------------------------------------
# agent
# ---------------------------------------------------------------------------------------------

GOAL = (
    "Carla Mendes scored the winning goal in the 88th minute. Her teammate Ana Ruiz was sent "
    "off earlier in the match."
)
WINGS = (
    "Greyfield Hospital opened a new cancer wing in May. Its neighbour, St Anne's Clinic, "
    "opened a maternity unit in June."
)


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence", "sentence", "label"),
    [
        # the fact's name elsewhere in the evidence, doing something else
        ("Ana Ruiz", "scored", "the winning goal", GOAL,
         "Carla Mendes scored the winning goal in the 88th minute.", "contradicted"),
        ("St Anne's Clinic", "opened", "a new cancer wing", WINGS,
         "Greyfield Hospital opened a new cancer wing in May.", "unverifiable"),
        # auxiliaries between the name and the relation; a kind of name shared
        ("Uppsala University", "has found", "the enzyme",
         "The team at Lund University has found the enzyme.",
         "The team at Lund University has found the enzyme.", "contradicted"),
        # the object's first chunk is compared (a coarse object of the tagger)
        ("Ana Ruiz", "scored", "the winning goal in the 88th minute", GOAL,
         "Carla Mendes scored the winning goal in the 88th minute.", "contradicted"),
        # one word that is no English word is a name at a sentence's start too
        ("Pfizer", "developed", "the vaccine", "Moderna developed the vaccine in 2020.",
         "Moderna developed the vaccine in 2020.", "contradicted"),
        # a name as the object is definite
        ("Vireo Labs", "acquired", "Quillmark",
         "In 2021 Tessel Systems acquired Quillmark for $40 million.",
         "In 2021 Tessel Systems acquired Quillmark for $40 million.", "contradicted"),
    ],
)  # fmt: skip
def test_another_name_before_the_relation_and_its_object_is_an_agent_conflict(
    subject: str, relation: str, obj: str, evidence: str, sentence: str, label: str
) -> None:
    conflict = agent_conflict(fact(subject, relation, obj), evidence)
    assert conflict is not None
    assert (conflict.kind, conflict.sentence, conflict.value, conflict.label) == (
        "agent",
        sentence,
        subject,
        label,
    )
    assert conflict.decided_by == "agent_conflict"
    assert find_conflict(fact(subject, relation, obj), evidence) == conflict


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence"),
    [
        # the evidence's agent
        ("Carla Mendes", "scored", "the winning goal", GOAL),
        # the fact's name in a sentence that gives the relation its object
        ("Jones", "won", "a gold medal", "Smith won a gold medal in the sprint, and Jones won a gold medal in the relay."),
        ("Pfizer", "developed", "the vaccine", "BioNTech developed the vaccine with its partner Pfizer."),
        # a passive: the name before the relation is not its agent
        ("Pfizer", "developed", "the vaccine", "The vaccine was developed by BioNTech."),
        # names that may be one: a shared word, initials, a shortening
        ("Mendes", "scored", "the winning goal", GOAL),
        ("William Gates", "founded", "Microsoft", "Bill Gates founded Microsoft with Paul Allen."),
        ("IBM", "bought", "the software firm", "International Business Machines bought the software firm in 2019."),
        ("The Fed", "raised", "interest rates", "The Federal Reserve raised interest rates in March."),
        # a pronoun or no name before the relation
        ("Ana Ruiz", "scored", "the winning goal", "She scored the winning goal in the 88th minute."),
        ("Ana Ruiz", "scored", "the winning goal", "The captain scored the winning goal."),
        ("Ana Ruiz", "scored", "the winning goal", "Mendes, the captain, scored the winning goal."),
        # an English word at a sentence's start is no name, the fact's or the evidence's
        ("Agriculture", "played", "a significant role", "Livestock played a significant role in the farmers' strategy."),
        ("Pfizer", "developed", "the vaccine", "Scientists developed the vaccine in 2020."),
        # another object
        ("St Anne's Clinic", "opened", "a maternity unit", "Greyfield Hospital opened a new cancer wing in May."),
        # the relation's verb is read, not a noun it holds ("Myers investigation" is no deed)
        ("The Department of Education", "is conducting an investigation", "open inquiry into the university", "Along with the O'Melveny & Myers investigation, there is an open inquiry into the university."),
        # not a name, not a direct object, negated, a refinement
        ("The clinic", "opened", "a new cancer wing", WINGS),
        ("Ana Ruiz", "scored in", "the 88th minute", GOAL),
        ("Ana Ruiz", "did not score", "the winning goal", GOAL),
    ],
)  # fmt: skip
def test_agent_check_is_silent_otherwise(
    subject: str, relation: str, obj: str, evidence: str
) -> None:
    negated = "not" in relation.split()
    assert agent_conflict(fact(subject, relation, obj, negated=negated), evidence) is None


CONCERT = (
    "The orchestra's principal conductor, Tobias Reinholt, will lead the opening concert. Guest"
    " conductor Amara Quist will direct the season's closing programme of Sibelius in June."
)
LEADS = "The orchestra's principal conductor, Tobias Reinholt, will lead the opening concert."


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence", "sentence", "blamed", "label"),
    [
        # a passive fact read in the active voice; a name subject is definite
        ("Jaws", "was directed by", "George Lucas", "Steven Spielberg directed Jaws in 1975.",
         "Steven Spielberg directed Jaws in 1975.", "George Lucas", "contradicted"),
        # the relation in other words ("conducted" / "lead"), the evidence's name in
        # apposition; without the answer, a subject without its article is not known definite
        ("opening concert of season", "will be conducted by", "Amara Quist", CONCERT, LEADS,
         "Amara Quist", "unverifiable"),
        # the active fact: the name in apposition, the relation in other words
        ("Amara Quist", "will lead", "the opening concert", CONCERT, LEADS, "Amara Quist",
         "contradicted"),
        ("Ana Ruiz", "headed", "the inquiry", "Carla Mendes led the inquiry into the club.",
         "Carla Mendes led the inquiry into the club.", "Ana Ruiz", "contradicted"),
    ],
)  # fmt: skip
def test_a_passive_fact_and_a_relation_in_other_words_are_read_by_the_agent_check(
    subject: str, relation: str, obj: str, evidence: str, sentence: str, blamed: str, label: str
) -> None:
    conflict = find_conflict(fact(subject, relation, obj), evidence)
    assert conflict is not None
    assert (conflict.kind, conflict.sentence, conflict.value, conflict.label) == (
        "agent",
        sentence,
        blamed,
        label,
    )


def test_a_passive_facts_subject_is_definite_by_the_answers_article() -> None:
    answer = "The opening concert of the season will be conducted by Amara Quist."
    concert = Fact(
        "f0",
        0,
        "opening concert of season",
        "will be conducted by",
        "Amara Quist",
        subject_spans=[Span(4, 19), Span(20, 22), Span(27, 33)],
        relation_spans=[Span(34, 54)],
        object_spans=[Span(55, 66)],
    )
    assert [answer[s.start : s.end] for s in concert.subject_spans] == [
        "opening concert",
        "of",
        "season",
    ]
    assert answer[55:66] == "Amara Quist"
    conflict = find_conflict(concert, CONCERT, answer=answer)
    assert conflict is not None
    assert (conflict.kind, conflict.value, conflict.label) == (
        "agent",
        "Amara Quist",
        "contradicted",
    )


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence"),
    [
        # the evidence's agent, in either voice
        ("Jaws", "was directed by", "Steven Spielberg", "Steven Spielberg directed Jaws in 1975."),
        ("Jaws", "was directed by", "Spielberg", "Steven Spielberg directed Jaws in 1975."),
        ("opening concert of season", "will be conducted by", "Tobias Reinholt", CONCERT),
        # the fact's name in a sentence that gives the relation its object
        ("Jaws", "was produced by", "George Lucas", "Steven Spielberg directed Jaws, and George Lucas produced Jaws."),
        # another relation, outside any group
        ("Jaws", "was produced by", "George Lucas", "Steven Spielberg directed Jaws in 1975."),
        # no participle and "by" after a form of "be"
        ("Jaws", "was made near", "Martha's Vineyard", "Steven Spielberg directed Jaws in 1975."),
    ],
)  # fmt: skip
def test_the_passive_agent_check_is_silent_otherwise(
    subject: str, relation: str, obj: str, evidence: str
) -> None:
    assert find_conflict(fact(subject, relation, obj), evidence) is None


def test_a_refinement_leaves_the_agent_to_its_root() -> None:
    refinement = Fact("f1", 0, "Ana Ruiz", "scored", "the winning goal", parent="f0")
    assert agent_conflict(refinement, GOAL) is None


# ---------------------------------------------------------------------------------------------
# relation in other words (value role, name role)
# ---------------------------------------------------------------------------------------------


def test_a_relation_in_other_words_is_read_by_the_value_and_name_role_checks() -> None:
    """ "named" for "appointed", "bought" for "acquired": the slot of the same relation."""
    appointed = (
        "Galloway Biotech has appointed Dr. Rana Haddad as its new chief scientific officer."
        " Haddad succeeds Martin Oyelaran, who is retiring."
    )
    conflict = name_role_conflict(
        fact("Galloway Biotech", "has named", "Martin Oyelaran"), appointed
    )
    assert conflict is not None
    assert (conflict.kind, conflict.value, conflict.sentence) == (
        "name_role",
        "Martin Oyelaran",
        "Galloway Biotech has appointed Dr. Rana Haddad as its new chief scientific officer.",
    )
    assert (
        name_role_conflict(fact("Galloway Biotech", "has named", "Rana Haddad"), appointed) is None
    )
    # the tagger's coarser object: the name that opens it fills the slot, and is blamed
    coarse = "Martin Oyelaran as its new chief scientific officer"
    opening = name_role_conflict(fact("Galloway Biotech", "has named", coarse), appointed)
    assert opening is not None and opening.value == "Martin Oyelaran"
    right = fact("Galloway Biotech", "has named", "Rana Haddad as its new chief scientific officer")
    assert name_role_conflict(right, appointed) is None
    acquired = "Norvik Group acquired Harlan Foods in 2019 for 40 million euros."
    other = name_role_conflict(fact("Norvik Group", "bought", "Telma Oy"), acquired)
    assert other is not None and (other.kind, other.value) == ("name_role", "Telma Oy")
    assert name_role_conflict(fact("Norvik Group", "bought", "Harlan Foods"), acquired) is None
    ended = "The strike at the depot ended on 17 March after talks."
    assert value_role_conflict(fact("The strike", "finished on", "20 March"), ended) is not None


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence"),
    [
        # verbs of direction are no group: one change said two ways
        ("Membership", "rose by", "60", "Membership grew from 180 to 240 over two years."),
        # another relation, not another word for it
        ("Galloway Biotech", "has named", "Martin Oyelaran", "Galloway Biotech has hired Rana Haddad as a consultant."),
        ("Norvik Group", "bought", "Telma Oy", "Norvik Group sold Harlan Foods in 2019."),
        ("The strike", "began on", "20 March", "The strike at the depot ended on 17 March after talks."),
    ],
)  # fmt: skip
def test_relations_outside_a_group_are_not_read_as_one(
    subject: str, relation: str, obj: str, evidence: str
) -> None:
    found = fact(subject, relation, obj)
    assert value_role_conflict(found, evidence) is None
    assert name_role_conflict(found, evidence) is None


# ---------------------------------------------------------------------------------------------
# duration
# ---------------------------------------------------------------------------------------------

SERVED = (
    "Dr. Selma Årdal served as director of the Kingsreach Observatory from 1996 until her"
    " retirement in 2014."
)
OBSERVATORY = SERVED + " During her tenure the observatory installed its 4-metre telescope."


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence", "sentence", "blamed"),
    [
        ("Årdal", "directed Kingsreach Observatory for", "22 years", OBSERVATORY, SERVED, "22 years"),
        # the tagger's coarser object
        ("Årdal", "directed", "the Kingsreach Observatory for 22 years", OBSERVATORY, SERVED, "22 years"),
        ("Marta Kis", "was mayor of Dunford for", "twelve years", "Marta Kis was mayor of Dunford between 2002 and 2010.", "Marta Kis was mayor of Dunford between 2002 and 2010.", "twelve years"),
        ("Tom Hale", "ran the company for", "25 years", "The company was run by Tom Hale from 1980 to 1995, and he later chaired its board.", "The company was run by Tom Hale from 1980 to 1995, and he later chaired its board.", "25 years"),
    ],
)  # fmt: skip
def test_a_length_of_time_the_evidences_dates_deny_is_a_duration_conflict(
    subject: str, relation: str, obj: str, evidence: str, sentence: str, blamed: str
) -> None:
    found = fact(subject, relation, obj)
    conflict = duration_conflict(found, evidence)
    assert conflict is not None
    assert (conflict.kind, conflict.value, conflict.label, conflict.decided_by) == (
        "duration",
        blamed,
        "contradicted",
        "duration_conflict",
    )
    assert conflict.sentence == sentence
    assert find_conflict(found, evidence) == conflict


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence"),
    [
        # the length the dates give, or a year off (whole years or counted inclusively)
        ("Årdal", "directed Kingsreach Observatory for", "18 years", OBSERVATORY),
        ("Årdal", "directed Kingsreach Observatory for", "19 years", OBSERVATORY),
        # a hedged length is left to the verifier
        ("Årdal", "directed Kingsreach Observatory for", "nearly 20 years", OBSERVATORY),
        ("Årdal", "directed Kingsreach Observatory for", "more than 20 years", OBSERVATORY),
        # months are not years
        ("Årdal", "directed Kingsreach Observatory for", "22 months", OBSERVATORY),
        # the evidence states the length itself
        ("Årdal", "directed Kingsreach Observatory for", "22 years", OBSERVATORY + " In all she worked there for 22 years."),
        # someone else's period
        ("Årdal", "directed Kingsreach Observatory for", "22 years", "Jonas Berg served as director of the Kingsreach Observatory from 1996 until 2014."),
        # two periods in the sentence
        ("Årdal", "directed Kingsreach Observatory for", "22 years", "Årdal directed the Kingsreach Observatory from 1990 to 1996 and from 2000 to 2014."),
        # a negation in the sentence
        ("Årdal", "directed Kingsreach Observatory for", "22 years", "Årdal did not direct the Kingsreach Observatory from 1996 until 2014."),
        # the fact negated
        ("Årdal", "did not direct Kingsreach Observatory for", "22 years", OBSERVATORY),
    ],
)  # fmt: skip
def test_duration_check_is_silent_otherwise(
    subject: str, relation: str, obj: str, evidence: str
) -> None:
    negated = "not" in relation.split()
    assert duration_conflict(fact(subject, relation, obj, negated=negated), evidence) is None


# ---------------------------------------------------------------------------------------------
# pairing: a value given the name the evidence pairs with another value
# ---------------------------------------------------------------------------------------------

SWELLING = (
    "Ankle swelling was reported by 11% of patients taking Luvadipine and by 2% of those taking"
    " Corvastin."
)
SALES = "Sales grew 8% in Europe and 5% in Asia."


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence", "blamed"),
    [
        # the tagger's coarse object holds the value and the name
        ("Ankle swelling", "was reported by", "11% of patients taking Corvastin", "The trial compared two drugs. " + SWELLING, "Corvastin"),
        # the rules' cut: the value in the relation
        ("Sales", "grew 8% in", "Asia", SALES, "Asia"),
        # the name before the value, tied by the same word ("by")
        ("Corvastin", "cut swelling by", "11%", "Luvadipine cut swelling by 11% and Corvastin by 2%.", "Corvastin"),
    ],
)  # fmt: skip
def test_a_value_given_the_name_the_evidence_pairs_with_another_is_a_pairing_conflict(
    subject: str, relation: str, obj: str, evidence: str, blamed: str
) -> None:
    found = fact(subject, relation, obj)
    conflict = pairing_conflict(found, evidence)
    assert conflict is not None
    assert (conflict.kind, conflict.value, conflict.label, conflict.decided_by) == (
        "pairing",
        blamed,
        "contradicted",
        "pairing_conflict",
    )
    # the sentence that pairs the value with another name
    assert conflict.sentence == (SWELLING if evidence.endswith(SWELLING) else evidence)
    assert find_conflict(found, evidence) == conflict


def test_the_rules_value_is_paired_with_the_name_the_answer_gives_it_next() -> None:
    # the rules cut "11% of patients" and "patients taking Corvastin" apart: the answer's
    # words right after the fact, up to a punctuation mark, give the value its name
    answer = "Ankle swelling was reported by 11% of patients taking Corvastin."
    cut = Fact(
        "f0.1", 0, "Ankle swelling", "was reported by", "11% of patients",
        subject_spans=[Span(0, 14)], relation_spans=[Span(15, 30)], object_spans=[Span(31, 46)],
    )  # fmt: skip
    assert answer[31:46] == "11% of patients"
    conflict = pairing_conflict(cut, SWELLING, answer)
    assert conflict is not None and (conflict.kind, conflict.value) == ("pairing", "Corvastin")
    assert find_conflict(cut, SWELLING, answer=answer) == conflict
    # without the answer the fact names no one; with the right name, no conflict
    assert pairing_conflict(cut, SWELLING) is None
    right = answer.replace("Corvastin", "Luvadipine")
    assert pairing_conflict(cut, SWELLING, right) is None
    # the continuation stops at a punctuation mark
    stopped = "Ankle swelling was reported by 11% of patients, unlike Corvastin."
    assert pairing_conflict(cut, SWELLING, stopped) is None


def test_a_name_after_the_article_that_opens_a_sentence_is_paired() -> None:
    # (the value-role check, which find_conflict runs first, sees this one too)
    evidence = "The Bellows Foundation received 60% of the grants and the Arden Trust received 40%."
    conflict = pairing_conflict(fact("The Arden Trust", "received", "60% of the grants"), evidence)
    assert conflict is not None and (conflict.kind, conflict.value) == ("pairing", "Arden Trust")


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence"),
    [
        # the pairs as the evidence gives them
        ("Sales", "grew 8% in", "Europe", SALES),
        ("Ankle swelling", "was reported by", "11% of patients taking Luvadipine", SWELLING),
        # the value paired with the fact's name in another sentence too
        ("Sales", "grew 8% in", "Asia", SALES + " In Asia, sales grew 8% in the second half."),
        # pairs that are not parallel: a shared name after a coordination
        ("He", "received bachelor's degree in 1967 from", "the University of Moscow", "He received a bachelor's degree in 1967 and a PhD in 1973 from the University of Moscow."),
        # another kind of value, two names, no name, a model's number, a negated fact
        ("Sales", "grew 8 points in", "Asia", SALES),
        ("Sales in Japan", "grew 8% in", "Asia", SALES),
        ("Sales", "grew", "8%", SALES),
        ("The AirPure 500", "costs", "300 euros", "The AirPure 300 costs 500 euros and the AirPure 500 costs 700 euros."),
        ("Sales", "did not grow 8% in", "Asia", SALES),
    ],
)  # fmt: skip
def test_pairing_check_is_silent_otherwise(
    subject: str, relation: str, obj: str, evidence: str
) -> None:
    negated = "not" in relation.split()
    assert pairing_conflict(fact(subject, relation, obj, negated=negated), evidence) is None


# ---------------------------------------------------------------------------------------------
# status: still to come against done
# ---------------------------------------------------------------------------------------------

REOPENED = (
    "The Tessaly Bridge, which had been closed since a flood damaged its piers in 2020, reopened"
    " to traffic last month."
)
TRIALS = "Sea trials are planned for next year, and the ship is due to enter service in 2026."
FRIGATE = "The frigate HMS Corrigan was launched at the Dunmere yard in April 2023. " + TRIALS


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence", "sentence", "blamed"),
    [
        # still to come in the fact, done in the evidence
        ("Tessaly Bridge", "is expected to reopen to", "traffic", REOPENED + " Repairs cost €8.3 million.", REOPENED, "expected to reopen"),
        ("council", "will approve", "budget", "The council approved the budget in March.", "The council approved the budget in March.", "approve"),
        ("Hanna Berg", "plans to open", "a bakery", "Hanna Berg has opened a bakery on Mill Street.", "Hanna Berg has opened a bakery on Mill Street.", "plans to open"),
        # done in the fact, still to come in the evidence: the verb's family, or the object
        ("council", "approved", "budget", "The council is expected to approve the budget in March.", "The council is expected to approve the budget in March.", "approved"),
        ("company", "has hired", "300 workers", "The company plans to hire 300 workers next year.", "The company plans to hire 300 workers next year.", "hired"),
        ("HMS Corrigan", "has completed", "its sea trials", FRIGATE, TRIALS, "completed"),
        ("Construction of stadium", "began in", "2025", "Construction of the stadium is scheduled to begin in 2025.", "Construction of the stadium is scheduled to begin in 2025.", "began"),
    ],
)  # fmt: skip
def test_an_event_done_in_one_and_still_to_come_in_the_other_is_a_status_conflict(
    subject: str, relation: str, obj: str, evidence: str, sentence: str, blamed: str
) -> None:
    found = fact(subject, relation, obj)
    conflict = status_conflict(found, evidence)
    assert conflict is not None
    assert (conflict.kind, conflict.value, conflict.label, conflict.decided_by) == (
        "status",
        blamed,
        "contradicted",
        "status_conflict",
    )
    assert conflict.sentence == sentence
    assert find_conflict(found, evidence) == conflict


@pytest.mark.parametrize(
    ("subject", "relation", "obj", "evidence"),
    [
        # stated as the fact states it
        ("Tessaly Bridge", "reopened to", "traffic", REOPENED),
        ("council", "is expected to approve", "budget", "The council is expected to approve the budget in March."),
        ("HMS Corrigan", "will begin", "its sea trials", FRIGATE),
        # the event done and another still to come
        ("company", "has hired", "200 workers", "The company hired 200 workers in 2023 and plans to hire 300 more next year."),
        ("HMS Corrigan", "has completed", "its sea trials", "HMS Corrigan completed its first sea trials in May. Further sea trials are planned for next year."),
        # done, in another sentence, in either order
        ("HMS Corrigan", "has completed", "its sea trials", FRIGATE + " Sea trials were completed in May."),
        # an expectation of the past, a modal, a negation before the past form
        ("trial", "finished in", "June", "The trial was expected to finish in May but finished in June."),
        ("Tessaly Bridge", "is expected to reopen to", "traffic", "The Tessaly Bridge could have reopened to traffic last month."),
        ("Tessaly Bridge", "is expected to reopen to", "traffic", "The Tessaly Bridge never reopened to traffic after the flood."),
        # someone else's event, another object
        ("council", "will approve", "budget", "The board approved the budget in March."),
        ("council", "will approve", "budget", "The council approved the housing plan in March."),
        # a present passive, and a participle before its agent, are no past event
        ("cost", "will be recorded as", "an outlay", "Under credit reform, the cost is recorded as an outlay when a loan is disbursed."),
        ("Palestrina", "will be performed in", "New York", "Palestrina, performed by the Royal Opera in New York."),
        # the future's own verb, not a participle after its object; a passive future against
        # a bare past form, which may be a participle too
        ("comments", "received before", "April 1997", "SSA will consider the comments received by April 1997."),
        ("additional items", "needed in", "the new facility", "There will be other items that will be needed in the new facility."),
        # the object still to come for another event than the fact's verb says took place
        ("Velde Quartet", "made", "its new album", "The Velde Quartet recorded its new album in February. The album is due for release in September."),
        ("Velde Quartet", "has completed", "its new album", "The Velde Quartet recorded its new album in February. The album is due for release in September."),
        # the object still to come, its subject named nowhere near
        ("HMS Corrigan", "has completed", "its sea trials", "Sea trials are planned for next year."),
        # no verb after the future's words ("is expected to be", "will")
        ("museum", "is expected to be", "busy", "The museum opened its doors to busy crowds."),
        ("museum", "will", "", "The museum opened in May."),
        # a word that only ends in -ed, and a negated fact
        ("farm", "will need", "water", "The farm need not buy water this year."),
        ("council", "has not approved", "budget", "The council is expected to approve the budget in March."),
    ],
)  # fmt: skip
def test_status_check_is_silent_otherwise(
    subject: str, relation: str, obj: str, evidence: str
) -> None:
    negated = "not" in relation.split()
    assert status_conflict(fact(subject, relation, obj, negated=negated), evidence) is None


# ---------------------------------------------------------------------------------------------
# a relation that holds more than its verb (the tagger's cut)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("relation", "obj", "expected"),
    [
        ("imports its battery cells from", "Velmora Electric", ("imports", "its battery cells from Velmora Electric")),
        ("is heavier than", "its predecessor", ("is", "heavier than its predecessor")),
        ("is heavier", "than its predecessor", ("is", "heavier than its predecessor")),
        ("has named Martin Oyelaran as", "its officer", ("has named", "Martin Oyelaran as its officer")),
        # nothing after the verb but a preposition, or nothing at all: cut so already
        ("was founded in", "1998", None),
        ("is", "heavier", None),
        ("did not win", "the cup", None),
        ("has fallen down", "", None),  # no object
    ],
)  # fmt: skip
def test_a_relation_is_cut_after_its_verb(
    relation: str, obj: str, expected: tuple[str, str] | None
) -> None:
    cut = _verb_and_rest(fact("S", relation, obj))
    assert (None if cut is None else (cut.relation, cut.object)) == expected


def test_the_checks_read_a_fact_whose_relation_holds_its_object() -> None:
    """The tagger's "imports its battery cells from | Velmora Electric" and "is heavier than |
    its predecessor" get the role and direction checks the rules' cut gets."""
    imports = (
        "Velmora Electric imports its battery cells from the Korean supplier Hansol Cells and"
        " assembles the packs at its plant in Grantham."
    )
    swapped = fact(
        "Hansol Cells", "imports its battery cells from", "Velmora Electric", source="encoder"
    )
    role = find_conflict(swapped, imports)
    assert role is not None and (role.kind, role.sentence) == ("role", imports)
    # the rules' facts come cut already and are not cut again
    assert find_conflict(replace(swapped, source="rules:verb"), imports) is None
    right = fact(
        "Velmora Electric", "imports its battery cells from", "Hansol Cells", source="encoder"
    )
    assert find_conflict(right, imports) is None
    lighter = "The Aldren 7 smartphone is lighter than its predecessor, weighing 171 grams."
    heavier = fact(
        "The Aldren 7 smartphone", "is heavier than", "its predecessor", source="encoder"
    )
    direction = find_conflict(heavier, lighter)
    assert direction is not None and direction.kind == "direction"
    same = fact("The Aldren 7 smartphone", "is lighter than", "its predecessor", source="encoder")
    assert find_conflict(same, lighter) is None
