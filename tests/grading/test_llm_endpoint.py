"""The endpoint client against the fake OpenAI-compatible server: answers, n, streaming,
retries, and the errors a run page will count."""

from __future__ import annotations

import subprocess
import sys

import pytest

from grading.llm import (
    EndpointClient,
    EndpointConfig,
    EndpointError,
    ErrorKind,
    RetryPolicy,
    SamplingParams,
)

QUICK_RETRIES = RetryPolicy(max_attempts=4, base_delay=0.01, max_delay=5.0)
QUESTION = ({"role": "user", "content": "What is 20 + 22?"},)


@pytest.fixture
def client(openai_server):
    with EndpointClient(
        EndpointConfig(base_url=openai_server.base_url, model="fake-model"), QUICK_RETRIES
    ) as client:
        yield client


@pytest.fixture
def streaming_client(openai_server):
    config = EndpointConfig(base_url=openai_server.base_url, model="fake-model", stream=True)
    with EndpointClient(config, QUICK_RETRIES) as client:
        yield client


def test_a_completion_carries_text_tokens_model_and_one_attempt(client, openai_server):
    (completion,) = client.chat(QUESTION)

    assert completion.text.endswith("The final answer is $\\boxed{42}$.")
    assert completion.finish_reason == "stop"
    assert completion.model == "fake-model"
    assert completion.prompt_tokens == 5
    assert completion.completion_tokens == len(completion.text.split())
    assert completion.attempts == 1
    assert completion.latency_s > 0
    assert completion.reasoning == ""


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
@pytest.mark.parametrize("stream", [False, True])
def test_reasoning_text_is_read_from_either_field_streamed_or_not(openai_server, field, stream):
    openai_server.configure(reasoning_field=field)
    openai_server.script("20 + 22", {"content": "42", "reasoning": "Twenty and twenty-two."})
    config = EndpointConfig(base_url=openai_server.base_url, model="fake-model", stream=stream)
    with EndpointClient(config) as client:
        (completion,) = client.chat(QUESTION)

    assert completion.text == "42"
    assert completion.reasoning == "Twenty and twenty-two."


def test_sampling_parameters_reach_the_server_and_each_sample_gets_its_own_seed(
    client, openai_server
):
    sampling = SamplingParams(temperature=0.7, top_p=0.9, max_tokens=3, seed=100, stop=("###",))

    client.chat(QUESTION, sampling, samples=(2,))
    client.chat(QUESTION, sampling, samples=(5,))

    log = openai_server.state()["chat_log"]
    assert [entry["seed"] for entry in log] == [102, 105]


def test_max_tokens_cuts_the_answer_and_says_so(client):
    (completion,) = client.chat(QUESTION, SamplingParams(max_tokens=3))

    assert completion.text == "Adding the numbers"
    assert completion.finish_reason == "length"


def test_a_server_that_honours_n_answers_every_sample_in_one_request(client, openai_server):
    completions = client.chat(QUESTION, samples=(0, 1, 2, 3))

    assert [c.sample for c in completions] == [0, 1, 2, 3]
    assert openai_server.state()["requests"]["/v1/chat/completions"] == 1
    # One usage total for four choices: shares add up to it, the prompt was billed once.
    assert all(c.usage_shared_by == 4 for c in completions)
    assert sum(c.completion_tokens for c in completions) == 4 * len(completions[0].text.split())


def test_a_server_that_ignores_n_returns_the_first_sample_only(client, openai_server):
    openai_server.configure(ignore_n=True)

    completions = client.chat(QUESTION, samples=(4, 5, 6))

    assert [c.sample for c in completions] == [4]
    assert completions[0].usage_shared_by == 1


def test_a_server_that_refuses_n_is_asked_one_sample_at_a_time_from_then_on(client, openai_server):
    openai_server.configure(reject_n=True)

    first = client.chat(QUESTION, samples=(0, 1))
    second = client.chat(QUESTION, samples=(1,))
    third = client.chat(QUESTION, samples=(2, 3))

    assert [c.sample for c in (*first, *second, *third)] == [0, 1, 2]
    ns = [entry["n"] for entry in openai_server.state()["chat_log"]]
    assert ns == [1, 1, 1]  # the refused n=2 request is not an answered one


