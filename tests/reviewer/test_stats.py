"""Agreement statistics: every number on a hand-made run, kappa and alpha against reference
implementations, the review queue, the confusion-cell filters and the two pages."""

from __future__ import annotations

import re

import krippendorff
import numpy as np
import pytest
from django.urls import reverse
from sklearn.metrics import cohen_kappa_score

from reviewer import selectors, stats
from reviewer.models import Item, ReviewVerdict, Run
from reviewer.selectors import ItemFilters
from tests.factories import (
    EvaluationFactory,
    GradedItemFactory,
    ItemFactory,
    ReviewFactory,
    RunFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

HUMAN = Item.FinalSource.HUMAN


@pytest.fixture(autouse=True)
def _static_urls_without_manifest(settings) -> None:
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


def _row(run, row_number, *, scores, auto, final, human=False, **fields):
    """A graded row with one evaluation per evaluator: "correct", "incorrect", or a status."""
    item = GradedItemFactory(
        run=run,
        row_number=row_number,
        auto_verdict=auto,
        final_verdict=final,
        final_source=HUMAN if human else Item.FinalSource.AUTO,
        **fields,
    )
    for evaluator, score in scores.items():
        verdict = score if score in ("correct", "incorrect") else ""
        status = "ok" if verdict else score
        EvaluationFactory(item=item, evaluator=evaluator, status=status, verdict=verdict)
    return item


def _reason(code):
    return [{"code": code, "message": f"{code} message"}]


@pytest.fixture
def run():
    """Six graded rows and one waiting, evaluated by math_verify and exact.

    row  math_verify  exact      jury       final              type      reasons
    1    correct      correct    correct    correct            integer
    2    correct      incorrect  correct    incorrect (human)  fraction  evaluators_disagree
    3    incorrect    no_answer  incorrect  correct (human)    integer   truncated
    4    incorrect    incorrect  incorrect  incorrect          integer
    5    correct      timeout    correct    gold_wrong (human) fraction  string_fallback
    6    correct      correct    correct    correct (human)    integer   form_differs (not flagged)
    7    waiting to be graded
    """
    run = RunFactory(status=Run.Status.GRADING, evaluators=["math_verify", "exact"])
    both = {"math_verify": "correct", "exact": "correct"}
    _row(run, 1, scores=both, auto="correct", final="correct", subject="Algebra")
    _row(
        run,
        2,
        scores={"math_verify": "correct", "exact": "incorrect"},
        auto="correct",
        final="incorrect",
        human=True,
        answer_type="fraction",
        needs_review=True,
        evaluators_disagree=True,
        review_reasons=_reason("evaluators_disagree"),
        subject="Algebra",
    )
    _row(
        run,
        3,
        scores={"math_verify": "incorrect", "exact": "no_answer"},
        auto="incorrect",
        final="correct",
        human=True,
        needs_review=True,
        review_reasons=_reason("truncated"),
        subject="Geometry",
    )
    _row(
        run,
        4,
        scores={"math_verify": "incorrect", "exact": "incorrect"},
        auto="incorrect",
        final="incorrect",
        subject="Geometry",
    )
    _row(
        run,
        5,
        scores={"math_verify": "correct", "exact": "timeout"},
        auto="correct",
        final="gold_wrong",
        human=True,
        answer_type="fraction",
        needs_review=True,
        review_reasons=_reason("string_fallback"),
        subject="Geometry",
    )
    _row(
        run,
        6,
        scores=both,
        auto="correct",
        final="correct",
        human=True,
        review_reasons=_reason("form_differs"),
        subject="Algebra",
    )
    ItemFactory(run=run, row_number=7)
    return run


def _rows(run, **filters):
    items = selectors.item_filter(run=run, filters=ItemFilters(**filters))
    return [item.row_number for item in items]


# ---- every number of a hand-made run -------------------------------------------------------


def test_summary_counts_accuracy_before_and_after_review(run):
    # When the run's stats are computed
    summary = stats.run_stats(run=run).summary

    # Then the counts add up
    assert (summary.total, summary.graded, summary.pending) == (7, 6, 1)
    assert (summary.flagged, summary.evaluators_disagree, summary.reviewed) == (3, 1, 4)
    # and the jury called 4 of 6 correct, while after review 3 of the 5 rows with a
    # correct/incorrect verdict are correct (the gold-wrong row is left out)
    assert (summary.auto.value, summary.auto.n) == (pytest.approx(4 / 6), 6)
    assert (summary.final.value, summary.final.n) == (pytest.approx(3 / 5), 5)
    assert (summary.final_gold_wrong, summary.final_unclear) == (1, 0)
    # and on the 5 paired rows one went up and one went down: no difference
    assert (summary.difference.value, summary.difference.n) == (0, 5)
    assert summary.difference.low < 0 < summary.difference.high


def test_each_evaluator_scores_no_answer_as_zero_and_leaves_time_outs_out(run):
    accuracy = {e.evaluator: e for e in stats.run_stats(run=run).evaluator_accuracy}

    assert (accuracy["math_verify"].accuracy.value, accuracy["math_verify"].accuracy.n) == (
        pytest.approx(4 / 6),
        6,
    )
    assert (accuracy["exact"].accuracy.value, accuracy["exact"].accuracy.n) == (
        pytest.approx(2 / 5),
        5,
    )
    assert (accuracy["math_verify"].unknown, accuracy["exact"].unknown) == (0, 1)


def test_an_evaluator_is_scored_only_on_the_rows_it_applies_to_with_its_coverage():
    # Given a run of three numeric rows and one letter row, graded by answer_check (applies
    # to both), math_verify (numbers only) and choice (letters only)
    run = RunFactory(status=Run.Status.DONE, evaluators=["answer_check", "math_verify", "choice"])
    for number in range(1, 4):
        _row(
            run,
            number,
            scores={"answer_check": "correct", "math_verify": "correct", "choice": "no_answer"},
            auto="correct",
            final="correct",
        )
    _row(
        run,
        4,
        scores={"answer_check": "correct", "math_verify": "incorrect", "choice": "correct"},
        auto="correct",
        final="correct",
        answer_type="letter",
    )

    # When the stats are computed
    accuracy = {e.evaluator: e for e in stats.run_stats(run=run).evaluator_accuracy}

    # Then choice is right on the one row it applies to, not 1 of 4, and covers a quarter;
    # math_verify is right on its 3 numeric rows; answer_check covers every row
    assert (accuracy["choice"].accuracy.value, accuracy["choice"].accuracy.n) == (1.0, 1)
    assert accuracy["choice"].coverage == 0.25
    assert (accuracy["math_verify"].accuracy.value, accuracy["math_verify"].accuracy.n) == (1.0, 3)
    assert accuracy["math_verify"].coverage == 0.75
    assert (accuracy["answer_check"].applies, accuracy["answer_check"].coverage) == (4, 1.0)


def test_pairwise_agreement_between_evaluators_matches_sklearn(run):
    (pair,) = stats.run_stats(run=run).agreement

    # rows 1, 2, 3, 4 and 6 are scored by both (row 5 timed out for exact)
    math_verify = [1, 1, 0, 0, 1]
    exact = [1, 0, 0, 0, 1]
    assert (pair.a, pair.b, pair.n) == ("math_verify", "exact", 5)
    assert pair.agreement == pytest.approx(0.8)
    assert pair.kappa == pytest.approx(cohen_kappa_score(math_verify, exact))
    assert pair.kappa == pytest.approx((0.8 - 0.48) / 0.52)


def test_evaluators_against_humans_confusion_precision_recall_and_false_positives(run):
    humans = {h.evaluator: h for h in stats.run_stats(run=run).humans}

    # math_verify rewarded row 2, which a human marked incorrect: a false positive
    mv = humans["math_verify"]
    assert (mv.true_positive, mv.false_positive, mv.false_negative, mv.true_negative) == (
        1,
        1,
        1,
        0,
    )
    assert (mv.n, mv.left_out) == (3, 1)  # row 5: the human said the gold is wrong
    assert (mv.precision, mv.recall, mv.false_positive_rate) == (0.5, 0.5, 1.0)
    human_labels = [0, 1, 1]  # rows 2, 3, 6: incorrect, correct, correct
    assert mv.kappa == pytest.approx(cohen_kappa_score([1, 0, 1], human_labels))

    # exact found no answer on row 3 (scored 0) and rewarded nothing a human rejected
    ex = humans["exact"]
    assert (ex.true_positive, ex.false_positive, ex.false_negative, ex.true_negative) == (
        1,
        0,
        1,
        1,
    )
    assert (ex.precision, ex.recall, ex.false_positive_rate) == (1.0, 0.5, 0.0)
    assert ex.kappa == pytest.approx(cohen_kappa_score([0, 0, 1], human_labels))


def test_flags_by_reason_say_how_often_the_human_overturned_the_jury(run):
    reasons = {r.code: r for r in stats.run_stats(run=run).reasons}

    assert set(reasons) == {"evaluators_disagree", "truncated", "string_fallback", "form_differs"}
    disagree = reasons["evaluators_disagree"]
    assert (disagree.rows, disagree.flagged, disagree.share) == (1, 1, pytest.approx(1 / 6))
    assert (disagree.jury_overturned.value, disagree.jury_overturned.n) == (1.0, 1)
    assert reasons["string_fallback"].jury_overturned.n == 0  # gold wrong is not a verdict
    form = reasons["form_differs"]
    assert (form.rows, form.flagged, form.jury_overturned.value) == (1, 0, 0.0)


def test_breakdown_by_answer_type_with_each_evaluator(run):
    breakdown = stats.run_stats(run=run, breakdown="answer_type").breakdown
    rows = {row.value: row for row in breakdown.rows}

    integer, fraction = rows["integer"], rows["fraction"]
    assert (integer.rows, integer.flagged, integer.reviewed) == (4, 1, 2)
    assert (integer.auto.value, integer.final.value, integer.final.n) == (0.5, 0.75, 4)
    assert (integer.jury_overturned.value, integer.jury_overturned.n) == (0.5, 2)
    assert [e.value for e in integer.evaluators] == [0.5, 0.5]
    assert (fraction.rows, fraction.flagged, fraction.auto.value) == (2, 2, 1.0)
    assert (fraction.final.value, fraction.final.n) == (0.0, 1)
    assert [(e.value, e.n) for e in fraction.evaluators] == [(1.0, 2), (0.0, 1)]


def test_breakdown_by_a_metadata_column_and_by_reason(run):
    by_subject = stats.run_stats(run=run, breakdown="subject").breakdown
    assert {row.value: row.rows for row in by_subject.rows} == {"Algebra": 3, "Geometry": 3}

    by_reason = stats.run_stats(run=run, breakdown="reason").breakdown
    assert {row.value: row.rows for row in by_reason.rows} == {
        "evaluators_disagree": 1,
        "truncated": 1,
        "string_fallback": 1,
        "form_differs": 1,
    }


def test_breakdown_by_another_column_of_the_file():
    run = RunFactory(evaluators=["exact"])
    for row, level in enumerate(["Level 1", "Level 1", "Level 5"], start=1):
        _row(run, row, scores={"exact": "correct"}, auto="correct", final="correct")
        Item.objects.filter(run=run, row_number=row).update(extra={"level": level})

    breakdown = stats.run_stats(run=run, breakdown="extra:level").breakdown

    assert ("extra:level", "level") in breakdown.options
    assert {row.value: row.rows for row in breakdown.rows} == {"Level 1": 2, "Level 5": 1}


def test_an_unknown_breakdown_is_refused_with_the_choices(run):
    with pytest.raises(stats.UnknownBreakdownError, match="answer_type"):
        stats.run_stats(run=run, breakdown="extra:nope")


def test_stats_are_json_serialisable_for_the_api(run):
    import json

    data = json.loads(json.dumps(stats.run_stats(run=run).as_dict()))

    assert data["summary"]["final"]["n"] == 5
    assert data["agreement"][0]["a"] == "math_verify"


def test_a_new_review_is_counted_at_once(run, user):
    # Given the stats were computed
    assert stats.run_stats(run=run).summary.final.value == pytest.approx(3 / 5)

    # When a human overturns row 4
    from reviewer.services import item_review

    item_review(item=run.items.get(row_number=4), user=user, verdict="correct")

    # Then the next stats include it
    assert stats.run_stats(run=run).summary.final.value == pytest.approx(4 / 5)


# ---- the spot check and the review queue ---------------------------------------------------


def test_consensus_error_is_estimated_on_reviewed_spot_check_rows(run, settings):
    # Given every unflagged row is in the spot check (rows 1, 4 and 6)
    settings.MATHJURY_SPOT_CHECK_PERCENT = 100

    summary = stats.run_stats(run=run).summary

    # Then row 6, the one reviewed, confirmed the jury
    assert (summary.spot_check_percent, summary.spot_check_rows) == (100, 3)
    assert (summary.consensus_error.value, summary.consensus_error.n) == (0.0, 1)


def test_review_queue_puts_split_evaluators_then_flags_then_the_spot_check_first(settings):
    # Given rows in row order: plain, in the spot check, flagged, split
    settings.MATHJURY_SPOT_CHECK_PERCENT = 50
    run = RunFactory()
    items = [GradedItemFactory(run=run, row_number=n) for n in range(1, 21)]
    flagged = GradedItemFactory(run=run, row_number=21, needs_review=True)
    split = GradedItemFactory(run=run, row_number=22, needs_review=True, evaluators_disagree=True)
    spot_checked = [i.row_number for i in items if selectors.item_queue_rank(i) == 2]
    rest = [i.row_number for i in items if selectors.item_queue_rank(i) == 3]
    assert spot_checked and rest  # the hash splits twenty rows both ways at 50%

    # Then the default order is split, flagged, spot check, the rest; each by row
    assert _rows(run) == [split.row_number, flagged.row_number, *spot_checked, *rest]
    assert _rows(run, order="row") == list(range(1, 23))

    # and moving through the queue follows the same order
    item = run.items.get(row_number=spot_checked[-1])
    neighbours = selectors.item_neighbours(item=item, filters=ItemFilters())
    assert Item.objects.get(pk=neighbours.next_id).row_number == rest[0]


def test_spot_check_is_about_the_configured_share_and_stable(settings):
    settings.MATHJURY_SPOT_CHECK_PERCENT = 5
    run = RunFactory()
    GradedItemFactory.create_batch(400, run=run)

    first = set(Item.objects.filter(run=run).filter(selectors.spot_check()).values_list("pk"))

    assert 8 <= len(first) <= 35  # 5% of 400 is 20
    assert first == set(
        Item.objects.filter(run=run).filter(selectors.spot_check()).values_list("pk")
    )


# ---- the filters behind the confusion-matrix cells ------------------------------------------


def test_confusion_cell_filters_list_exactly_the_rows_of_the_cell(run):
    def cell(evaluator, said, human):
        return _rows(run, evaluator=evaluator, evaluator_verdict=said, human_verdict=human)

    assert cell("math_verify", "correct", "incorrect") == [2]
    assert cell("math_verify", "incorrect", "correct") == [3]
    assert cell("math_verify", "correct", "correct") == [6]
    # a missing answer counts as "incorrect"; a time-out is in no cell
    assert cell("exact", "incorrect", "correct") == [3]
    assert _rows(run, evaluator="exact", evaluator_verdict="correct") == [1, 6]
    assert _rows(run, human_verdict="gold_wrong") == [5]
    assert _rows(run, reason="truncated") == [3]


# ---- reference implementations and the bootstrap --------------------------------------------


def test_cohen_kappa_matches_sklearn_on_fixed_labels():
    first = [0, 1, 2, 2, 1, 0, 0, 3, 1, 2, 2, 0]
    second = [0, 1, 2, 1, 1, 0, 3, 3, 1, 2, 0, 0]
    table = np.zeros((4, 4), dtype=int)
    for a, b in zip(first, second, strict=True):
        table[a, b] += 1

    assert stats.cohen_kappa(table) == pytest.approx(cohen_kappa_score(first, second))


def test_cohen_kappa_is_undefined_when_both_raters_always_say_the_same():
    assert stats.cohen_kappa(np.array([[5, 0], [0, 0]])) is None
    assert stats.cohen_kappa(np.zeros((2, 2))) is None


def test_annotator_agreement_matches_krippendorff_and_sklearn():
    # Given three people reviewing the same rows (row 5 by one person only, and A changing
    # their mind on row 6: their newest verdict counts)
    run = RunFactory()
    a, b, c = UserFactory(username="ann"), UserFactory(username="bob"), UserFactory(username="cy")
    verdicts = {
        1: {a: ["correct"], b: ["correct"], c: ["correct"]},
        2: {a: ["correct"], b: ["incorrect"]},
        3: {a: ["incorrect"], b: ["incorrect"], c: ["unclear"]},
        4: {a: ["gold_wrong"], b: ["gold_wrong"]},
        5: {a: ["correct"]},
        6: {a: ["correct", "incorrect"], b: ["incorrect"], c: ["correct"]},
        7: {b: ["correct"], c: ["incorrect"]},
    }
    for row, by_person in verdicts.items():
        item = GradedItemFactory(run=run, row_number=row)
        for person, choices in by_person.items():
            for verdict in choices:
                ReviewFactory(item=item, annotator=person, verdict=verdict)

    # When their agreement is computed
    agreement = stats.run_stats(run=run).annotators

    # Then alpha is what the krippendorff package computes on the newest verdicts
    code = {verdict: index for index, verdict in enumerate(ReviewVerdict.values)}
    matrix = np.full((3, len(verdicts)), np.nan)
    for column, by_person in enumerate(verdicts.values()):
        for line, person in enumerate((a, b, c)):
            if person in by_person:
                matrix[line, column] = code[by_person[person][-1]]
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    assert agreement.units == 6
    assert agreement.alpha == pytest.approx(expected)

    # and each pair's kappa is sklearn's on the rows both reviewed
    pairs = {(pair.a, pair.b): pair for pair in agreement.pairs}
    assert set(pairs) == {("ann", "bob"), ("ann", "cy"), ("bob", "cy")}
    for first, second in ((a, b), (a, c), (b, c)):
        shared = [v for v in verdicts.values() if first in v and second in v]
        labels = ([v[first][-1] for v in shared], [v[second][-1] for v in shared])
        pair = pairs[first.username, second.username]
        assert pair.n == len(shared)
        assert pair.kappa == pytest.approx(cohen_kappa_score(*labels))


def test_krippendorff_alpha_is_undefined_when_everyone_always_agrees_on_one_value():
    assert stats.krippendorff_alpha(np.array([[4.0, 0.0], [0.0, 0.0]])) is None


def test_bootstrap_interval_surrounds_the_rate_and_is_stable():
    estimate = stats.proportion(80, 100)

    assert estimate.low < 0.8 < estimate.high
    # about 1.96 standard errors of sqrt(0.8 * 0.2 / 100) = 0.04 on each side
    assert 0.06 < estimate.high - 0.8 < 0.1 and 0.06 < 0.8 - estimate.low < 0.1
    assert stats.proportion(80, 100) == estimate
    assert stats.proportion(0, 0) == stats.Estimate(value=None, n=0)
    assert stats.proportion(10, 10).low == stats.proportion(10, 10).high == 1.0


def test_bootstrap_of_a_paired_difference_resamples_the_two_by_two_table():
    # 20 rows went from incorrect to correct, none the other way
    better = stats.paired_difference(both=50, before_only=0, after_only=20, neither=30)
    assert better.value == pytest.approx(0.2)
    assert 0.1 < better.low < 0.2 < better.high < 0.3

    # as many went each way: the interval holds zero
    even = stats.paired_difference(both=50, before_only=10, after_only=10, neither=30)
    assert even.value == 0 and even.low < 0 < even.high


# ---- comparing runs -----------------------------------------------------------------------


def _verdicts(run, verdicts: dict[str, str]):
    for row, (problem_id, verdict) in enumerate(verdicts.items(), start=1):
        GradedItemFactory(
            run=run, row_number=row, external_id=problem_id, auto_verdict=verdict,
            final_verdict=verdict,
        )  # fmt: skip


def test_comparing_two_runs_matches_rows_by_problem_id_and_lists_the_flips():
    # Given a model before and after, on mostly the same problems
    before, after = RunFactory(name="before"), RunFactory(name="after")
    _verdicts(before, {"p1": "correct", "p2": "correct", "p3": "incorrect", "p4": "incorrect",
                       "p5": "correct"})  # fmt: skip
    _verdicts(after, {"p1": "correct", "p2": "incorrect", "p3": "correct", "p4": "incorrect",
                      "p6": "correct"})  # fmt: skip

    comparison = stats.runs_compare(run_a=before, run_b=after)

    assert (comparison.accuracy_a.value, comparison.accuracy_b.value) == (0.6, 0.6)
    assert comparison.matched == 4
    assert (comparison.both_correct, comparison.both_incorrect) == (1, 1)
    assert (comparison.correct_to_incorrect, comparison.incorrect_to_correct) == (1, 1)
    assert (comparison.difference.value, comparison.difference.n) == (0, 4)
    assert (comparison.only_a, comparison.only_b) == (1, 1)
    p2_before, p2_after = (r.items.get(external_id="p2").pk for r in (before, after))
    assert [(f.key, f.verdict_a, f.verdict_b) for f in comparison.flips] == [
        ("p2", "correct", "incorrect"),
        ("p3", "incorrect", "correct"),
    ]
    assert (comparison.flips[0].item_a, comparison.flips[0].item_b) == (p2_before, p2_after)


def test_runs_without_problem_ids_are_matched_by_row_number():
    before, after = RunFactory(), RunFactory()
    _verdicts(before, {"": "correct"})
    _verdicts(after, {"": "incorrect"})

    comparison = stats.runs_compare(run_a=before, run_b=after)

    assert comparison.matched == 1
    assert [f.key for f in comparison.flips] == ["row 1"]


# ---- the pages ----------------------------------------------------------------------------


@pytest.fixture
def reviewer_client(client, user):
    client.force_login(user)
    return client


def test_stats_page_shows_the_figures_with_their_n(reviewer_client, run):
    response = reviewer_client.get(reverse("run_stats", args=[run.id]))

    body = response.content.decode()
    assert response.status_code == 200
    assert re.search(r'data-stat="auto">66\.7%<', body)
    assert re.search(r'data-stat="final">60\.0%<', body)
    assert "n 5" in body and "n 6" in body
    assert "<svg" in body and "κ 0.62" in body
    assert 'data-evaluator="math_verify"' in body


def test_a_confusion_cell_links_to_exactly_its_rows(reviewer_client, run):
    # Given the stats page
    body = reviewer_client.get(reverse("run_stats", args=[run.id])).content.decode()

    # When the "math_verify said correct, a human said incorrect" cell is followed
    panel = body[body.index('data-evaluator="math_verify"') :]
    link = re.search(r'href="([^"]+)" data-cell="correct-incorrect"[^>]*>(\d+)<', panel)
    url, count = link.group(1).replace("&amp;", "&"), int(link.group(2))
    listed = reviewer_client.get(url).content.decode()

    # Then the row list shows that one row and only it
    ids = re.findall(r'<tr class="[^"]*" data-item-id="(\d+)"', listed)
    assert count == 1
    assert ids == [str(run.items.get(row_number=2).pk)]


def test_stats_page_costs_eight_queries_and_four_while_the_run_is_unchanged(
    reviewer_client, run, django_assert_num_queries
):
    # session, user, run, the run's change count; then the file's columns, the items counted
    # by scores, verdicts and flags, the review reasons, and the people's verdicts
    url = reverse("run_stats", args=[run.id])
    with django_assert_num_queries(8):
        reviewer_client.get(url, {"by": "subject"})

    # Reloaded with nothing changed: the figures come from the cache
    with django_assert_num_queries(4):
        reviewer_client.get(url, {"by": "subject"})


@pytest.mark.parametrize("rows", [4, 40])
def test_stats_page_query_count_does_not_grow_with_rows(
    reviewer_client, django_assert_num_queries, rows
):
    # Given a run of `rows` rows, each evaluated three times, every other one reviewed by
    # two people and carrying a review reason
    run = RunFactory(evaluators=["math_verify", "exact", "flex"])
    people = UserFactory(username="ann"), UserFactory(username="bob")
    for row in range(1, rows + 1):
        item = _row(
            run,
            row,
            scores={"math_verify": "correct", "exact": "incorrect", "flex": "no_answer"},
            auto="correct",
            final="incorrect",
            human=row % 2 == 0,
            review_reasons=_reason("hedged"),
        )
        if row % 2 == 0:
            for person in people:
                ReviewFactory(item=item, annotator=person, verdict="incorrect")

    # Then the page costs the same eight queries, and its figures cover every row
    with django_assert_num_queries(8):
        response = reviewer_client.get(reverse("run_stats", args=[run.id]))
    assert response.context["stats"].summary.graded == rows
    assert response.context["stats"].annotators.units == rows // 2


def test_an_unknown_breakdown_falls_back_to_answer_type_with_a_message(reviewer_client, run):
    response = reviewer_client.get(reverse("run_stats", args=[run.id]), {"by": "extra:nope"})

    body = response.content.decode()
    assert response.status_code == 200
    assert "no column “extra:nope”" in body
    assert "Breakdown by answer type" in body


def test_compare_page_lists_flipped_rows_with_links(reviewer_client):
    before, after = RunFactory(name="before"), RunFactory(name="after")
    _verdicts(before, {"p1": "correct", "p2": "correct"})
    _verdicts(after, {"p1": "correct", "p2": "incorrect"})

    response = reviewer_client.get(reverse("runs_compare"), {"a": before.id, "b": after.id})

    body = response.content.decode()
    flipped = after.items.get(external_id="p2")
    assert re.search(r'data-stat="flips">1<', body)
    assert reverse("item_detail", args=[flipped.pk]) in body


def test_compare_page_without_runs_offers_the_choice(reviewer_client, run):
    response = reviewer_client.get(reverse("runs_compare"))

    assert response.status_code == 200
    assert f'<option value="{run.id}"' in response.content.decode()


@pytest.mark.parametrize("page", ["stats", "compare"])
def test_anonymous_visitors_are_sent_to_log_in(client, run, page):
    url = (
        reverse("run_stats", args=[run.id])
        if page == "stats"
        else f"{reverse('runs_compare')}?a={run.id}&b={run.id}"
    )

    response = client.get(url)

    assert response.status_code == 302
    assert response["Location"].startswith(f"{reverse('login')}?next=")


def test_a_run_the_user_cannot_see_is_not_found(reviewer_client, run):
    missing = Run.objects.order_by("-pk").first().pk + 1

    assert reviewer_client.get(reverse("run_stats", args=[missing])).status_code == 404
    compare = reviewer_client.get(reverse("runs_compare"), {"a": run.id, "b": missing})
    assert compare.status_code == 404


def test_an_inactive_user_is_not_let_in(client, run):
    user = UserFactory(is_active=False)
    client.force_login(user)

    response = client.get(reverse("run_stats", args=[run.id]))

    assert response.status_code == 302
