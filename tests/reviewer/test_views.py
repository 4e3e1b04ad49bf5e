"""The reviewer's pages as a browser without JavaScript, and as htmx, sees them."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from reviewer.models import Item, Review, Run
from tests.factories import (
    EvaluationFactory,
    GradedItemFactory,
    ItemFactory,
    ReviewFactory,
    RunFactory,
    UserFactory,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
HOSTILE = '</script><script>alert("pwned")</script><img src=x onerror=alert(1)>'
HTMX = {"HTTP_HX_REQUEST": "true"}

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _static_urls_without_manifest(settings) -> None:
    """Tests run with DEBUG off; static URLs must not need collectstatic's manifest."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture
def reviewer_client(client, user) -> Client:
    client.force_login(user)
    return client


def _htmx(target: str) -> dict[str, str]:
    return {**HTMX, "HTTP_HX_TARGET": target}


def _graded_run(**run_fields) -> Run:
    run = RunFactory(status=Run.Status.DONE, total_rows=3, **run_fields)
    GradedItemFactory(run=run, row_number=1, external_id="plain")
    GradedItemFactory(
        run=run,
        row_number=2,
        external_id="flagged",
        auto_verdict="incorrect",
        final_verdict="incorrect",
        needs_review=True,
        evaluators_disagree=True,
        review_reasons=[{"code": "evaluators_disagree", "message": "They disagree."}],
    )
    GradedItemFactory(run=run, row_number=3, external_id="other", answer_type="fraction")
    return run


# ---- login -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, args",
    [
        ("run_list", []),
        ("upload", []),
        ("run_detail", [1]),
        ("run_regrade", [1]),
        ("item_detail", [1]),
    ],
)
def test_every_page_sends_an_anonymous_visitor_to_the_login_page(client, name, args):
    # Given nobody is logged in
    url = reverse(name, args=args)

    # When they open a page
    response = client.get(url)

    # Then they are sent to log in, and come back afterwards
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={url}"


def test_admin_asks_anonymous_visitors_to_log_in(client):
    response = client.get("/admin/")
    assert response.status_code == 302
    assert "/login/" in response["Location"]


def test_health_check_answers_without_login(client):
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_logging_in_leads_to_the_run_list(client):
    # Given a user with a password
    UserFactory(username="bob")

    # When they log in on the login page
    response = client.post(
        reverse("login"),
        {"username": "bob", "password": "correct horse battery staple"},
        follow=True,
    )

    # Then they see the run list
    assert response.status_code == 200
    assert b"<h1>Runs</h1>" in response.content


# ---- run list and run page --------------------------------------------------------------


def test_run_list_shows_each_run_with_its_counts(reviewer_client):
    run = _graded_run(name="gsm8k sample")

    response = reviewer_client.get(reverse("run_list"))

    body = response.content.decode()
    assert reverse("run_detail", args=[run.id]) in body
    assert "gsm8k sample" in body
    assert run.project.name in body


def test_run_page_lists_flagged_rows_first_with_the_counts(reviewer_client):
    # Given a graded run with one flagged row in the middle
    run = _graded_run()

    # When the reviewer opens the run
    response = reviewer_client.get(reverse("run_detail", args=[run.id]))

    # Then the flagged row comes first and the counts add up
    body = response.content.decode()
    rows = re.findall(r'data-item-id="(\d+)"', body)
    flagged = Item.objects.get(run=run, external_id="flagged")
    assert rows[0] == str(flagged.id)
    assert len(rows) == 3
    assert re.search(r'data-count="flagged">1<', body)
    assert re.search(r'data-count="auto_correct">2<', body)
    assert re.search(r'data-count="final_accuracy">67%<', body)
    assert "every 2s" not in body  # a finished run is not polled


