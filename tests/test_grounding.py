"""The grounding check: number and date normalization, the context index, ground()."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest

from enoki_hd.types import Span
from enoki_hd.verify.grounding import (
    DateMention,
    GroundingIndex,
    GroundingResult,
    NumberMention,
    ground,
    is_plain_word,
    normalize_term,
    parse_dates,
    parse_numbers,
    restate_quantities,
    starts_sentence,
    verb_roots,
)

logger = logging.getLogger(__name__)


def _numbers(text: str) -> list[tuple[int, int, float, str, str]]:
    return [(m.span.start, m.span.end, m.value, m.kind, m.text) for m in parse_numbers(text)]


# ---------------------------------------------------------------------------------------------
# parse_numbers
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Formed in 1992.", [(10, 14, 1992.0, "year", "1992")]),
        ("Not one passenger was hurt.", [(4, 7, 1.0, "number", "one")]),
        ("In nineteen ninety-two they met.", [(3, 22, 1992.0, "year", "nineteen ninety-two")]),
        ("In nineteen ninety two.", [(3, 22, 1992.0, "year", "nineteen ninety two")]),
        ("a city of 1.9 million people", [(10, 21, 1_900_000.0, "number", "1.9 million")]),
        ("1,900,000 people", [(0, 9, 1_900_000.0, "number", "1,900,000")]),
        ("about 1.9m people", [(6, 10, 1_900_000.0, "number", "1.9m")]),
        ("two hundred and five members", [(0, 20, 205.0, "number", "two hundred and five")]),
        ("It rose 3.5% last year", [(8, 12, 3.5, "percent", "3.5%")]),
        ("It rose 3.5 percent", [(8, 19, 3.5, "percent", "3.5 percent")]),
        ("a deal worth $4 billion", [(13, 23, 4e9, "money", "$4 billion")]),
        ("worth 4 billion dollars", [(6, 23, 4e9, "money", "4 billion dollars")]),
        ("the 25th anniversary", [(4, 8, 25.0, "ordinal", "25th")]),
        ("the twenty-fifth anniversary", [(4, 16, 25.0, "ordinal", "twenty-fifth")]),
        ("a dozen eggs", [(0, 7, 12.0, "number", "a dozen")]),
        ("two dozen eggs", [(0, 9, 24.0, "number", "two dozen")]),
        ("a hundred and five", [(0, 18, 105.0, "number", "a hundred and five")]),
        ("in twenty twenty-one", [(3, 20, 2021.0, "year", "twenty twenty-one")]),
        ("12 albums and 7 EPs", [(0, 2, 12.0, "number", "12"), (14, 15, 7.0, "number", "7")]),
        ("twelve albums", [(0, 6, 12.0, "number", "twelve")]),
        (
            "10k runners ran 5km",
            [(0, 3, 10_000.0, "number", "10k"), (16, 19, 5.0, "number", "5km")],
        ),
        ("US$4bn", [(0, 6, 4e9, "money", "US$4bn")]),
        ("in mid-1992", [(7, 11, 1992.0, "year", "1992")]),
        ("12,000 is not a year", [(0, 6, 12_000.0, "number", "12,000")]),
        ("the second album", [(4, 10, 2.0, "ordinal", "second")]),
    ],
)
def test_parse_numbers(text: str, expected: list[tuple[int, int, float, str, str]]) -> None:
    assert _numbers(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "one of the best bands",  # a pronoun, not a count
        "No one was injured.",  # "nobody": no count either
        "COVID-19 spread",  # a name
        "version 3.5.2",  # not a number
        "in the 1990s",  # a decade: parse_dates
        "they march on",
        "",
    ],
)
def test_parse_numbers_skips(text: str) -> None:
    assert parse_numbers(text) == []


def test_parse_numbers_returns_mentions() -> None:
    (mention,) = parse_numbers("about 1.9m")
    assert mention == NumberMention(Span(6, 10), 1_900_000.0, "number", "1.9m")


def test_parse_numbers_rejects_non_str() -> None:
    with pytest.raises(TypeError, match="must be a str"):
        parse_numbers(b"1992")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# parse_dates
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("on 15 March 2021", [DateMention(Span(3, 16), 2021, 3, 15, "day", "15 March 2021")]),
        ("March 15, 2021 was", [DateMention(Span(0, 14), 2021, 3, 15, "day", "March 15, 2021")]),
        ("in March 2021", [DateMention(Span(3, 13), 2021, 3, None, "month", "March 2021")]),
        ("on 2021-03-15.", [DateMention(Span(3, 13), 2021, 3, 15, "day", "2021-03-15")]),
        (
            "at 2026-12-04T10:00Z",
            [DateMention(Span(3, 13), 2026, 12, 4, "day", "2026-12-04")],
        ),
        ("in the 1990s", [DateMention(Span(7, 12), 1990, None, None, "decade", "1990s")]),
        (
            "the 15th of March, 2021",
            [DateMention(Span(4, 23), 2021, 3, 15, "day", "15th of March, 2021")],
        ),
        ("Sept. 3, 1999", [DateMention(Span(0, 13), 1999, 9, 3, "day", "Sept. 3, 1999")]),
        ("on 4 June", [DateMention(Span(3, 9), None, 6, 4, "day", "4 June")]),
        ("we may 5 times", []),
        ("in 1992", []),
    ],
)
def test_parse_dates(text: str, expected: list[DateMention]) -> None:
    assert parse_dates(text) == expected


# ---------------------------------------------------------------------------------------------
# Words
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "term"),
    [
        ("Bands", "band"),
        ("band's", "band"),
        ("band’s", "band"),
        ("countries", "country"),
        ("churches", "church"),
        ("class", "class"),
        ("bus", "bus"),
        ("analysis", "analysis"),
        ("Gallagher", "gallagher"),
        # compatibility forms: a decomposed accent, PDF ligatures, full-width digits,
        # invisible characters of scraped text
        ("Cafe\u0301", "café"),
        ("\ufb01gures", "figure"),
        ("o\ufb03cial", "official"),
        ("１９９４", "1994"),
        ("Heidel\u00adberg", "heidelberg"),
        ("Heidel\u200bberg", "heidelberg"),
        # British spellings in their American form, so either grounds the other
        ("Colours", "color"),
        ("favourite", "favorite"),
        ("centres", "center"),
        ("centred", "centered"),
        ("organisation", "organization"),
        ("analysed", "analyzed"),
        ("travelled", "traveled"),
        ("counsellor", "counselor"),
        ("catalogue", "catalog"),
        ("defence", "defense"),
        ("paediatric", "pediatric"),
        ("oestrogen", "estrogen"),
        ("diarrhoea", "diarrhea"),
        ("grey", "gray"),
        ("programme", "program"),
        # words no rule may touch
        ("four", "four"),
        ("hours", "hour"),
        ("flour", "flour"),
        ("acre", "acre"),
        ("genre", "genre"),
        ("massacre", "massacre"),
        ("called", "called"),
        ("shoe", "shoe"),
        ("sacred", "sacred"),
        ("otherwise", "otherwise"),  # a stop word stays one
    ],
)
def test_normalize_term(word: str, term: str) -> None:
    assert normalize_term(word) == term
    assert normalize_term(term) == term  # a normalised word is its own normal form


@pytest.mark.parametrize(
    ("said", "context"),
    [
        ("the color of the city center", "the colour of the city centre"),
        ("the organisation analysed the catalogue", "the organization analyzed the catalog"),
        ("a pediatric clinic", "a paediatric clinic"),
        # a word hyphenated or written solid
        ("they co-operate by e-mail", "they cooperate by email"),
        ("a non-profit", "a nonprofit"),
        # a word abbreviated in a name or title
        ("Dr. Amara Quist of St. Louis", "Doctor Amara Quist of Saint Louis"),
        ("Mount Everest", "Mt. Everest"),
        ("Acme Corp. on Main Street", "Acme Corporation on Main St."),
    ],
)
def test_one_spelling_grounds_the_other(said: str, context: str) -> None:
    assert ground(said, context).status == "grounded"
    assert ground(context, said).status == "grounded"


@pytest.mark.parametrize(
    ("said", "context"),
    [
        ("the U.S. economy", "the US economy"),
        ("the US economy", "the U.S. economy"),
        ("the U.S. economy", "The economy of the United States grew."),
        ("the economy of the United States", "the U.S. economy"),
        ("United States troops", "US troops"),  # a name may start the answer's sentence
        ("The FDA approved it", "The Food and Drug Administration approved it"),
        ("The Food and Drug Administration approved it", "The FDA approved it"),
        ("NASA launched it", "the National Aeronautics and Space Administration launched it"),
        ("the NYC council", "the New York City Council"),
        ("in Washington, D.C.", "in Washington, DC"),
        # a well-known two-letter name inside a longer run of capitals
        ("the U.S. Navy", "He served in the United States Navy."),
        ("citizens of the US and Italy", "citizens of the United States and Italy"),
    ],
)
def test_an_acronym_grounds_its_name_and_the_name_its_acronym(said: str, context: str) -> None:
    assert (ground(said, context).status, ground(said, context).missing) == ("grounded", [])


def test_an_acronym_no_name_spells_is_missing() -> None:
    assert ground("the US", "the UK").missing == ["us"]  # "US" in capitals is no pronoun
    assert ground("the U.S.", "the U.K.").missing == ["us"]  # "U.S." is one word, not u and s
    assert ground("the United Kingdom", "the US").missing == ["united", "kingdom"]
    # two-letter initials of part of a longer name only for the well-known ones below
    assert ground("the NC office", "the New Castle County office").missing == ["nc"]
    # and only well-known ones ("US", "UK", "EU", "UN"): two initials fit too many names
    assert ground("the EF line", "the Empressa Ferrocarril line").missing == ["ef"]
    assert ground("the Empressa Ferrocarril", "the EF line").missing == ["empressa", "ferrocarril"]
    # a capital that starts a sentence is no part of the context's names
    assert ground("the TB unit", "Today Birmingham opened a unit.").missing == ["tb"]


# ---------------------------------------------------------------------------------------------
# ground
# ---------------------------------------------------------------------------------------------


def test_different_count_with_same_unit_is_a_mismatch() -> None:
    result = ground("The band released 12 albums", "The band released 7 albums")
    assert result == GroundingResult(
        "mismatch", pytest.approx(2 / 5), ["12"], [("12", "7")], 4, missing_names=["12"]
    )


def test_count_with_another_unit_is_no_mismatch() -> None:
    result = ground("The band released 12 albums", "The band had 7 members and released albums")
    assert result.status == "partial"
    assert result.mismatches == []
    assert result.missing == ["12"]


def test_different_year_is_a_mismatch() -> None:
    result = ground("formed in 1992", "formed in 1989")
    assert result.status == "mismatch"
    assert result.mismatches == [("1992", "1989")]
    assert result.score == pytest.approx(2 / 3)


def test_years_are_never_rounded() -> None:
    result = ground("formed around 1991", "The band was formed in 1992.")
    assert result.mismatches == [("1991", "1992")]


def test_spoken_year_grounds_digits() -> None:
    result = ground("founded in 1992", "It was founded in nineteen ninety-two")
    assert result == GroundingResult("grounded", 0.0, [], [], 2)


def test_a_verb_missing_from_the_evidence_is_missing() -> None:
    # Another verb is no form of it: "formed" does not match "founded".
    result = ground("formed in 1992", "It was founded in nineteen ninety-two")
    assert result == GroundingResult("partial", pytest.approx(1 / 3), ["formed"], [], 2)
    assert result.missing_names == []  # a common word names nothing


@pytest.mark.parametrize(
    ("word", "roots"),
    [
        ("walked", {"walk"}),
        ("walks", {"walk"}),
        ("carrying", {"carry"}),
        ("studies", {"study"}),
        ("stopped", {"stop"}),
        ("participated", {"participate"}),
        ("went", {"go"}),
        ("sang", {"sing"}),
        # no verb's form: a noun made from a verb, an adjective, a name, a word too short
        ("registration", set()),
        ("appearance", set()),
        ("station", {"station"}),  # a verb of its own, no form of "state"
        ("national", set()),
        ("Walked", set()),
        ("ran", set()),
    ],
)
def test_verb_roots(word: str, roots: set[str]) -> None:
    assert verb_roots(word) == roots


@pytest.mark.parametrize(
    ("text", "evidence"),
    [
        ("walked to the station", "She walks to the station every day."),
        (
            "Cape Verde participated in the games",
            "Cape Verde was the first to participate in the games.",
        ),
        ("the crowd was singing", "The crowd sang."),
        ("the prices rose", "The prices are rising."),
    ],
)
def test_another_form_of_a_verb_grounds_a_word(text: str, evidence: str) -> None:
    result = ground(text, evidence)
    assert (result.status, result.missing) == ("grounded", [])


def test_stop_words_whose_plural_ending_would_be_stripped_are_still_stop_words() -> None:
    """ "does", "always", "perhaps", "whereas" end like plurals: read as written, they are
    stop words, with nothing to ground; "Doe" is a name."""
    result = ground(
        "Javan does not always offer seating, whereas Doe perhaps does.", "Javan seating"
    )
    assert result.missing == ["offer", "doe"]


@pytest.mark.parametrize(
    ("text", "evidence", "missing"),
    [
        # a name is never read as a verb's form; a noun made from a verb is another word
        ("Rose Hill", "Prices were rising on the hill.", ["rose"]),
        ("the registration law", "the law on who must register", ["registration"]),
        ("the station", "as the report states", ["station"]),
        ("formed in 1992", "It was founded in 1992.", ["formed"]),
    ],
)
def test_words_that_are_no_form_of_the_evidences_verbs_stay_missing(
    text: str, evidence: str, missing: list[str]
) -> None:
    assert ground(text, evidence).missing == missing


def test_a_verbs_form_in_the_question_counts_as_found() -> None:
    index = GroundingIndex("The station is closed.", question="Who closes the station?")
    assert index.has_word_form("closing")
    assert not index.has_word_form("Closing")  # capitalised: read as a name
    assert not index.has_word_form("opening")
    assert ground("closing the station", index).status == "grounded"


def test_hedged_number_matches_within_two_percent() -> None:
    evidence = "Its population was 1,893,000 inhabitants."
    result = ground("a population of about 1.9 million", evidence)
    assert result == GroundingResult("grounded", 0.0, [], [], 2)


def test_unhedged_number_must_be_exact() -> None:
    evidence = "Its population was 1,893,000 inhabitants."
    result = ground("a population of 1.9 million", evidence)
    # No content word follows "1.9 million", so the evidence number is no rival: absent.
    assert result == GroundingResult(
        "absent", pytest.approx(2 / 3), ["1.9 million"], [], 2, missing_names=["1.9 million"]
    )


def test_hedge_does_not_cover_large_differences() -> None:
    result = ground("about 2.5 million inhabitants", "1,893,000 inhabitants")
    assert result.mismatches == [("2.5 million", "1,893,000")]


@pytest.mark.parametrize(
    ("text", "evidence"),
    [
        ("over 250 languages", "It has been translated into more than 300 languages."),
        ("at least 6 teams", "He pitched for 8 teams."),
        ("under 10% of voters", "Only 7% of voters backed it."),
        ("up to 40 employees", "The firm has 35 employees."),
    ],
)
def test_a_number_bounded_from_one_side_is_not_contradicted_on_that_side(
    text: str, evidence: str
) -> None:
    """ "over 250 languages" against "more than 300 languages" was a value conflict (250 ± 2%
    is not 300): no value on a bound's side contradicts it. Nor is the bound the context's
    number: it stays absent, unverifiable as a rounded guess is (annotators of span sets mark
    "over 100,000 visitors" wrong against "166,000 visitors")."""
    result = ground(text, evidence)
    assert result.mismatches == []
    assert result.status in ("absent", "partial") and result.missing


@pytest.mark.parametrize(
    ("text", "evidence", "mismatch"),
    [
        ("over 500 employees", "The company has 300 employees.", ("500", "300")),
        ("at least 10 teams", "He pitched for 8 teams.", ("10", "8")),
        ("under 5% of voters", "Only 7% of voters backed it.", ("5%", "7%")),
    ],
)
def test_a_number_bounded_from_one_side_conflicts_with_a_value_across_it(
    text: str, evidence: str, mismatch: tuple[str, str]
) -> None:
    assert ground(text, evidence).mismatches == [mismatch]


def test_a_hedge_before_a_delta_is_read_where_the_answer_writes_it() -> None:
    """A refinement's delta holds "250" without the "over" before it in the answer."""
    answer = "The book has been translated into over 250 languages."
    at = answer.index("250")

    def written(position: int) -> tuple[str, int]:
        return answer, at + position

    evidence = "It has been translated into more than 300 languages."
    assert ground("250", evidence).mismatches == [("250", "300")]
    assert ground("250", evidence, written=written).mismatches == []


