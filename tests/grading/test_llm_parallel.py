"""complete_many: many prompts at a concurrency limit, each sample asked once, results as they
land, errors per request, cancel."""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from grading.llm import (
    MATH_TEMPLATE,
    ChatRequest,
    EndpointClient,
    EndpointConfig,
    ErrorKind,
    RetryPolicy,
    chat_messages,
    complete_many,
)


def problems(count: int) -> list[str]:
    return [f"What is {i} + {i + 1}?" for i in range(count)]


def requests_for(texts: list[str], samples: int = 1) -> list[ChatRequest]:
    return [
        ChatRequest(
            key=text,
            messages=chat_messages(MATH_TEMPLATE, text),
            samples=tuple(range(samples)),
        )
        for text in texts
    ]


@pytest.fixture
def client(openai_server):
    config = EndpointConfig(base_url=openai_server.base_url, model="fake-model")
    with EndpointClient(config, RetryPolicy(max_attempts=10, base_delay=0.05)) as client:
        yield client


def answered_pairs(outcomes) -> Counter:
    return Counter(
        (outcome.request.key, completion.sample)
        for outcome in outcomes
        for completion in outcome.completions
    )


def test_every_sample_of_every_prompt_arrives_once(client, openai_server):
    texts = problems(12)

    outcomes = list(complete_many(client, requests_for(texts, samples=3), concurrency=4))

    assert answered_pairs(outcomes) == Counter({(t, s): 1 for t in texts for s in range(3)})
    assert set(openai_server.answered().values()) == {1}
    assert openai_server.state()["requests"]["/v1/chat/completions"] == 12
    assert all(outcome.error is None for outcome in outcomes)
    first = next(o for o in outcomes if o.request.key == "What is 3 + 4?")
    assert "\\boxed{7}" in first.completions[0].text


def test_a_server_that_ignores_n_is_asked_again_for_the_missing_samples_only(client, openai_server):
    openai_server.configure(ignore_n=True)
    texts = problems(5)

    outcomes = list(complete_many(client, requests_for(texts, samples=4), concurrency=3))

    assert answered_pairs(outcomes) == Counter({(t, s): 1 for t in texts for s in range(4)})
    assert len(openai_server.answered()) == 20
    assert set(openai_server.answered().values()) == {1}  # no (prompt, sample) asked twice
    asked = [tuple(entry["samples"]) for entry in openai_server.state()["chat_log"]]
    assert sorted(Counter(asked).items()) == [((0,), 5), ((1,), 5), ((2,), 5), ((3,), 5)]


def test_a_resumed_run_asks_only_for_the_missing_samples(client, openai_server):
    wanted = [
        ChatRequest(
            key="a", messages=chat_messages(MATH_TEMPLATE, "What is 1 + 1?"), samples=(1, 3)
        ),
        ChatRequest(key="b", messages=chat_messages(MATH_TEMPLATE, "What is 2 + 2?"), samples=(0,)),
    ]

    outcomes = list(complete_many(client, wanted, concurrency=2))

    assert answered_pairs(outcomes) == Counter({("a", 1): 1, ("a", 3): 1, ("b", 0): 1})
    assert sorted(openai_server.answered()) == [
        (chat_messages(MATH_TEMPLATE, "What is 1 + 1?")[0]["content"], 1),
        (chat_messages(MATH_TEMPLATE, "What is 1 + 1?")[0]["content"], 3),
        (chat_messages(MATH_TEMPLATE, "What is 2 + 2?")[0]["content"], 0),
    ]


def test_the_concurrency_limit_is_reached_and_never_passed(client, openai_server):
    # The server holds the first four requests until four are in flight at once, so the
    # limit is shown to be reached without relying on timing; then it answers slowly.
    openai_server.configure(gate_in_flight=4, latency_s=0.02)

    outcomes = list(complete_many(client, requests_for(problems(40)), concurrency=4))

    assert len(outcomes) == 40
    assert openai_server.state()["max_in_flight"] == 4


def test_a_request_that_fails_for_good_is_reported_and_the_rest_go_on(client, openai_server):
    openai_server.fail_next({"status": 400, "message": "prompt too long"})

    outcomes = list(complete_many(client, requests_for(problems(6)), concurrency=1))

    failed = [o for o in outcomes if o.error]
    assert len(failed) == 1
    assert failed[0].request.key == "What is 0 + 1?"
    assert failed[0].error.kind is ErrorKind.BAD_REQUEST
    assert failed[0].completions == ()
    assert len([o for o in outcomes if o.completions]) == 5


def test_an_outage_mid_run_loses_nothing_and_asks_nothing_twice(client, openai_server):
    openai_server.outage(seconds=1.0, after_requests=10)
    texts = problems(30)

    outcomes = list(complete_many(client, requests_for(texts, samples=2), concurrency=4))

    assert all(o.error is None for o in outcomes)
    assert answered_pairs(outcomes) == Counter({(t, s): 1 for t in texts for s in range(2)})
    assert set(openai_server.answered().values()) == {1}
    assert max(c.attempts for o in outcomes for c in o.completions) > 1


def test_cancel_sends_nothing_new_and_still_yields_what_was_in_flight(client, openai_server):
    stop = threading.Event()
    outcomes = []

    for outcome in complete_many(
        client, requests_for(problems(50)), concurrency=2, cancelled=stop.is_set
    ):
        outcomes.append(outcome)
        stop.set()

    assert len(outcomes) == 2
    assert openai_server.state()["requests"]["/v1/chat/completions"] == 2


def test_requests_are_read_lazily(client, openai_server):
    pulled = []

    def endless():
        index = 0
        while True:
            pulled.append(index)
            yield requests_for([f"What is {index} + 1?"])[0]
            index += 1

    results = complete_many(client, endless(), concurrency=3)
    first = [next(results) for _ in range(5)]
    results.close()

    assert len(first) == 5
    assert len(pulled) <= 5 + 3


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: ChatRequest(key=1, messages=(), samples=()), "asks for no samples"),
        (lambda: ChatRequest(key=1, messages=(), samples=(0, 0)), "asks for a sample twice"),
    ],
)
def test_bad_requests_are_refused_before_anything_is_sent(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_a_concurrency_below_one_is_refused(client):
    with pytest.raises(ValueError, match="concurrency must be at least 1"):
        next(complete_many(client, requests_for(problems(1)), concurrency=0))