def test_run_table_shows_gold_and_prediction_to_render_and_reasons_in_words(
    reviewer_client, settings
):
    # Given a flagged row with a fraction gold and a prediction, and an unflagged row that
    # falls in the spot check (every unflagged row does at 100%)
    settings.MATHJURY_SPOT_CHECK_PERCENT = 100
    run = RunFactory(status=Run.Status.DONE, total_rows=2)
    flagged = GradedItemFactory(
        run=run,
        gold="0.5",
        needs_review=True,
        review_reasons=[{"code": "string_fallback", "message": "Only a string match."}],
    )
    EvaluationFactory(
        item=flagged, extracted="1/2", extracted_latex="\\frac{1}{2}", gold_latex="\\frac12"
    )
    sampled = GradedItemFactory(run=run)

    # When the reviewer opens the run
    body = reviewer_client.get(reverse("run_detail", args=[run.id])).content.decode()

    # Then the gold and the prediction are there to render, the reason in words with its
    # code and sentence on hover, and the unflagged row is labelled as the spot check
    row = body[body.index(f'data-item-id="{flagged.id}"') :].split("</tr>", 1)[0]
    assert 'data-cell="gold"><span class="math" data-latex="\\frac12">' in row
    assert 'data-cell="prediction"><span class="math" data-latex="\\frac{1}{2}">' in row
    assert (
        '<span class="badge flag" title="string_fallback: Only a string match." '
        'data-reason="string_fallback">string fallback</span>' in row
    )
    assert "data-spot-check" not in row
    spot_row = body[body.index(f'data-item-id="{sampled.id}"') :].split("</tr>", 1)[0]
    assert "data-spot-check>spot check</span>" in spot_row


def test_rows_not_yet_graded_poll_while_the_run_grades(reviewer_client):
    # Given a run being graded, one row saved already and one waiting
    run = RunFactory(status=Run.Status.GRADING, total_rows=2, grading_started_at=timezone.now())
    graded = GradedItemFactory(run=run, row_number=1, graded_at=timezone.now())
    waiting = ItemFactory(run=run, row_number=2)
    url = reverse("run_detail", args=[run.id])

    # When the table is loaded
    body = reviewer_client.get(url, **_htmx("items")).content.decode()

    # Then the saved row shows its verdict, the other says pending, and the table polls
    assert re.search(rf'data-item-id="{graded.id}" data-grade-state="graded"', body)
    assert re.search(rf'data-item-id="{waiting.id}" data-grade-state="pending"', body)
    assert 'hx-trigger="run-graded from:body, every 3s"' in body

    # When the waiting row is graded too, it shows on the next poll and polling stops
    Item.objects.filter(pk=waiting.pk).update(
        grade_state=Item.GradeState.GRADED, auto_verdict="incorrect"
    )
    body = reviewer_client.get(url, **_htmx("items")).content.decode()
    row = body[body.index(f'data-item-id="{waiting.id}"') :].split("</tr>", 1)[0]
    assert '<span class="badge incorrect">incorrect</span>' in row
    assert "every 3s" not in body


def test_filtering_by_htmx_returns_only_the_matching_table(reviewer_client):
    # Given a graded run
    run = _graded_run()

    # When the reviewer filters on answer type from the filter form
    response = reviewer_client.get(
        reverse("run_detail", args=[run.id]), {"answer_type": "fraction"}, **_htmx("items")
    )

    # Then only the table comes back, with the one matching row, and links keep the filter
    body = response.content.decode()
    assert "<html" not in body
    assert body.lstrip().startswith('<section id="items"')
    assert re.findall(r'data-item-id="(\d+)"', body) == [
        str(Item.objects.get(run=run, external_id="other").id)
    ]
    assert "?answer_type=fraction" in body
    assert response["Vary"].count("HX-Request") == 1


def test_text_search_finds_rows_by_their_output(reviewer_client):
    run = _graded_run()
    Item.objects.filter(run=run, external_id="other").update(output="a needle in the haystack")

    response = reviewer_client.get(reverse("run_detail", args=[run.id]), {"q": "needle"})

    assert re.findall(r'data-item-id="(\d+)"', response.content.decode()) == [
        str(Item.objects.get(run=run, external_id="other").id)
    ]