def test_number_forms_ground_each_other() -> None:
    assert ground("$4 billion", "revenue of 4 billion dollars").status == "grounded"
    assert ground("1.9m", "1,900,000").status == "grounded"
    assert ground("two hundred and five", "205").status == "grounded"
    assert ground("the twenty-fifth", "the 25th").status == "grounded"
    assert ground("a dozen", "12").status == "grounded"


def test_percent_mismatch() -> None:
    result = ground("rose by 3.5%", "rose by 4.1%")
    assert result.mismatches == [("3.5%", "4.1%")]


def test_missing_names() -> None:
    result = ground("founded by Noel Gallagher", "The band was founded in Bath by Brett Anderson.")
    # founded (1) found; Noel and Gallagher (capitalised mid-sentence, 2 each) missing: 4 / 5.
    assert result == GroundingResult(
        "absent",
        pytest.approx(0.8),
        ["noel", "gallagher"],
        [],
        3,
        missing_names=["noel", "gallagher"],
    )


def test_a_capital_is_read_where_the_word_was_written() -> None:
    evidence = "The British forces were commanded by General William Howe."
    # judged in the text alone, a fact's first word is a sentence start: no name
    alone = ground("Robertson led the British forces", evidence)
    assert (alone.status, alone.missing_names) == ("partial", [])
    assert alone.score == pytest.approx(2 / 5)  # robertson 1, led 1, british 2, forces 1
    # cut from "… named Robertson led …" it is mid-sentence there: a name, weighed 2
    answer = "There was a commander named Robertson led the British forces."
    shift = answer.index("Robertson")
    cut = ground(
        "Robertson led the British forces", evidence, written=lambda at: (answer, at + shift)
    )
    assert (cut.status, cut.missing_names) == ("absent", ["robertson"])
    assert cut.score == pytest.approx(3 / 6)
    # and one that starts its sentence in the answer stays no name
    first = "Robertson led them."
    assert ground("Robertson led", evidence, written=lambda at: (first, at)).missing_names == []