def test_streamed_answers_with_n_are_assembled_per_choice(streaming_client, openai_server):
    openai_server.script("20 + 22", "forty two is the answer", "it is 42")

    completions = streaming_client.chat(QUESTION, samples=(0, 1))

    assert [c.text for c in completions] == ["forty two is the answer", "it is 42"]
    assert [c.finish_reason for c in completions] == ["stop", "stop"]
    assert openai_server.state()["chat_log"][0]["stream"] is True
    assert sum(c.completion_tokens for c in completions) == 8


def test_list_models_is_the_connection_test(client, openai_server):
    openai_server.configure(models=["qwen2.5-math-7b", "judge-small"])

    assert client.list_models() == ("qwen2.5-math-7b", "judge-small")


def test_a_base_url_without_v1_gets_a_hint(openai_server):
    config = EndpointConfig(base_url=f"http://127.0.0.1:{openai_server.api_port}", model="m")
    with EndpointClient(config, QUICK_RETRIES) as client, pytest.raises(EndpointError) as caught:
        client.list_models()

    assert caught.value.kind is ErrorKind.BAD_REQUEST
    assert "HTTP 404" in str(caught.value)
    assert "/v1" in str(caught.value)


def test_embeddings_come_back_in_the_order_of_the_texts(client):
    texts = ["integration by parts", "the quadratic formula", "integration by parts"]

    result = client.embed(texts, model="embedder")

    assert len(result.vectors) == 3
    assert result.vectors[0] == result.vectors[2] != result.vectors[1]
    assert result.model == "embedder"
    assert result.prompt_tokens == 9
    assert client.embed([]).vectors == ()


def test_a_429_is_retried_after_the_wait_the_server_asks_for(client, openai_server):
    openai_server.fail_next({"status": 429, "retry_after": 1})

    (completion,) = client.chat(QUESTION)

    assert completion.attempts == 2
    refused, answered = openai_server.state()["arrivals"]
    assert refused["fault"] == {"status": 429, "retry_after": 1}
    assert answered["t"] - refused["t"] >= 1.0


@pytest.mark.parametrize(
    "fault",
    [
        {"status": 500},
        {"status": 503},
        {"status": 408},
        {"drop": True},
        {"drop_mid_answer": True},
    ],
    ids=["500", "503", "408", "dropped", "dropped-mid-answer"],
)
def test_transient_failures_are_retried(client, openai_server, fault):
    openai_server.fail_next(fault, fault)

    (completion,) = client.chat(QUESTION)

    assert completion.attempts == 3
    assert "42" in completion.text


def test_a_stream_dropped_halfway_is_asked_again_whole(streaming_client, openai_server):
    openai_server.script("20 + 22", "one two three four five six seven eight nine ten")
    openai_server.fail_next({"drop_mid_answer": True})

    (completion,) = streaming_client.chat(QUESTION)

    assert completion.text == "one two three four five six seven eight nine ten"
    assert completion.attempts == 2


def test_a_slow_answer_times_out_and_is_retried(openai_server):
    config = EndpointConfig(base_url=openai_server.base_url, model="fake-model", timeout_s=0.5)
    openai_server.fail_next({"delay_s": 3})
    with EndpointClient(config, QUICK_RETRIES) as client:
        (completion,) = client.chat(QUESTION)

    assert completion.attempts >= 2
    assert openai_server.state()["arrivals"][0]["fault"] == {"delay_s": 3}


def test_an_outage_shorter_than_the_retries_loses_nothing(openai_server):
    retries = RetryPolicy(max_attempts=10, base_delay=0.2, max_delay=2.0)
    config = EndpointConfig(base_url=openai_server.base_url, model="fake-model")
    with EndpointClient(config, retries) as client:
        client.chat(QUESTION)
        openai_server.outage(seconds=1.0)
        (completion,) = client.chat(QUESTION)

    assert completion.attempts > 1
    assert "42" in completion.text