def test_progress_of_a_grading_run_is_polled_until_it_finishes(reviewer_client):
    # Given a run being graded: one row done, one waiting
    run = RunFactory(status=Run.Status.GRADING, total_rows=2, grading_started_at=timezone.now())
    GradedItemFactory(run=run, row_number=1, graded_at=timezone.now())
    ItemFactory(run=run, row_number=2)
    url = reverse("run_detail", args=[run.id])

    # When the page polls its summary
    polling = reviewer_client.get(url, **_htmx("summary"))

    # Then it shows how far grading is and asks to be polled again
    body = polling.content.decode()
    assert body.lstrip().startswith('<section id="summary"')
    assert 'max="2" value="1"' in body
    assert "1 / 2 graded" in body
    assert 'hx-trigger="every 2s"' in body
    assert "HX-Trigger" not in polling

    # When grading finishes
    Item.objects.filter(run=run).update(grade_state=Item.GradeState.GRADED)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.DONE)
    finished = reviewer_client.get(url, **_htmx("summary"))

    # Then polling stops and the table is told to reload
    assert "every 2s" not in finished.content.decode()
    assert json.loads(finished["HX-Trigger"]) == {"run-graded": {}}


def test_run_page_warns_when_rows_wait_with_no_worker(reviewer_client):
    # Given rows queued two minutes ago and nothing graded since
    queued = timezone.now() - timedelta(minutes=2)
    run = RunFactory(status=Run.Status.QUEUED, total_rows=1, grading_queued_at=queued)
    Run.objects.filter(pk=run.pk).update(created_at=queued)
    ItemFactory(run=run)

    response = reviewer_client.get(reverse("run_detail", args=[run.id]))

    assert "no worker has picked them up" in response.content.decode()


def test_regrading_keeps_human_reviews(reviewer_client, user):
    # Given a run with a human review
    run = _graded_run()
    item = Item.objects.get(run=run, external_id="flagged")
    ReviewFactory(item=item, verdict="correct")
    Item.objects.filter(pk=item.pk).update(final_verdict="correct", final_source="human")

    # When the reviewer re-grades it with another evaluator set
    response = reviewer_client.post(
        reverse("run_regrade", args=[run.id]), {"evaluators": ["exact"]}, follow=True
    )

    # Then the run is queued with the new evaluators and the review still decides the row
    run.refresh_from_db()
    item.refresh_from_db()
    assert run.evaluators == ["exact"]
    assert run.status == Run.Status.QUEUED
    assert (item.final_verdict, item.final_source) == ("correct", "human")
    assert "Human reviews are kept" in response.content.decode()


# ---- item page --------------------------------------------------------------------------


def test_item_page_shows_the_row_the_evaluators_and_why_it_needs_review(reviewer_client):
    # Given a flagged row with two evaluations and a review
    item = GradedItemFactory(
        problem="Simplify 2/4.",
        gold="\\frac{1}{2}",
        output="Dividing both by 2 gives \\boxed{\\frac{1}{2}} in the end.",
        needs_review=True,
        review_reasons=[{"code": "string_fallback", "message": "Only a string match."}],
    )
    EvaluationFactory(
        item=item,
        evaluator="math_verify",
        extracted="\\frac{1}{2}",
        extracted_latex="\\frac{1}{2}",
        gold_latex="\\frac{1}{2}",
    )
    EvaluationFactory(item=item, evaluator="strict", status="no_answer", verdict="", extracted="")
    ReviewFactory(item=item, verdict="unclear", note="ask the author")

    # When the reviewer opens it
    response = reviewer_client.get(reverse("item_detail", args=[item.id]))

    # Then they see the problem, the reason, each evaluator, the history and the math to render
    body = response.content.decode()
    assert "Simplify 2/4." in body
    assert "Only a string match." in body
    assert 'data-evaluator="math_verify"' in body and 'data-evaluator="strict"' in body
    assert "ask the author" in body
    assert 'data-latex="\\frac{1}{2}"' in body
    # and the extracted answer is highlighted where it stands in the output
    assert (
        'Dividing both by 2 gives \\boxed{<mark class="extracted">\\frac{1}{2}</mark>} in the end.'
        in body
    )
    # and rendered, the answer marked inside the formula that holds it, nothing folded
    assert (
        'Dividing both by 2 gives <mark class="extracted" id="extracted-answer">'
        '<span class="math" data-latex="\\boxed{\\frac{1}{2}}">' in body
    )
    assert "data-fold" not in body