def test_starts_sentence_skips_quotes_and_brackets() -> None:
    text = 'There was no commander named "Robertson". ("Howe") led: Clinton'
    assert starts_sentence(text, 0)
    assert not starts_sentence(text, text.index("Robertson"))
    assert starts_sentence(text, text.index("Howe"))
    assert starts_sentence(text, text.index("Clinton"))
    # Markdown emphasis, list markers and table cells start a line's words too
    table = "| Model | Weight |\n- **Fenwick** 14\n> Note"
    for word in ("Model", "Weight", "Fenwick", "Note"):
        assert starts_sentence(table, table.index(word)), word
    # a hyphen inside a word is no list marker
    assert not starts_sentence("the Anglo-Saxon kings", len("the Anglo-"))


def test_a_word_no_dictionary_knows_after_a_name_is_part_of_it() -> None:
    context = "Species of the genus Acraspis: Acraspis alaria, Acraspis quercushirta."
    # the epithet of "Acraspis cerasi" weighs as a name: found nowhere, it decides the fact
    wrong = ground("the species is Acraspis cerasi", context)
    assert (wrong.missing, wrong.missing_names) == (["cerasi"], ["cerasi"])
    assert ground("the species is Acraspis alaria", context).status == "grounded"
    # a dictionary word, or one of its inflections, after a name stays a common word
    common = ground("visited by Paris tourists", "Paris is big.")
    assert (common.missing, common.missing_names) == (["visited", "tourist"], [])
    # and an unknown word after no name is no name
    assert ground("the species cerasi", context).missing_names == []
    # the name before it is read where the word was written: a fact "species is cerasi" cut
    # from "… is Acraspis cerasi."
    answer = "The species is Acraspis cerasi."
    at = {0: 4, 8: 12, 11: answer.index("cerasi")}  # "species is cerasi" -> the answer

    def written(offset: int) -> tuple[str, int]:
        return answer, at[offset]

    assert ground("species is cerasi", context, written=written).missing_names == ["cerasi"]


def test_question_words_count_as_found() -> None:
    evidence = "The band was founded in Bath by Brett Anderson."
    question = "Was the band founded by Noel Gallagher?"
    assert ground("founded by Noel Gallagher", evidence, question=question).status == "grounded"
    index = GroundingIndex(evidence, question=question)
    assert ground("founded by Noel Gallagher", index).status == "grounded"


def test_question_is_never_evidence_of_a_mismatch() -> None:
    result = ground("formed in 1992", "The band was formed in Bath.", question="Formed in 1989?")
    assert result == GroundingResult(
        "absent", pytest.approx(2 / 3), ["1992"], [], 2, missing_names=["1992"]
    )


def test_scope_finds_units_elsewhere_in_the_context() -> None:
    window = "The band was founded in Bath."
    context = window + " Brett Anderson sang."
    text = "founded in Bath by Brett Anderson"
    alone = ground(text, window)
    assert alone.status == "absent"
    assert alone.missing == ["brett", "anderson"]
    assert ground(text, window, scope=GroundingIndex(context)).status == "grounded"


def test_scope_does_not_excuse_a_mismatch() -> None:
    scope = GroundingIndex("The band formed in 1989. In 1992 they toured.")
    result = ground("formed in 1992", "The band formed in 1989.", scope=scope)
    assert result.status == "mismatch"
    assert result.mismatches == [("1992", "1989")]


def test_dates() -> None:
    evidence = "It was released on 15 March 2021."
    assert ground("released in March 2021", evidence).status == "grounded"
    assert ground("released on March 15, 2021", evidence).status == "grounded"
    assert ground("released in 2021", evidence).status == "grounded"
    assert ground("released in the 2020s", evidence).status == "grounded"
    vaguer = ground("released on 15 March 2021", "It was released in March 2021.")
    assert vaguer == GroundingResult(
        "absent", pytest.approx(2 / 3), ["15 March 2021"], [], 2, missing_names=["15 March 2021"]
    )
    wrong = ground("released on 16 March 2021", evidence)
    assert wrong.mismatches == [("16 March 2021", "15 March 2021")]
    assert ground("in the 1980s", "in the 1990s").mismatches == [("1980s", "1990s")]


def test_the_month_of_a_date_is_a_word_the_context_writes() -> None:
    """A fact cut at the month ("born on April") finds the month in the context's "April 8";
    a month the context's dates do not name is still missing."""
    evidence = "The quintuplets were born in Houston on April 8."
    assert ground("born on April", evidence).status == "grounded"
    assert ground("born on June", evidence).missing == ["june"]


def test_a_month_the_context_writes_short_or_in_digits_is_found() -> None:
    """ "in November" is found in "Nov 14, 2018" and in "2018-11-14", as it is in "November";
    a month no date of the context names is still missing, and a swappable date names none."""
    assert ground("posted in November", "Posted: 9:36 PM, Nov 14, 2018").status == "grounded"
    assert ground("posted in November", "Posted: 2018-11-15 10:02").status == "grounded"
    assert ground("posted in October", "Posted: 9:36 PM, Nov 14, 2018").missing == ["october"]
    assert ground("posted in March", "Posted 3/5/2018.").missing == ["march"]


def test_a_day_without_its_year_is_found_when_the_text_states_the_year() -> None:
    """News pages give a date's year once: "on Election Day, November 2" under a 2004
    header finds "November 2, 2004" and "November 2004"; without 2004 anywhere they are
    absent, and another day or month is still a mismatch."""
    page = "Published 2004-10-19. The album hits stores on Election Day, November 2."
    assert ground("hits stores on November 2, 2004", page).status == "grounded"
    alone = "The album hits stores on Election Day, November 2."
    assert ground("hits stores on November 2, 2004", alone).missing == ["November 2, 2004"]
    assert ground("hits stores on November 2, 2005", page).missing == ["November 2, 2005"]
    # a month of that year: found in the day of that month written without its year
    assert ground("hits stores in November 2004", page).status == "grounded"
    assert ground("hits stores in December 2004", page).mismatches == [
        ("December 2004", "2004-10-19")
    ]
    assert ground("hits stores in November 2004", alone).missing == ["November 2004"]
    assert ground("hits stores on November 3, 2004", page).mismatches == [
        ("November 3, 2004", "2004-10-19")
    ]


def test_a_number_word_the_context_writes_as_a_word_is_found() -> None:
    """ "one" of "ranks as one of the most" is no count in the context, yet the same word; a
    number word the context states as another count is still a mismatch."""
    evidence = "The seat ranks as one of the most Republican districts."
    assert ground("seat ranks as one", evidence).status == "grounded"
    assert ground("sold four albums", "They sold 3 albums.").mismatches == [("four", "3")]


