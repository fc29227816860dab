"""Validation finds each kind of problem, with the right rows and values."""

from __future__ import annotations

import time

import pandas as pd
import pytest

from arxpy.errors import HierarchyError
from arxpy.hierarchy import Hierarchy, HierarchyProblem, check_hierarchy, validate_hierarchy

GOOD = Hierarchy([
    ("Male", "*"),
    ("Female", "*"),
])
AGES = Hierarchy([
    ("20", "20-29", "20-39", "*"),
    ("25", "20-29", "20-39", "*"),
    ("31", "30-39", "20-39", "*"),
    ("45", "40-49", "40-59", "*"),
])


def kinds(problems: list[HierarchyProblem]) -> list[str]:
    return [p.kind for p in problems]


def test_good_hierarchy_has_no_problems():
    assert validate_hierarchy(AGES, ["20", "45", "31", "20"], "age") == []
    check_hierarchy(AGES, pd.Series(["25", "31"]), "age")  # does not raise


def test_empty_hierarchy():
    for empty in (Hierarchy([]), Hierarchy([(), ()])):
        (problem,) = validate_hierarchy(empty, ["a"], "sex")
        assert problem.kind == "empty"
        assert "'sex'" in problem.message


def test_ragged_rows_are_named_with_counts():
    rows = [list(r) for r in AGES.rows] + [["50", "50-59", "*"], ["60", "*"], ["70", "60-79", "*"]]
    problems = validate_hierarchy(Hierarchy(rows))
    assert kinds(problems) == ["ragged", "ragged"]
    short, shorter = problems[1], problems[0]
    assert shorter.row == 6 and shorter.values == (6,)
    assert "row 6 has 2 values" in shorter.message and "4 rows have 4 values" in shorter.message
    assert short.row == 5 and short.values == (5, 7)
    assert "rows 5 and 7 have 3 values (levels 0 to 2)" in short.message


def test_ragged_tie_takes_longer_rows_as_intended():
    (problem,) = validate_hierarchy(Hierarchy([("a", "x", "*"), ("b", "*")]))
    assert problem.kind == "ragged" and problem.row == 2


def test_duplicate_original_values():
    rows = list(AGES.rows) + [("25", "20-29", "20-39", "*"), ("31", "30-39", "20-39", "*")]
    problems = validate_hierarchy(Hierarchy(rows))
    assert kinds(problems) == ["duplicate", "duplicate"]
    assert (problems[0].values, problems[0].row) == (("25",), 5)
    assert "'25' is listed in rows 2 and 5" in problems[0].message
    assert (problems[1].values, problems[1].row) == (("31",), 6)


def test_non_functional_names_value_level_and_both_targets():
    rows = list(AGES.rows) + [("29", "20-29", "20-49", "*")]
    (problem,) = validate_hierarchy(Hierarchy(rows), attribute="age")
    assert problem.kind == "non-functional"
    assert problem.row == 5
    assert problem.values == ("20-29", "20-39", "20-49")
    assert "'20-29' at level 1" in problem.message
    assert "'20-39' (row 1) and '20-49' (row 5)" in problem.message
    assert problem.message.startswith("The hierarchy of 'age'")


def test_duplicate_with_different_generalization_is_also_non_functional():
    rows = list(AGES.rows) + [("45", "40-44", "40-59", "*")]
    problems = validate_hierarchy(Hierarchy(rows))
    assert kinds(problems) == ["duplicate", "non-functional"]
    assert problems[1].values == ("45", "40-49", "40-44")
    assert problems[1].row == 5
    assert "'45' at level 0" in problems[1].message


def test_uncovered_values_are_listed_sorted():
    (problem,) = validate_hierarchy(GOOD, ["Male", "male", "", "Female", "?"], "sex")
    assert problem.kind == "uncovered"
    assert problem.values == ("", "?", "male")
    assert problem.row is None
    assert "3 values of the data are not in the hierarchy: '', '?' and 'male'" in problem.message


def test_uncovered_list_is_truncated_but_values_complete():
    data = (f"v{i:03d}" for i in range(45))  # a generator is fine too
    (problem,) = validate_hierarchy(GOOD, data)
    assert len(problem.values) == 45
    assert "'v019', ... and 25 more" in problem.message
    assert "'v020'" not in problem.message


def test_many_duplicates_are_summarized():
    rows = [(f"v{i}", "*") for i in range(30)] * 2
    problems = validate_hierarchy(Hierarchy(rows))
    assert kinds(problems) == ["duplicate"] * 21
    assert problems[-1].row is None and len(problems[-1].values) == 10
    assert "10 more values" in problems[-1].message


def test_check_raises_with_every_problem():
    rows = list(AGES.rows) + [("29", "20-29", "20-49", "*"), ("31", "30-39", "20-39", "*")]
    with pytest.raises(HierarchyError) as caught:
        check_hierarchy(Hierarchy(rows), ["20", "99"], "age")
    error = caught.value
    assert str(error).startswith("The hierarchy of 'age' has 3 problems")
    assert len(error.problems) == 3
    assert error.problems == [p.message for p in validate_hierarchy(Hierarchy(rows), ["99"], "age")]


def test_check_single_problem_message_is_the_problem():
    with pytest.raises(HierarchyError) as caught:
        check_hierarchy(GOOD, ["Other"], "sex")
    assert str(caught.value) == caught.value.problems[0]
    assert "'Other'" in str(caught.value)


def test_strings_differing_by_nul_characters_stay_distinct():
    # pandas hashing takes "" and "\x00" for equal; validation must not.
    hierarchy = Hierarchy([("", "a", "*"), ("\x00", "a\x00", "*"), ("b", "a", "*")])
    assert validate_hierarchy(hierarchy, ["\x00", ""]) == []
    (problem,) = validate_hierarchy(hierarchy, ["\x00\x00"])
    assert problem.values == ("\x00\x00",)


def test_problem_is_frozen():
    problem = HierarchyProblem("empty", "no rows")
    with pytest.raises(AttributeError):
        problem.kind = "ragged"  # type: ignore[misc]


def zip_hierarchy(n: int) -> Hierarchy:
    return Hierarchy(
        (f"{i:05d}", f"{i // 10:04d}*", f"{i // 100:03d}**", f"{i // 1000:02d}***", "*")
        for i in range(n)
    )


@pytest.mark.perf
def test_large_hierarchy_validates_quickly():
    hierarchy = zip_hierarchy(100_000)
    data = pd.Series([f"{i:05d}" for i in range(0, 100_000, 3)] * 3)
    started = time.perf_counter()
    assert validate_hierarchy(hierarchy, data) == []
    # Vectorized: about 0.3 s here; a per-row Python approach takes far longer.
    assert time.perf_counter() - started < 10


def test_large_hierarchy_problem_is_found():
    rows = list(zip_hierarchy(100_000).rows)
    rows[70_005] = ("70005", "7000*", "701**", "70***", "*")
    (problem,) = validate_hierarchy(Hierarchy(rows))
    assert problem.kind == "non-functional"
    assert problem.values == ("7000*", "700**", "701**")
    assert problem.row == 70_006