def test_long_outputs_are_folded_around_the_answer(reviewer_client):
    # Given an output of 200 paragraphs whose answer is in the middle
    steps = [f"Step {n}: nothing yet." for n in range(200)]
    steps[120] = "So the answer is $\\boxed{42}$."
    item = GradedItemFactory(output="\n\n".join(steps))
    EvaluationFactory(item=item, extracted="42", extracted_latex="42")

    # When the reviewer opens it
    body = reviewer_client.get(reverse("item_detail", args=[item.id])).content.decode()

    # Then the paragraphs around the answer are open, the rest folded with a "show all"
    rendered = body[body.index("data-rendered data-output-box") :]
    assert '<details class="fold" data-fold="before"><summary>' in rendered
    assert '<details class="fold" data-fold="after"><summary>' in rendered
    before, after = rendered.split('<mark class="extracted"', 1)
    assert "<p>Step 119: nothing yet.</p>" in before.rsplit("</details>", 1)[1]
    assert "<p>Step 121: nothing yet.</p>" in after.split("<details", 1)[0]
    assert "data-show-all" in body


def test_an_output_too_long_to_render_is_shown_raw_with_the_answer_marked(reviewer_client):
    # Given an output longer than the page renders
    output = "step $x$ " * 30_000 + "so \\boxed{42}"
    item = GradedItemFactory(output=output)
    EvaluationFactory(item=item, extracted="42")

    # When the reviewer opens it
    body = reviewer_client.get(reverse("item_detail", args=[item.id])).content.decode()

    # Then it is raw text, said so, with the answer still marked and no math cut out of it
    assert "data-not-rendered" in body
    assert 'so \\boxed{<mark class="extracted">42</mark>}</pre>' in body
    assert "data-rendered data-output-box" not in body


def test_thinking_is_folded_with_its_length(reviewer_client):
    # Given an output that thinks first, then answers
    thinking = "Let me try $x = 2$. " * 10
    item = GradedItemFactory(output=f"<think>{thinking}</think>The answer is **4**.")

    # When the reviewer opens it
    body = reviewer_client.get(reverse("item_detail", args=[item.id])).content.decode()

    # Then the thinking is folded, its length on the fold, and the answer in bold after it
    assert (
        f'<details class="think" data-think><summary>Thinking · {len(thinking)} characters' in body
    )
    assert "<p>The answer is <strong>4</strong>.</p>" in body


def test_untrusted_text_from_a_run_is_never_rendered_as_html(reviewer_client):
    # Given a row whose every field tries to break out of the page
    item = GradedItemFactory(
        problem=HOSTILE,
        gold=HOSTILE,
        output=f"thinking {HOSTILE} done",
        external_id=HOSTILE[:200],
        needs_review=True,
        review_reasons=[{"code": "hedged", "message": HOSTILE}],
    )
    EvaluationFactory(
        item=item, extracted=HOSTILE, extracted_latex=HOSTILE, gold_latex=HOSTILE, detail=HOSTILE
    )
    ReviewFactory(item=item, note=HOSTILE)

    # When the reviewer opens the row and the run table
    pages = [
        reviewer_client.get(reverse("item_detail", args=[item.id])),
        reviewer_client.get(reverse("run_detail", args=[item.run_id])),
    ]

    # Then the text is shown escaped and no script or handler from it reaches the page
    for page in pages:
        body = page.content.decode()
        assert "<script>alert" not in body
        assert "<img src=x" not in body
        assert '"pwned"' not in body  # quotes are escaped too, so attributes stay closed
        assert "&lt;/script&gt;&lt;script&gt;alert(&quot;pwned&quot;)" in body