def test_digits_are_not_also_words() -> None:
    result = ground("12 albums", "albums")
    assert result.checked == 2
    assert result.missing == ["12"]


def test_hyphenated_words_match_their_parts() -> None:
    result = ground("state-of-the-art Bands' studios", "the state of the art band studio")
    assert result == GroundingResult("grounded", 0.0, [], [], 3)


@pytest.mark.parametrize("text", ["", "   ", "the of and", "!!", "’s"])
def test_text_without_units_is_empty(text: str) -> None:
    assert ground(text, "Some evidence.") == GroundingResult("empty", 0.0, [], [], 0)


def test_ground_rejects_bad_evidence() -> None:
    with pytest.raises(TypeError, match="evidence must be a str or a GroundingIndex"):
        ground("x", 3)  # type: ignore[arg-type]


def test_result_to_dict() -> None:
    result = ground("formed in 1992", "formed in 1989")
    assert result.to_dict() == {
        "status": "mismatch",
        "score": pytest.approx(2 / 3),
        "missing": ["1992"],
        "mismatches": [["1992", "1989"]],
        "checked": 2,
        "missing_names": ["1992"],
        "missing_spans": [{"start": 10, "end": 14}],
    }


def test_missing_spans_point_at_every_occurrence_in_the_text() -> None:
    text = "Noel Gallagher and noel formed Oasis in Manchester"
    result = ground(text, "Oasis formed in Manchester.")
    assert [text[s.start : s.end] for s in result.missing_spans] == ["Noel", "Gallagher", "noel"]


