"""Review under load, in the suite (RELIABILITY H1): ten annotators review at once through a
live server, as the browser does (open a row, save a verdict with htmx, follow to the next
row), while the lead keeps reloading the run's statistics. Nothing here is timed: the test
holds that no request fails with a server error, every saved verdict is in the database
exactly once, and each row's final verdict is its last review. Speed under load is measured by
bench/review_load.py (docs/benchmarks.md)."""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import dataclass, field

import pytest
import requests
from django.test import Client

from reviewer.models import Item, Membership, Review, Run
from tests.factories import GradedItemFactory, ProjectFactory, RunFactory, UserFactory

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ANNOTATORS = 10
REVIEWS = 4  # rows each annotator saves, following the server's next row
ROWS = 80  # flagged rows, so annotators start apart
REQUEST_TIMEOUT = 120  # a request never answered fails the test; not a speed limit
VERSION = re.compile(r'name="expected_version" value="(\d+)"')
CSRF = re.compile(r'"X-CSRFToken": "([^"]+)"')  # base.html's hx-headers
NEXT_ROW = re.compile(r"/items/(\d+)/")


@pytest.fixture(autouse=True)
def _static_urls_without_manifest(settings) -> None:
    """Tests run with DEBUG off; static URLs must not need collectstatic's manifest."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@dataclass
class Traffic:
    """What the clients sent and got back, shared by their threads."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    answers: list[tuple[str, str, int | None]] = field(default_factory=list)  # (who, what, status)
    saved: list[tuple[str, int]] = field(default_factory=list)  # (annotator, row) answered 200

    def record(self, who: str, what: str, response: requests.Response | None) -> None:
        with self.lock:
            self.answers.append((who, what, None if response is None else response.status_code))


def session_for(user) -> requests.Session:
    """An HTTP session logged in as ``user`` on the live server (http://localhost:port)."""
    client = Client()
    client.force_login(user)
    http = requests.Session()
    # The cookie jar keeps cookies of a dotless host such as localhost under "localhost.local".
    http.cookies.set("sessionid", client.cookies["sessionid"].value, domain="localhost.local")
    return http


def send(http: requests.Session, method: str, url: str, **kwargs) -> requests.Response | None:
    try:
        return http.request(method, url, timeout=REQUEST_TIMEOUT, allow_redirects=False, **kwargs)
    except requests.RequestException:
        return None


def annotate(base: str, name: str, http: requests.Session, first_row: int, traffic: Traffic):
    """Open a row, save a verdict as htmx does, go on to the row the server sends; REVIEWS
    times, or until a save is refused."""
    row = first_row
    for round_number in range(REVIEWS):
        page = send(http, "GET", f"{base}/items/{row}/")
        traffic.record(name, "item page", page)
        if page is None or page.status_code != 200:
            return
        verdict = "correct" if round_number % 2 else "incorrect"
        saved = send(
            http,
            "POST",
            f"{base}/items/{row}/",
            data={
                "verdict": verdict,
                "note": f"{name} round {round_number}",
                "expected_version": VERSION.search(page.text).group(1),
            },
            headers={"HX-Request": "true", "X-CSRFToken": CSRF.search(page.text).group(1)},
        )
        traffic.record(name, "save", saved)
        if saved is None or saved.status_code != 200:
            return  # 409: another annotator saved the row first, which is allowed
        with traffic.lock:
            traffic.saved.append((name, row))
        following = NEXT_ROW.match(saved.headers.get("HX-Push-Url", ""))
        if following is None or int(following.group(1)) == row:
            return
        row = int(following.group(1))


def reload_statistics(base: str, http: requests.Session, run_id: int, done, traffic: Traffic):
    while not done.is_set():
        traffic.record("lead", "statistics", send(http, "GET", f"{base}/runs/{run_id}/stats/"))
        traffic.record("lead", "run page", send(http, "GET", f"{base}/runs/{run_id}/"))


def test_ten_annotators_at_once_get_no_server_error_and_lose_or_double_no_verdict(live_server):
    # Given a graded run of flagged rows, its lead and ten annotators, each starting at its
    # own row
    lead = UserFactory(username="lead")
    annotators = [UserFactory(username=f"annotator{n}") for n in range(ANNOTATORS)]
    project = ProjectFactory(
        created_by=lead, members={a: Membership.Role.ANNOTATOR for a in annotators}
    )
    run = RunFactory(project=project, status=Run.Status.DONE, total_rows=ROWS)
    rows = [
        GradedItemFactory(
            run=run,
            row_number=n,
            auto_verdict="correct",
            final_verdict="correct",
            needs_review=True,
            review_reasons=[{"code": "hedged", "message": "The output hedges."}],
        ).pk
        for n in range(1, ROWS + 1)
    ]
    starts = rows[:: ROWS // ANNOTATORS]
    base = live_server.url
    traffic = Traffic()

    # When they all review at once while the lead reloads the statistics
    done = threading.Event()
    lead_thread = threading.Thread(
        target=reload_statistics, args=(base, session_for(lead), run.pk, done, traffic)
    )
    threads = [
        threading.Thread(
            target=annotate, args=(base, user.username, session_for(user), start, traffic)
        )
        for user, start in zip(annotators, starts, strict=True)
    ]
    lead_thread.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    done.set()
    lead_thread.join()

    # Then every request was answered, none with a server error, and saves got 200 or 409
    statuses = Counter((what, status) for _, what, status in traffic.answers)
    assert not [key for key in statuses if key[1] is None or key[1] >= 500], statuses
    assert {status for what, status in statuses if what != "save"} == {200}, statuses
    assert {status for what, status in statuses if what == "save"} <= {200, 409}, statuses
    assert statuses["statistics", 200] >= 1 and len(traffic.saved) >= ANNOTATORS
    # and every verdict answered 200 is in the database once: none lost, none doubled
    reviews = Counter(
        Review.objects.filter(item__run=run).values_list("annotator__username", "item_id")
    )
    assert sorted(reviews.elements()) == sorted(traffic.saved)
    # and each reviewed row's final verdict is its last review's
    for item in Item.objects.filter(run=run, reviews__isnull=False).distinct():
        last = item.reviews.order_by("-created_at", "-pk").first()
        assert (item.final_verdict, item.final_source) == (last.verdict, Item.FinalSource.HUMAN)