def test_no_template_or_view_marks_text_safe():
    # Given every template and Python module of the web app
    sources = [*(REPO_ROOT / "templates").rglob("*.html"), *(REPO_ROOT / "reviewer").rglob("*.py")]

    # Then none of them switches autoescaping off, but for the one module that turns a
    # problem or an output into Markdown's HTML (its own tests show it escapes every tag)
    offenders = [
        str(path.relative_to(REPO_ROOT))
        for path in sources
        if path != REPO_ROOT / "reviewer" / "pages" / "rendered_text.py"
        and re.search(
            r"\|\s*safe\b|autoescape\s+off|mark_safe|format_html\(|SafeString", path.read_text()
        )
    ]
    assert offenders == []


def test_pages_carry_a_csp_without_inline_scripts_and_no_inline_script_or_handler(
    reviewer_client,
):
    # Given a graded run
    run = _graded_run()
    item = Item.objects.get(run=run, external_id="flagged")

    for url in [
        reverse("run_list"),
        reverse("upload"),
        reverse("run_detail", args=[run.id]),
        reverse("item_detail", args=[item.id]),
    ]:
        # When a page is served
        response = reviewer_client.get(url)

        # Then its policy allows scripts from our origin only, and the page has none inline
        policy = response["Content-Security-Policy"]
        script_src = re.search(r"script-src ([^;]*)", policy).group(1)
        assert script_src.strip() == "'self'"
        body = response.content.decode()
        assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", body) == []
        assert re.findall(r"\son[a-z]+\s*=", body) == []
        assert "hx-on" not in body
        assert '"allowEval": false' in body


# ---- reviewing --------------------------------------------------------------------------


def test_saving_a_verdict_with_htmx_swaps_in_the_next_row_of_the_filter(reviewer_client, user):
    # Given a run whose table shows flagged rows first
    run = _graded_run()
    flagged = Item.objects.get(run=run, external_id="flagged")
    plain = Item.objects.get(run=run, external_id="plain")
    url = reverse("item_detail", args=[flagged.id]) + "?needs_review=&order=flagged"

    # When the reviewer overrides the flagged row with a note
    response = reviewer_client.post(
        url,
        {"verdict": "correct", "note": "the jury was wrong", "expected_version": flagged.version},
        **_htmx("item"),
    )

    # Then the review is stored and becomes the final verdict
    review = Review.objects.get(item=flagged)
    assert (review.verdict, review.note, review.annotator) == (
        "correct",
        "the jury was wrong",
        user,
    )
    flagged.refresh_from_db()
    assert (flagged.final_verdict, flagged.final_source) == ("correct", "human")
    # and the next row of the same order comes back as a fragment, with its URL pushed
    body = response.content.decode()
    assert response.status_code == 200
    assert body.lstrip().startswith(f'<article id="item" data-item-id="{plain.id}"')
    assert response["HX-Push-Url"] == reverse("item_detail", args=[plain.id]) + "?order=flagged"
    # with a flash of what was saved and the counts that changed
    assert "Row 2 saved as “Correct”" in body
    assert re.search(r'data-count="reviewed">1<', body)


def test_saving_without_javascript_redirects_to_the_next_row(reviewer_client):
    run = _graded_run()
    flagged = Item.objects.get(run=run, external_id="flagged")
    plain = Item.objects.get(run=run, external_id="plain")

    response = reviewer_client.post(
        reverse("item_detail", args=[flagged.id]), {"verdict": "gold_wrong"}
    )

    assert response.status_code == 302
    assert response["Location"] == reverse("item_detail", args=[plain.id])
    assert Review.objects.get(item=flagged).verdict == "gold_wrong"