def test_retries_are_bounded_and_the_last_error_says_what_happened(client, openai_server):
    openai_server.fail_next(*[{"status": 500, "message": "CUDA out of memory"}] * 4)

    with pytest.raises(EndpointError) as caught:
        client.chat(QUESTION)

    error = caught.value
    assert error.kind is ErrorKind.SERVER_ERROR
    assert error.attempts == 4
    assert error.status == 500
    assert str(error) == (
        f"chat completion at {openai_server.base_url} failed after 4 attempts: "
        "the server answered HTTP 500: CUDA out of memory"
    )
    assert openai_server.state()["requests"]["/v1/chat/completions"] == 4


def test_a_refused_connection_ends_as_a_connection_error():
    config = EndpointConfig(base_url="http://127.0.0.1:9/v1", model="m")
    with EndpointClient(config, RetryPolicy(max_attempts=2, base_delay=0.01)) as client:
        with pytest.raises(EndpointError) as caught:
            client.list_models()

    assert caught.value.kind is ErrorKind.CONNECTION
    assert caught.value.attempts == 2


def test_a_bad_request_is_not_retried(client, openai_server):
    openai_server.fail_next(
        {"status": 400, "message": "This model's maximum context length is 4096 tokens"}
    )

    with pytest.raises(EndpointError) as caught:
        client.chat(QUESTION)

    assert caught.value.kind is ErrorKind.BAD_REQUEST
    assert caught.value.attempts == 1
    assert "maximum context length" in str(caught.value)


def test_a_retry_after_longer_than_the_client_waits_ends_at_once(openai_server):
    config = EndpointConfig(base_url=openai_server.base_url, model="fake-model")
    openai_server.fail_next({"status": 429, "retry_after": 3600})
    with EndpointClient(config, RetryPolicy(max_delay=30)) as client:
        with pytest.raises(EndpointError) as caught:
            client.chat(QUESTION)

    assert caught.value.kind is ErrorKind.RATE_LIMITED
    assert caught.value.attempts == 1
    assert "asked to wait 3600 s, longer than the 30 s this client waits" in str(caught.value)


def test_a_page_that_is_not_an_answer_is_a_bad_response(client, openai_server):
    openai_server.fail_next({"status": 200, "html": "<html><body>Welcome to nginx!</body></html>"})

    with pytest.raises(EndpointError) as caught:
        client.chat(QUESTION)

    assert caught.value.kind is ErrorKind.BAD_RESPONSE
    assert caught.value.attempts == 1


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"base_url": "127.0.0.1:8000/v1"}, r"is not an http\(s\) URL"),
        ({"model": " "}, "model name is empty"),
        ({"timeout_s": 0}, "positive number of seconds"),
    ],
)
def test_bad_endpoint_settings_are_refused_up_front(options, message):
    with pytest.raises(ValueError, match=message):
        EndpointConfig(**{"base_url": "http://127.0.0.1:8000/v1", "model": "m", **options})


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"temperature": 3}, "temperature"),
        ({"top_p": 0}, "top_p"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"stop": "###"}, "tuple of non-empty strings"),
    ],
)
def test_bad_sampling_parameters_are_refused_up_front(options, message):
    with pytest.raises(ValueError, match=message):
        SamplingParams(**options)


def test_another_process_reaches_the_test_server(openai_server):
    # As a Celery worker would: a separate interpreter with only the base URL.
    script = (
        "import sys; from grading.llm import EndpointClient, EndpointConfig; "
        "client = EndpointClient(EndpointConfig(base_url=sys.argv[1], model='fake-model')); "
        "print(client.chat([{'role': 'user', 'content': 'What is 5 + 6?'}])[0].text)"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, openai_server.base_url],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )

    assert "\\boxed{11}" in result.stdout
    assert openai_server.state()["requests"] == {"/v1/chat/completions": 1}