def test_one_megabyte_context_index() -> None:
    paragraph = (
        "Suede, an English rock band formed in Bath in 1992, released 7 albums. "
        "On 15 March 2021 about 1,893,000 people, roughly 3.5% of voters, paid $4 billion. "
        "Twenty-five members met in the 1990s with nineteen ninety-two delegates. "
    )
    context = paragraph * (1_000_000 // len(paragraph) + 1)
    started = time.perf_counter()
    index = GroundingIndex(context)
    logger.info("indexed %d chars in %.2f s", len(context), time.perf_counter() - started)
    assert len(context) >= 1_000_000
    assert {"suede", "band", "album", "delegate"} <= index.words
    assert ground("Suede released 7 albums in 1992", index).status == "grounded"
    assert ground("Suede released 12 albums", index).mismatches == [("12", "7")]


def test_an_index_scans_for_measures_names_and_numerals_only_when_a_fact_asks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Units, the initials of names and roman numerals of the context are scanned for on
    first use: a long context is most often asked for none of them, and each scan is
    milliseconds."""
    import enoki_hd.verify.grounding as grounding

    context = (
        "The National Aeronautics and Space Administration, under Louis XIV, ran 7 kilometres."
    )
    scans: list[str] = []
    for name in ("find_measures", "_name_initials", "_romans_after_names"):
        real = getattr(grounding, name)

        def counted(text: str, *args: Any, _real: Any = real, _name: str = name, **kw: Any) -> Any:
            if text == context:  # the hypothesis is analysed by the same functions
                scans.append(_name)
            return _real(text, *args, **kw)

        monkeypatch.setattr(grounding, name, counted)
    index = GroundingIndex(context)
    assert ground("The agency ran a race.", index).missing == ["agency", "race"]
    assert scans == []
    assert ground("The administration ran 7 km.", index).status == "grounded"
    assert scans == ["find_measures"]
    assert ground("NASA ran.", index).status == "grounded"
    assert ground("Louis the Fourteenth ran.", index).status == "grounded"
    assert ground("NASA ran 7 km under Louis the 14th.", index).status == "grounded"
    assert scans == ["find_measures", "_name_initials", "_romans_after_names"]


# ---------------------------------------------------------------------------------------------
# the same number in another unit of the same dimension
# ---------------------------------------------------------------------------------------------


def test_the_same_value_in_another_unit_is_a_mismatch() -> None:
    evidence = "The bypass will be 7 kilometres long and cut journeys by 15 minutes."
    result = ground("7 miles long", evidence)
    assert result.status == "mismatch"
    assert result.mismatches == [("7 mile", "7 kilometer")]
    assert result.missing == ["7", "mile"]
    dose = ground("20 milligrams of vitamin D", "The intake is 20 micrograms of vitamin D.")
    assert dose.mismatches == [("20 milligram", "20 microgram")]
    heat = ground("1,200 degrees Fahrenheit", "The kiln reaches 1,200 degrees Celsius.")
    assert heat.mismatches == [("1,200 fahrenheit", "1,200 celsius")]


def test_a_lower_case_g_after_a_number_is_grams() -> None:
    """ "10 g" against "10 mg" is a thousandfold dose error; an upper-case "G" is no unit."""
    assert ground("10 mg", "Take 10 g of the powder daily.").mismatches == [("10 mg", "10 g")]
    assert ground("10 g", "Take 10 mg of the powder daily.").mismatches == [("10 g", "10 mg")]
    assert ground("12g of protein", "Each bar has 12 grams of protein.").status == "grounded"
    assert ground("500 g", "Add 0.5 kg of flour.").status == "grounded"
    assert ground("5G networks", "It supports 5G and 4G networks.").status == "grounded"
    assert ground("5G networks", "It weighs 5 mg.").mismatches == []


def test_a_unit_conflict_needs_the_same_dimension_and_no_statement_in_the_unit() -> None:
    # another dimension: not the same quantity, only a missing word
    assert ground("7 miles long", "It is 7 kilograms heavy.").mismatches == []
    # the value is also stated in the fact's own unit: the fact may quote that statement
    both = "The route is 7 kilometres by road, or 7 miles by river."
    assert ground("7 miles", both).status == "grounded"
    # a count without a unit of measure is untouched
    assert ground("7 albums", "They released 7 singles.").mismatches == []
    # a hedged value matches within 2%, so its rival does too
    assert ground("about 100 km", "It is 101 miles long.").mismatches == [("100 km", "101 mile")]


def test_a_value_stated_only_with_units_of_another_dimension_is_not_found() -> None:
    """ "5 mg" where the evidence gives 5 only as "5 ml": the value is there, the quantity is
    not — the 5 is missing (and, being a number, weighs as a name), while the "mg" of
    another value does not ground it."""
    evidence = "Give 5 ml of the syrup twice a day. Each 5 ml dose contains 120 mg of paracetamol."
    dose = ground("a dose of 5 mg", evidence)
    assert dose.missing == ["5"] and dose.missing_names == ["5"]
    assert dose.missing_spans == [Span(10, 11)]
    assert ground("a dose of 5 ml", evidence).status == "grounded"
    # a bare mention of the value could be the fact's; so could one in the fact's dimension
    assert ground("a 5 km walk", "The walk takes 5 hours; 5 people finished.").missing == ["km"]
    assert ground("5 km", "It is 5 miles, or 5 hours on foot.").mismatches == [("5 km", "5 mile")]
    # a count or amount without a unit of measure is found as before
    assert ground("5 albums", "They released 5 singles.").missing == ["album"]


def test_the_same_amount_in_another_currency_is_a_mismatch() -> None:
    """ "40 million dollars" against "40 million euros": the number is there, the money is
    not. No exchange rate is applied, so only the same amount can conflict."""
    evidence = "Harlan Biotech raised 40 million euros in its Series B round."
    dollars = ground("Harlan Biotech raised 40 million dollars", evidence)
    assert dollars.status == "mismatch"
    assert dollars.mismatches == [("40 million dollars", "40 million euros")]
    assert dollars.missing_spans == [Span(22, 40)]
    assert ground("raised $40 million", evidence).mismatches == [
        ("$40 million", "40 million euros")
    ]
    # the same currency spelled another way, or stated in both currencies, is no conflict
    assert ground("raised EUR 40 million", evidence).status == "grounded"
    both = "It raised 40 million euros ($40 million at the time)."
    assert ground("raised $40 million", both).mismatches == []
    # an amount with no currency is no rival; another amount in another currency is a number
    # mismatch as before, not a currency one
    assert ground("Tickets cost 35 pounds", "Tickets cost 35 for adults.").mismatches == []
    other = ground("raised $43 million", evidence)
    assert other.mismatches == [("$43 million", "40 million euros")]


def test_the_question_can_state_the_unit() -> None:
    result = ground("7 miles", "The bypass is 7 kilometres long.", question="Is it 7 miles?")
    assert result.status == "grounded"
    assert result.mismatches == []


def test_names_of_one_unit_are_the_same_unit() -> None:
    """ "77 km" is "77 kilometres": abbreviations and spellings of one unit never conflict."""
    assert ground("77 km", "It is 77 kilometres long.").status == "grounded"
    assert ground("77 kilometers", "It is 77 km long.").mismatches == []
    assert ground("5 lbs", "It weighs 5 pounds.").mismatches == []
    assert ground("3 hrs", "It takes 3 hours.").mismatches == []
    assert ground("77 km", "It is 77 miles long.").mismatches == [("77 km", "77 mile")]


def test_sound_levels_frequencies_and_voltages_are_units() -> None:
    """ "dB" is "decibels", "kHz" is a thousand "Hz": one unit never conflicts with its
    other names, and another size of the same dimension is another value."""
    result = ground("at 44 dB and 38 dB", "38 decibels compared with 44 decibels")
    assert (result.status, result.missing) == ("grounded", [])
    assert ground("2.4 GHz", "a 2,400 MHz band").status == "grounded"
    assert ground("11 kV", "an 11,000 volt line").status == "grounded"
    assert ground("5 kHz", "a 5 MHz signal").mismatches == [("5 khz", "5 mhz")]
    assert ground("44 dB", "38 decibels").mismatches == [("44", "38 decibels")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a three-year slide", [(2, 7, 3.0)]),
        ("the twenty-five-year-old driver", [(4, 15, 25.0)]),
        ("Three-Year Plan", [(0, 5, 3.0)]),
        # no count: one, ordinals but before a superlative, rough counts, a count inside
        # other counts' words
        ("a one-sided game, first-class mail, second-hand cars, the first-ever", []),
        ("forty-odd people, twenty-something staff", []),
        ("a nine-to-five job", []),
    ],
)
def test_a_count_leading_a_hyphenated_compound(
    text: str, expected: list[tuple[int, int, float]]
) -> None:
    """ "three-year" holds the count three, as "3-year" holds 3."""
    found = [(m.span.start, m.span.end, m.value) for m in parse_numbers(text)]
    assert found == expected
    assert all(m.kind == "number" for m in parse_numbers(text))


def test_an_ordinal_before_a_superlative_is_a_rank() -> None:
    """ "second-largest" ranks second, as "second largest" does; the superlative is still a
    word to find."""
    found = parse_numbers("the second-largest city and its fifth-most-populous county")
    assert [(m.text, m.value, m.kind) for m in found] == [
        ("second", 2.0, "ordinal"),
        ("fifth", 5.0, "ordinal"),
    ]
    assert ground("the second-largest city", "the second largest city").status == "grounded"
    assert ground("the second largest city", "its second-largest city").status == "grounded"
    third = ground("the third-largest city", "the second-largest city")
    assert third.mismatches == [("third", "second")]
    # the rank is blamed whole: "third-largest", not "third"
    assert [span.text("the third-largest city") for span in third.missing_spans] == [
        "third-largest"
    ]
    smallest = ground("the second-largest city", "the second smallest city")
    assert (smallest.status, smallest.missing) == ("partial", ["largest"])


def test_words_hyphened_to_a_count_are_words_to_find() -> None:
    """The "hitter" of "3-hitter" is looked up; a unit's words ("old" of "10-year-old")
    describe the measure and are not."""
    assert ground("a three-hitter", "he pitched a 3-hitter").status == "grounded"
    assert ground("a 3-hitter", "a three-run homer").missing == ["hitter"]
    assert ground("a 10-year-old boy", "a boy, aged 10 years").status == "grounded"


def test_a_compound_count_grounds_and_conflicts_as_digits_do() -> None:
    evidence = "Following three years of declining attendance, it signed a 4-year lease."
    slide = ground("a three-year slide in attendance", evidence)
    assert (slide.status, slide.missing) == ("partial", ["slide"])
    assert ground("a three-year decline", "three years of decline").status == "grounded"
    assert ground("a 3-year decline", "a three-year decline").status == "grounded"
    lease = ground("a five-year lease", evidence)
    assert lease.status == "mismatch" and lease.mismatches == [("five", "4")]


@pytest.mark.parametrize(
    ("text", "evidence", "mismatch"),
    [
        # a unit hyphened to its number is its unit (it was lost, and both found alike)
        ("a 7-mile run", "a 7-kilometre run", ("7 mile", "7 kilometer")),
        ("a 5-km run", "a 5 mile run", ("5 km", "5 mile")),
        ("a 10-mg dose", "a 10 g dose", ("10 mg", "10 g")),
        ("a three-year contract", "a three-month contract", ("three year", "three month")),
        # a dose per day is not the dose per week (the number alone was found, and only the
        # word "day" was missing)
        ("10 mg per day", "a dose of 10 mg per week", ("10 mg per day", "10 mg per week")),
        ("4 hours a day", "at least 4 hours a week", ("4 hours a day", "4 hours a week")),
        ("5 mg/L", "above 5 mg/dL", ("5 mg/L", "5 mg/dL")),
    ],
)
def test_the_same_number_in_another_unit_or_rate_is_a_mismatch(
    text: str, evidence: str, mismatch: tuple[str, str]
) -> None:
    result = ground(text, evidence)
    assert result.status == "mismatch" and result.mismatches == [mismatch]


def test_a_rate_found_in_other_units_or_asked() -> None:
    assert ground("10 mg per day", "70 mg per week").status == "grounded"
    assert ground("60 km per hour", "at 60 km/h").status == "grounded"
    asked = ground("10 mg per day", "10 mg per week", question="Is it 10 mg per day?")
    assert asked.mismatches == []


def test_a_hyphened_unit_found_in_other_words() -> None:
    assert ground("a 3-year contract", "a 36-month contract").status == "grounded"
    # the noun after the compound is what it measures: 40 hours, not 40 weeks
    assert ground("a 40-hour week", "they work 40 hours a week").status == "grounded"
    # a scale word hyphened to its number scales it, as "$5 million" is scaled
    assert ground("a $5-million grant", "a $5m grant").status == "grounded"
    assert ground("a $5-million grant", "a $6m grant").mismatches == [("$5-million", "$6m")]
    assert ground("a 10-year-old boy", "the boy, aged 10 years").status == "grounded"
    assert ground("a 50-page report", "a report of 50 pages").status == "grounded"


def test_hyphenated_fractions_are_numbers() -> None:
    found = parse_numbers("nearly one-third of it, two-thirds of them, three-quarters, a third")
    assert [(m.text, round(m.value, 4), m.kind) for m in found] == [
        ("one-third", 0.3333, "number"),
        ("two-thirds", 0.6667, "number"),
        ("three-quarters", 0.75, "number"),
        ("third", 3.0, "ordinal"),  # "a third" stays what it was: it may be an ordinal
    ]
    # a fraction the context never states is a missing number (an absent name), not a word
    result = ground("nearly one-third", "Georgia is the third-largest producer.")
    assert result.missing_names == ["one-third"]
    assert ground("two-thirds of the route", "two-thirds of the planned route").status == (
        "grounded"
    )


# ---------------------------------------------------------------------------------------------
# digit grouping other than commas, decimal commas, ISO timestamps
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1\u00a0000\u00a0000", [(0, 9, 1_000_000.0, "number", "1\u00a0000\u00a0000")]),
        ("1\u202f000\u202f000", [(0, 9, 1_000_000.0, "number", "1\u202f000\u202f000")]),
        ("1\u2009000\u2009000", [(0, 9, 1_000_000.0, "number", "1\u2009000\u2009000")]),
        ("12\u00a0500 people", [(0, 6, 12_500.0, "number", "12\u00a0500")]),
        ("1,00,000 rupees", [(0, 15, 100_000.0, "money", "1,00,000 rupees")]),
        ("12,34,567", [(0, 9, 1_234_567.0, "number", "12,34,567")]),
        ("₹1,00,00,000", [(0, 12, 10_000_000.0, "money", "₹1,00,00,000")]),
        ("3,5 %", [(0, 5, 3.5, "percent", "3,5 %")]),
        ("3,5%", [(0, 4, 3.5, "percent", "3,5%")]),
        ("up 12,75 %", [(3, 10, 12.75, "percent", "12,75 %")]),
        ("€2,50", [(0, 5, 2.5, "money", "€2,50")]),
        ("1,5 million", [(0, 11, 1_500_000.0, "number", "1,5 million")]),
        ("2,5 kg", [(0, 3, 2.5, "number", "2,5")]),
        ("1,000 people", [(0, 5, 1000.0, "number", "1,000")]),  # a thousand, never 1.0
    ],
)
def test_parse_numbers_reads_digit_grouping_and_decimal_commas(
    text: str, expected: list[tuple[int, int, float, str, str]]
) -> None:
    assert _numbers(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1,2,3", []),  # a list, not a decimal
        ("pages 3,5", []),  # a bare decimal comma may list two things
        ("3,5th", []),
        # a plain space never groups digits
        (
            "1 000 000",
            [
                (0, 1, 1.0, "number", "1"),
                (2, 5, 0.0, "number", "000"),
                (6, 9, 0.0, "number", "000"),
            ],
        ),
        (
            "pins 100 200 300",
            [
                (5, 8, 100.0, "number", "100"),
                (9, 12, 200.0, "number", "200"),
                (13, 16, 300.0, "number", "300"),
            ],
        ),
        (
            "route 66 100 200",
            [
                (6, 8, 66.0, "number", "66"),
                (9, 12, 100.0, "number", "100"),
                (13, 16, 200.0, "number", "200"),
            ],
        ),
        (
            "in 2019 2 000 people",
            [
                (3, 7, 2019.0, "year", "2019"),
                (8, 9, 2.0, "number", "2"),
                (10, 13, 0.0, "number", "000"),
            ],
        ),
        (
            "555 123 4567",
            [
                (0, 3, 555.0, "number", "555"),
                (4, 7, 123.0, "number", "123"),
                (8, 12, 4567.0, "number", "4567"),
            ],
        ),
        (
            "12 34 567",
            [
                (0, 2, 12.0, "number", "12"),
                (3, 5, 34.0, "number", "34"),
                (6, 9, 567.0, "number", "567"),
            ],
        ),
        ("in 2019 200 people", [(3, 7, 2019.0, "year", "2019"), (8, 11, 200.0, "number", "200")]),
        # a fact's joined words: "range of 60 to 120 km" grounds as "range 60 120 km"
        ("range 60 120 km", [(6, 8, 60.0, "number", "60"), (9, 12, 120.0, "number", "120")]),
    ],
)
def test_digit_grouping_is_read_only_where_unambiguous(
    text: str, expected: list[tuple[int, int, float, str, str]]
) -> None:
    assert _numbers(text) == expected


def test_parse_numbers_reads_an_iso_timestamp_without_its_t_and_z() -> None:
    assert _numbers("2026-12-04T10:00Z") == [
        (0, 4, 2026.0, "year", "2026"),
        (5, 7, 12.0, "number", "12"),
        (8, 10, 4.0, "number", "04"),
        (11, 16, 600.0, "time", "10:00"),
    ]


@pytest.mark.parametrize(
    ("written", "other"),
    [
        ("1,000,000", "1\u00a0000\u00a0000"),
        ("1,000,000", "1\u202f000\u202f000"),
        ("1,000,000", "1\u2009000\u2009000"),
        ("100,000 rupees", "1,00,000 rupees"),
        ("3.5%", "3,5 %"),
        ("3.5%", "3,5%"),
    ],
)
def test_grouped_and_decimal_comma_numbers_ground_each_other(written: str, other: str) -> None:
    for text, evidence in ((written, other), (other, written)):
        result = ground(f"The city has {text} residents", f"The city has {evidence} residents.")
        assert result.status == "grounded", (text, evidence)


@pytest.mark.parametrize(
    ("text", "evidence"),
    [
        ("1,200,000", "1\u2009000\u2009000"),
        ("1\u00a0200\u00a0000", "1,000,000"),
        ("2,00,000 rupees", "100,000 rupees"),
        ("200,000 rupees", "1,00,000 rupees"),
        ("3,9 %", "3,5 %"),
        ("3.9%", "3,5 %"),
        ("3,9 %", "3.5%"),
    ],
)
def test_grouped_and_decimal_comma_numbers_that_differ_are_a_mismatch(
    text: str, evidence: str
) -> None:
    result = ground(f"It counts {text}", f"It counts {evidence}.")
    assert result.status == "mismatch"
    assert result.mismatches == [(text, evidence)]


def test_a_space_grouped_measure_keeps_its_precision() -> None:
    """ "1 000 000 g" (no-break spaces) is written to the gram, so "1,000.4 kg" is another
    mass."""
    assert ground("weighs 1\u00a0000\u00a0000 g", "It weighs 1,000 kg.").status == "grounded"
    assert ground("weighs 1\u00a0000\u00a0000 g", "It weighs 1,000.4 kg.").status == "mismatch"


def test_an_iso_timestamp_compares_its_day_and_hour() -> None:
    evidence = "The launch is at 2026-12-04T10:00Z."
    assert ground("launch at 2026-12-04T10:00Z", evidence).status == "grounded"
    assert ground("launch on 4 December 2026", evidence).status == "grounded"
    day = ground("launch at 2026-12-05T10:00Z", evidence)
    assert day.mismatches == [("2026-12-05", "2026-12-04")]
    hour = ground("launch at 2026-12-04T18:00Z", evidence)
    assert hour.mismatches == [("18:00", "10:00")]
    # the same as a clock time written alone
    assert ground("launch at 18:00", "The launch is at 10:00.").mismatches == [("18:00", "10:00")]


# ---------------------------------------------------------------------------------------------
# Values written other ways in RAG domains: signs, powers of ten, times, periods, ranges
# ---------------------------------------------------------------------------------------------


def test_a_minus_sign_or_minus_makes_a_number_negative() -> None:
    assert _numbers("It was −5 °C, a -3.2% fall, minus 5 degrees.") == [
        (7, 9, -5.0, "number", "−5"),
        (16, 21, -3.2, "percent", "-3.2%"),
        (28, 35, -5.0, "number", "minus 5"),
    ]
    # a dash after a word or digit is no sign: a score, a name, a range, arithmetic
    assert [m.value for m in parse_numbers("won 3-1, COVID-19, 10–12 mg, 10 minus 5")] == [
        3.0,
        1.0,
        10.0,
        12.0,
        10.0,
        5.0,
    ]


def test_a_sign_counts_for_temperatures_only() -> None:
    evidence = "The average January temperature is −5 °C."
    assert ground("The temperature is -5C.", evidence).status == "grounded"
    assert ground("The temperature is minus 5 degrees Celsius.", evidence).status == "grounded"
    assert ground("The temperature is 5 °C.", evidence).mismatches == [("5", "−5 °C")]
    # a fall said in words is the negative growth of the evidence
    assert ground("Revenue fell 5% last year.", "Revenue growth was -5%.").mismatches == []
    assert ground("Revenue growth was −3.2%.", "Revenue growth was -3.2%.").status == "grounded"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1.2e6 cells", 1_200_000.0),
        ("1.2E-03 g", 0.0012),
        ("1.2 × 10^6 cells", 1_200_000.0),
        ("1.2x10**6 cells", 1_200_000.0),
        ("1.2 × 10⁶ cells", 1_200_000.0),
        ("10^6 cells", 1_000_000.0),
    ],
)
def test_scientific_notation_is_one_number(text: str, value: float) -> None:
    [mention] = parse_numbers(text)
    assert (mention.value, mention.kind) == (pytest.approx(value), "number")
    assert mention.text == text.rsplit(" ", 1)[0]


def test_scientific_notation_grounds_by_value() -> None:
    evidence = "The sample contained 1.2e6 cells per mL."
    for said in ("1.2 × 10^6", "1,200,000", "1.2 million"):
        assert ground(f"It contained {said} cells per mL.", evidence).status == "grounded", said
    assert ground("It contained 1.2 × 10^5 cells per mL.", evidence).mismatches == [
        ("1.2 × 10^5", "1.2e6")
    ]


def test_and_a_half_adds_a_half() -> None:
    assert _numbers("two and a half hours, 2 and a half million") == [
        (0, 14, 2.5, "number", "two and a half"),
        (22, 42, 2_500_000.0, "number", "2 and a half million"),
    ]
    evidence = "The surgery lasted 150 minutes."
    assert ground("It lasted two and a half hours.", evidence).status == "grounded"
    assert ground("It lasted 2 and a half hours.", evidence).status == "grounded"
    # said to the half: "2 and a half hours" is no rounded "2 hours"
    assert ground("It lasted 2 and a half hours.", "It lasted 2 hours.").status == "mismatch"


def test_a_value_in_two_units_is_one_unit() -> None:
    evidence = "The match lasted 105 minutes."
    assert ground("The match lasted 1 hour 45 minutes.", evidence).status == "grounded"
    assert ground("It lasted 105 minutes.", "It lasted 1 hour and 45 minutes.").status == (
        "grounded"
    )
    assert ground("He is 5 feet 10 inches tall.", "He is 178 cm tall.").status == "grounded"
    wrong = ground("The match lasted 1 hour and 45 minutes.", "It lasted 95 minutes.")
    assert wrong.mismatches == [("1 hour and 45 minutes", "95 minutes")]


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("at 15:00", 900.0),
        ("at 3 p.m.", 900.0),
        ("at 3pm", 900.0),
        ("at 3:30 PM", 930.0),
        ("at 10.30am", 630.0),
        ("at 12 a.m.", 0.0),
        ("at 12 p.m.", 720.0),
        ("10:00 UTC", 600.0),
    ],
)
def test_times_of_day_are_minutes_after_midnight(text: str, minutes: float) -> None:
    [mention] = parse_numbers(text)
    assert (mention.value, mention.kind) == (minutes, "time")


def test_race_times_and_ratios_are_no_times_of_day() -> None:
    assert [m.kind for m in parse_numbers("ran 2:05:10, a 16:9 screen")] == ["number"] * 5
    for text in ("John 3:16", "Dilute it 1:20", "won in 2:01", "won 3:0", "lost 1:0"):
        assert [m.kind for m in parse_numbers(text)] == ["number"] * 2, text
    assert ground("Dilute it 1:20 before use.", "Mix 1 part in 20. Opens at 9:00.").status == (
        "partial"
    )
    assert ground("Dilute it 1:20 before use.", "Mix 1 part in 20. Opens at 9:00.").mismatches == []


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("10:00–22:00", [600.0, 1320.0]),
        ("open 17:0-22:0", [1020.0, 1320.0]),
        ("opens 9:00", [540.0]),
        ("from 9:00 until 17:00", [540.0, 1020.0]),
        ("at 10:00 GMT", [600.0]),
        ("10:00 hrs", [600.0]),
        ("2026-12-04T10:00Z", [600.0]),
    ],
)
def test_h_mm_is_a_time_of_day_only_with_a_cue(text: str, minutes: list[float]) -> None:
    assert [m.value for m in parse_numbers(text) if m.kind == "time"] == minutes


def test_a_one_digit_minute_is_a_time_only_in_a_range() -> None:
    assert [m.kind for m in parse_numbers("open 17:0")] == ["number", "number"]


def test_a_temperature_below_zero_in_words_is_negative() -> None:
    assert ground("It was -5 °C.", "It was 5 °C below zero.").status == "grounded"
    assert ground("It was -5 °C.", "It was five degrees below freezing.").mismatches == []
    assert ground("It was -40 °F.", "It was 40 °F below zero.").status == "grounded"
    assert ground("It was 5 °C below zero.", "It was -5 °C.").mismatches == []
    # the sign of a temperature still counts
    assert ground("It was -5 °C.", "It was 5 °C.").mismatches == [("-5", "5 °C")]
    assert ground("It was 5 °C.", "It was 5 °C below zero.").status == "mismatch"


def test_times_of_day_ground_by_value() -> None:
    evidence = "The market closes at 3 p.m. local time."
    assert ground("The market closes at 15:00.", evidence).status == "grounded"
    assert ground("The market closes at 3.", evidence).status == "grounded"
    assert ground("The market closes at 16:00.", evidence).mismatches == [("16:00", "3 p.m.")]
    # "3:00" without a.m. or p.m. may be either
    assert ground("It closes at 3:00.", "It closes at 15:00.").status == "grounded"
    assert ground("Open 9 a.m. to 6 p.m.", "Open from 9:00 to 17:00.").mismatches == [
        ("6 p.m.", "17:00")
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("in Q3 2024", (3, 10, 2024, 3, False, "quarter")),
        ("in Q3-2024", (3, 10, 2024, 3, False, "quarter")),
        ("in 2024 Q3", (3, 10, 2024, 3, False, "quarter")),
        ("in 3Q24", (3, 7, 2024, 3, False, "quarter")),
        ("in the third quarter of 2024", (7, 28, 2024, 3, False, "quarter")),
        ("in third-quarter 2024 results", (3, 21, 2024, 3, False, "quarter")),
        ("in Q3 FY24", (3, 10, 2024, 3, True, "quarter")),
        ("the fourth fiscal quarter", (4, 25, None, 4, True, "quarter")),
        ("in FY2023", (3, 9, 2023, None, True, "fiscal_year")),
        ("in FY23", (3, 7, 2023, None, True, "fiscal_year")),
        ("in fiscal year 2023", (3, 19, 2023, None, True, "fiscal_year")),
    ],
)
def test_parse_dates_reads_quarters_and_fiscal_years(
    text: str, expected: tuple[int, int, int | None, int | None, bool, str]
) -> None:
    [date] = parse_dates(text)
    assert (date.span.start, date.span.end, date.year, date.quarter, date.fiscal, date.kind) == (
        expected
    )


def test_two_year_ranges_and_quarter_finals_are_no_periods() -> None:
    assert parse_dates("FY2023-24 and the second quarter-final") == []


def test_quarters_and_fiscal_years_ground_by_value() -> None:
    evidence = "Revenue rose 8% in Q3 2024 and net income was $2.1 billion in FY2023."
    for said in ("the third quarter of 2024", "Q3", "fiscal year 2023", "August 2024"):
        assert ground(f"It rose in {said}.", evidence).mismatches == [], said
    assert ground("It rose in the third quarter of 2024.", evidence).status == "grounded"
    assert ground("It rose in Q4 2024.", evidence).mismatches == [("Q4 2024", "Q3 2024")]
    assert ground("It was $2.1 billion in FY2022.", evidence).mismatches == [("FY2022", "FY2023")]
    # a fiscal year need not be the calendar year: neither grounds nor contradicts it
    result = ground(
        "Net income was $2.1 billion in 2022.", "Net income was $2.1 billion in FY2023."
    )
    assert (result.status, result.missing) == ("partial", ["2022"])
    # a month lies in its calendar quarter, not the reverse
    assert ground("It rose in Q3 2024.", "It rose in August 2024.").status == "grounded"
    assert ground("It rose in Q3 2024.", "It rose in May 2024.").mismatches == []


@pytest.mark.parametrize(
    ("text", "year"),
    [
        ("the 19th century", 1800),
        ("a nineteenth-century castle", 1800),
        ("the twenty-first century", 2000),
    ],
)
def test_parse_dates_reads_centuries(text: str, year: int) -> None:
    [date] = parse_dates(text)
    assert (date.year, date.kind) == (year, "century")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("from the 5th century BC, in", "5th century BC"),
        ("the fifth century BCE.", "fifth century BCE"),
        ("in the 5th century B.C. and", "5th century B.C."),
    ],
)
def test_centuries_before_christ_count_back_from_zero(text: str, said: str) -> None:
    [date] = parse_dates(text)
    assert (date.text, date.year, date.kind) == (said, -500, "century")


def test_a_century_bc_is_whole_and_no_century_ad() -> None:
    # the whole "5th century BC" is the unit found or blamed, not "5th" and "BC" apart
    wrong = ground("from the 5th century BC", "Collage dates from the 16th century.")
    assert wrong.mismatches == [("5th century BC", "16th century")]
    assert wrong.missing_spans == [Span(9, 23)]
    assert ground("the 5th century BC", "Mosaics of the fifth century BC.").status == "grounded"
    assert ground("the 5th century BC", "Mosaics of the fifth century AD.").mismatches == [
        ("5th century BC", "fifth century")
    ]
    # years a text writes are positive: none falls inside a century BC
    assert ground("the 5th century BC", "Founded in 450.").status != "grounded"


def test_centuries_ground_by_value() -> None:
    assert ground("Built in the 19th century.", "It was built in the 1800s.").status == "grounded"
    assert ground("Built in the 19th century.", "It was built in 1852.").status == "grounded"
    assert ground("Built in the 17th century.", "Built in the 19th century.").mismatches == [
        ("17th century", "19th century")
    ]
    # a decade is no rival of a century: "the 1850s" is only not found in the 19th century
    assert ground("Built in the 1850s.", "Built in the 19th century.").mismatches == []


def test_the_1800s_and_the_2000s_are_decades_not_centuries() -> None:
    for text in ("the 1800s", "the 1900s", "the 2000s"):
        [date] = parse_dates(text)
        assert date.kind == "decade", text
    assert ground("the 2000s", "the 2010s").mismatches == [("2000s", "2010s")]
    assert ground("the 2010s", "the 2000s").mismatches == [("2010s", "2000s")]
    assert ground("Built in the 1800s.", "It was built in the 1850s.").mismatches == [
        ("1800s", "1850s")
    ]
    assert ground("Built in the 1850s.", "It was built in the 1800s.").mismatches == [
        ("1850s", "1800s")
    ]
    # a century is still read from its wording
    assert ground("Built in the 19th century.", "It was built in the 1850s.").status == ("grounded")


def test_numeric_dates_ground_either_way_round() -> None:
    [date] = parse_dates("signed on 3/5/1921")
    assert (date.year, date.month, date.day, date.swappable) == (1921, 3, 5, True)
    for evidence in ("It was signed on 5 March 1921.", "It was signed on 3 May 1921."):
        assert ground("Signed on 3/5/1921.", evidence).status == "grounded", evidence
    assert ground("Signed on 3/5/1921.", "It was signed on 4 May 1921.").mismatches == [
        ("3/5/1921", "4 May 1921")
    ]
    # a day above 12 settles the order; dots put the day first
    assert ground("Signed on 13/5/1921.", "Signed on 5 March 1921.").status == "mismatch"
    assert ground("Signed on 03.05.1921.", "Signed on 3 May 1921.").status == "grounded"


def test_the_short_end_of_a_two_year_range_is_a_year() -> None:
    assert _numbers("the 2018–19 season") == [
        (4, 8, 2018.0, "year", "2018"),
        (9, 11, 2019.0, "year", "19"),
    ]
    evidence = "Full implementation will take place over the 2018-2019 academic year."
    assert ground("It takes place during the 2018–19 academic year.", evidence).status == (
        "grounded"
    )
    # never a month ("2009-12") nor a day of an ISO date
    assert [m.kind for m in parse_numbers("2009-12 and 2021-03-15")] == [
        "year",
        "number",
        "year",
        "number",
        "number",
    ]


def test_rates_ground_in_any_unit() -> None:
    evidence = "The speed limit on the motorway is 120 km/h."
    for said in ("120 kilometres per hour", "75 mph", "75 miles an hour"):
        assert ground(f"The limit is {said}.", evidence).status == "grounded", said
    assert ground("The limit is 100 km/h.", "The limit is 75 miles per hour.").mismatches == [
        ("100", "75 miles per hour")
    ]
    assert ground("The dose is 10 mg per kg.", "The dose is 10 mg/kg.").status == "grounded"


def test_a_fraction_in_words_is_one_unit() -> None:
    result = ground("One in five adults has high blood pressure.", "20% of adults have it.")
    assert result.missing == ["high", "blood", "pressure"]
    assert ground("Nine in 10 adults have it.", "90% of adults have it.").status == "grounded"
    # a year is no whole: "3 in 2019" is a count and a year
    assert ground("He scored 3 in 2019.", "He scored 3 goals in 2019.").status == "grounded"


def test_roman_numerals_are_read_only_after_a_capitalised_word() -> None:
    assert ground("Send your CV today.", "the 105th form").missing == ["send", "cv", "today"]
    assert ground("the 105th form", "Send your CV today.").missing == ["105th", "form"]
    for word in ("MIX", "CIVIL", "DC", "MD", "LLC"):
        assert ground(f"Use the {word} form.", "Use the 9th form.").status != "grounded", word
    for name, ordinal in (
        ("Elizabeth II", "the second Elizabeth"),
        ("Rocky III", "the third Rocky"),
        ("World War II", "the Second World War"),
        ("Super Bowl LVII", "the 57th Super Bowl"),
        ("Louis XIV", "the fourteenth Louis"),
    ):
        assert ground(f"{name} is famous.", f"{ordinal} is famous.").status == "grounded", name
        assert ground(f"{ordinal} is famous.", f"{name} is famous.").status == "grounded", name


def test_roman_numerals_are_found_as_ordinals_never_compared() -> None:
    assert ground("World War II ended in 1945.", "The Second World War ended in 1945.").status == (
        "grounded"
    )
    assert ground("Henry the Eighth had six wives.", "Henry VIII had six wives.").status == (
        "grounded"
    )
    assert ground("Henry VIII had six wives.", "Henry VII had a son.").mismatches == []


def test_dates_and_times_are_restated_in_the_hypothesis_words() -> None:
    assert restate_quantities(
        "Revenue rose 8% in Q3 2024.", "Revenue rose 8% in the third quarter of 2024."
    ) == ("Revenue rose 8% in third quarter of 2024.")
    assert restate_quantities("It closes at 3 p.m.", "It closes at 15:00.") == (
        "It closes at 15:00."
    )
    assert restate_quantities("Built in the nineteenth century.", "Built in the 19th century.") == (
        "Built in the 19th century."
    )
    # another value stays as the premise writes it
    assert restate_quantities("It closes at 4 p.m.", "It closes at 15:00.") == "It closes at 4 p.m."


@pytest.mark.parametrize(
    ("word", "plain"),
    [
        ("Agriculture", True),
        ("Cars", True),  # an inflection of a lexicon word
        ("Jones", True),  # a lexicon word too: only its place can tell
        ("Pfizer", False),
        ("Okafor", False),
        ("Mendes", True),  # read as "mend" + "es": a one-word name may pass for a word
        ("NASA", False),  # an inner capital
        ("iPhone", False),
    ],
)
def test_a_plain_word_is_one_a_sentence_may_open_with(word: str, plain: bool) -> None:
    assert is_plain_word(word) is plain


# --- a table's declared scale --------------------------------------------------------------

SCALED_TABLE = (
    "Kellerby Hotels – summary results (all amounts in thousands of euros). Revenue: 48,300. "
    "Operating profit: 5,120. The board proposes no dividend for 2024."
)


def test_a_tables_figures_are_read_at_its_declared_scale() -> None:
    from enoki_hd.verify.grounding import ScaledNumber, scaled_numbers

    assert scaled_numbers(SCALED_TABLE) == [
        ScaledNumber(Span(80, 86), 48_300_000.0, "euro"),
        ScaledNumber(Span(106, 111), 5_120_000.0, "euro"),
    ]  # the year is no figure
    found = ground("Kellerby Hotels had revenue of about 48.3 million euros.", SCALED_TABLE)
    assert (found.status, found.missing) == ("grounded", [])
    wrong = ground("Kellerby Hotels had revenue of 48.3 billion euros.", SCALED_TABLE)
    assert wrong.missing_names == ["48.3 billion euros"]
    # without the declaration 48,300 is 48,300
    plain = SCALED_TABLE.replace(" (all amounts in thousands of euros)", "")
    assert scaled_numbers(plain) == []
    assert ground("Revenue was 48.3 million euros.", plain).missing_names == ["48.3 million euros"]


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("Net sales ($ in millions): 312.4", [(312_400_000.0, "dollar")]),
        ("Selected figures (in millions of dollars). Debt: 1,140.", [(1_140_000_000.0, "dollar")]),
        ("Visitors (in thousands) | 48,300 | 12% |", [(48_300_000.0, None)]),
        ("Figures are shown in billions. Output: 2.5", [(2_500_000_000.0, None)]),
        # prose that says "in millions" declares nothing
        ("The game sold in millions. Its price was 48,300.", []),
        ("Revenue (€ thousands) | 48,300 |", [(48_300_000.0, "euro")]),
        # a figure with a scale or unit of its own keeps it; a blank line ends the table
        ("(in thousands) Staff: 2.1 million; weight 5 kg\n\nRevenue 48,300", []),
        # a parenthesis that speaks of millions of something declares nothing
        ("Floods (millions of people were displaced) destroyed 300 homes.", []),
        # a second declaration ends the first's table; a figure's own currency wins
        (
            "(in thousands) Staff: 12 (in millions of dollars) Sales: 4",
            [(12e3, None), (4e6, "dollar")],
        ),
        ("(in millions of dollars) Sales: €4", [(4e6, "euro")]),
    ],
)
def test_what_a_declared_scale_multiplies(text: str, values: list) -> None:
    from enoki_hd.verify.grounding import scaled_numbers

    assert [(n.value, n.currency) for n in scaled_numbers(text)] == values


def test_a_scaled_figure_is_restated_in_the_hypothesis_words_of_its_currency_only() -> None:
    hypothesis = "Kellerby Hotels had revenue of about 48.3 million euros."
    assert restate_quantities(SCALED_TABLE, hypothesis) == SCALED_TABLE.replace(
        "Revenue: 48,300.", "Revenue: 48.3 million euros."
    )
    in_dollars = SCALED_TABLE.replace("of euros", "of dollars")
    assert restate_quantities(in_dollars, hypothesis) == in_dollars
    unnamed = SCALED_TABLE.replace(" of euros", "")
    assert restate_quantities(unnamed, hypothesis) == unnamed  # no currency declared
    assert restate_quantities(unnamed, "Revenue was 48.3 million.") == unnamed.replace(
        "48,300", "48.3 million"
    )