def test_saving_the_last_row_of_a_filter_stays_and_says_so(reviewer_client):
    run = _graded_run()
    flagged = Item.objects.get(run=run, external_id="flagged")

    response = reviewer_client.post(
        reverse("item_detail", args=[flagged.id]) + "?needs_review=yes",
        {"verdict": "unclear"},
        **_htmx("item"),
    )

    body = response.content.decode()
    assert f'data-item-id="{flagged.id}"' in body
    assert "That was the last row of this filter." in body


def test_a_verdict_on_a_row_someone_else_just_reviewed_is_refused(reviewer_client):
    # Given a row the reviewer loaded at version 0, which another reviewer then decided
    item = GradedItemFactory()
    other = UserFactory()
    ReviewFactory(item=item, annotator=other, verdict="incorrect")
    Item.objects.filter(pk=item.pk).update(
        version=1, final_verdict="incorrect", final_source="human"
    )

    # When the reviewer saves their verdict
    response = reviewer_client.post(
        reverse("item_detail", args=[item.id]),
        {"verdict": "correct", "expected_version": 0},
        **_htmx("item"),
    )

    # Then nothing is overwritten and they see the current state with an explanation
    assert response.status_code == 409
    assert Review.objects.filter(item=item).count() == 1
    body = response.content.decode()
    assert "Your verdict was not saved" in body
    assert 'data-final-verdict="incorrect"' in body


def test_a_post_without_a_verdict_is_refused_with_a_message(reviewer_client):
    item = GradedItemFactory()

    response = reviewer_client.post(
        reverse("item_detail", args=[item.id]), {"verdict": "maybe"}, **_htmx("item")
    )

    assert response.status_code == 400
    assert "Choose a verdict" in response.content.decode()
    assert not Review.objects.filter(item=item).exists()


def test_htmx_posts_need_the_csrf_token_the_body_sends(user):
    # Given a logged-in browser that enforces CSRF, on an item page
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    item = GradedItemFactory()
    url = reverse("item_detail", args=[item.id])
    page = client.get(url).content.decode()
    token = re.search(r'hx-headers=\'\{"X-CSRFToken": "([^"]+)"\}\'', page).group(1)

    # When htmx posts a verdict without the token
    refused = client.post(url, {"verdict": "correct"}, **_htmx("item"))
    # and with the token that <body> hands to htmx
    accepted = client.post(url, {"verdict": "correct"}, HTTP_X_CSRFTOKEN=token, **_htmx("item"))

    # Then only the second one is saved
    assert refused.status_code == 403
    assert accepted.status_code == 200
    assert Review.objects.filter(item=item).count() == 1


# ---- query counts -----------------------------------------------------------------------


@pytest.mark.parametrize("rows", [3, 40])
def test_run_page_query_count_does_not_grow_with_rows(
    reviewer_client, django_assert_num_queries, rows
):
    # Given a run with a few or many rows
    run = RunFactory(status=Run.Status.DONE, total_rows=rows)
    GradedItemFactory.create_batch(rows, run=run, needs_review=True, review_reasons=[])

    # Then the page costs the same number of queries:
    # session, user, run, counts, progress (both from the run's tallies: no row count for
    # the table either), your queue, conflicts, one page of rows and their evaluations
    with django_assert_num_queries(9):
        reviewer_client.get(reverse("run_detail", args=[run.id]))


@pytest.mark.parametrize("evaluations", [1, 6])
def test_item_page_query_count_does_not_grow_with_evaluations_or_reviews(
    reviewer_client, django_assert_num_queries, evaluations
):
    # Given a row with several evaluations and reviews
    item = GradedItemFactory(needs_review=True)
    for index in range(evaluations):
        EvaluationFactory(item=item, evaluator=f"evaluator{index}")
        ReviewFactory(item=item)

    # Then the page costs the same number of queries:
    # session, user, item with run and project, evaluations, reviews with annotators,
    # counts, one for the neighbours (the next flagged row wrapping around to the start
    # included), and the row's audit trail
    with django_assert_num_queries(8):
        reviewer_client.get(reverse("item_detail", args=[item.id]))


@pytest.mark.parametrize("role", ["owner", "annotator"])
def test_saving_a_verdict_with_htmx_query_count(role, user, client, django_assert_num_queries):
    # Given a member reviewing a run with flagged rows on the item page
    member = user if role == "owner" else UserFactory()
    run = RunFactory(status=Run.Status.DONE, total_rows=3, project__members={member: role})
    first, second, _ = (
        GradedItemFactory(run=run, row_number=n, needs_review=True) for n in (1, 2, 3)
    )
    client.force_login(member)

    # When they save a verdict (htmx swaps the next row into #item)
    # Then it costs: session, user, the row with its run and project, where to go next; a
    # savepoint (two statements) around the locked row, the review, the assignment, the row
    # and its audit event; then the next row with its evaluations, counts, neighbours,
    # reviews and audit trail. An annotator adds whether the run's queue is split, once for
    # the save and once for the next row; nothing is written to the session.
    with django_assert_num_queries(17 if role == "owner" else 19):
        response = client.post(
            reverse("item_detail", args=[first.id]),
            {"verdict": "correct", "expected_version": 0},
            **_htmx("item"),
        )
    assert response.status_code == 200
    assert response["HX-Push-Url"] == reverse("item_detail", args=[second.id])


# ---- upload -----------------------------------------------------------------------------

CSV = b'id,problem,gold,output\n1,What is 6*7?,42,"So \\boxed{42}"\n2,What is 1+1?,2,"It is \\boxed{3}"\n'


def _upload(client, content: bytes, filename: str = "outputs.csv", project: str = "Uploads"):
    return client.post(
        reverse("upload"),
        {"step": "upload", "project": project, "file": SimpleUploadedFile(filename, content)},
    )


def _token(response) -> str:
    return re.search(r'name="token" value="([^"]+)"', response.content.decode()).group(1)


def test_upload_previews_the_file_and_creates_the_run_from_the_guessed_mapping(reviewer_client):
    # When the reviewer uploads a CSV
    preview = _upload(reviewer_client, CSV)

    # Then they see its first rows and the guessed columns
    body = preview.content.decode()
    assert preview.status_code == 200
    assert "What is 6*7?" in body
    assert re.search(r'<option value="gold" selected>gold</option>', body)
    assert re.search(r'<option value="output" selected>output</option>', body)

    # When they confirm
    created = reviewer_client.post(
        reverse("upload"),
        {
            "step": "create",
            "token": _token(preview),
            "project": "Uploads",
            "name": "first upload",
            "map_gold": "gold",
            "map_output": "output",
            "map_problem": "problem",
            "map_id": "id",
            "evaluators": ["math_verify", "exact"],
        },
    )

    # Then the run exists with its rows and they land on its page
    run = Run.objects.get(name="first upload")
    assert created.status_code == 302
    assert created["Location"] == reverse("run_detail", args=[run.id])
    assert run.project.name == "Uploads"
    assert run.evaluators == ["math_verify", "exact"]
    assert list(run.items.values_list("external_id", "gold")) == [("1", "42"), ("2", "2")]


def test_an_ambiguous_answer_column_must_be_confirmed(reviewer_client):
    # Given a file whose model output sits in a column called "answer"
    preview = _upload(reviewer_client, b"question,answer,gold\nq,\\boxed{1},1\n")
    fields = {
        "step": "create",
        "token": _token(preview),
        "project": "Uploads",
        "name": "ambiguous",
        "map_gold": "gold",
        "map_output": "answer",
        "evaluators": ["exact"],
    }

    # When the reviewer creates the run without confirming the guess
    refused = reviewer_client.post(reverse("upload"), fields)

    # Then they are asked to confirm it, and with the box ticked the run is created
    assert refused.status_code == 400
    assert "This column name is ambiguous" in refused.content.decode()
    assert not Run.objects.filter(name="ambiguous").exists()
    accepted = reviewer_client.post(reverse("upload"), {**fields, "confirm_output": "on"})
    assert accepted.status_code == 302
    assert Run.objects.filter(name="ambiguous").exists()


def test_a_file_with_no_rows_is_refused_at_upload(reviewer_client):
    response = _upload(reviewer_client, b"id,gold,output\n")

    assert response.status_code == 400
    body = response.content.decode()
    assert "The file cannot be used as it is" in body
    assert "no data rows" in body


def test_a_row_with_the_wrong_number_of_fields_is_named_by_its_line(reviewer_client):
    # Given a file whose third line has an extra field
    preview = _upload(reviewer_client, b"gold,output\n1,\\boxed{1}\n2,\\boxed{2},extra\n")

    # When the reviewer tries to create the run
    response = reviewer_client.post(
        reverse("upload"),
        {
            "step": "create",
            "token": _token(preview),
            "project": "Uploads",
            "name": "broken",
            "map_gold": "gold",
            "map_output": "output",
            "evaluators": ["exact"],
        },
    )

    # Then nothing is created and the problem names line 3
    assert response.status_code == 400
    assert re.search(r"line 3\b", response.content.decode())
    assert not Run.objects.filter(name="broken").exists()


def test_uploading_the_same_file_twice_offers_the_existing_run(reviewer_client):
    # Given a run made from a file
    existing = RunFactory(name="already here", source_sha256=hashlib.sha256(CSV).hexdigest())
    preview = _upload(reviewer_client, CSV, project=existing.project.name)

    # When the same file is uploaded to the same project again
    response = reviewer_client.post(
        reverse("upload"),
        {
            "step": "create",
            "token": _token(preview),
            "project": existing.project.name,
            "name": "again",
            "map_gold": "gold",
            "map_output": "output",
            "evaluators": ["exact"],
        },
    )

    # Then no second run is made and the page links to the first
    body = response.content.decode()
    assert "already uploaded" in body
    assert reverse("run_detail", args=[existing.id]) in body
    assert not Run.objects.filter(name="again").exists()


# ---- demo -------------------------------------------------------------------------------


def test_demo_command_prints_credentials_that_log_in_and_loads_the_demo_run(client, capsys):
    # When the demo command runs
    call_command("demo", password="a demo password 123")

    # Then it says how to log in, the credentials work, and the demo run is there
    out = capsys.readouterr().out
    assert "username: demo" in out and "password: a demo password 123" in out
    logged_in = client.post(
        reverse("login"), {"username": "demo", "password": "a demo password 123"}
    )
    assert logged_in.status_code == 302 and logged_in["Location"] == reverse("run_list")
    run = Run.objects.get(project__name="Demo")
    assert run.total_rows >= 40
    response = client.get(reverse("run_detail", args=[run.id]))
    assert response.status_code == 200


def test_demo_command_adds_two_annotators_to_try_team_review(client, capsys):
    # When the demo command runs (twice: running it again must not fail or duplicate)
    call_command("demo", password="a demo password 123")
    call_command("demo", password="a demo password 123")

    # Then two annotators of the demo project can log in and see its run
    out = capsys.readouterr().out
    assert "demo-ann and demo-bea are annotators" in out
    run = Run.objects.get(project__name="Demo")
    for name in ("demo-ann", "demo-bea"):
        client.logout()
        logged_in = client.post(
            reverse("login"), {"username": name, "password": "a demo password 123"}
        )
        assert logged_in.status_code == 302
        assert client.get(reverse("run_detail", args=[run.id])).status_code == 200
        assert run.project.memberships.get(user__username=name).role == "annotator"
