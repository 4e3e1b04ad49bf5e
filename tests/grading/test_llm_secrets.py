"""An API key given to the endpoint client never shows in an error, a log record or a repr."""

from __future__ import annotations

import logging
import pickle
import traceback

import pytest

from grading.llm import EndpointClient, EndpointConfig, EndpointError, ErrorKind, RetryPolicy

KEY = "sk-test-7f3a9c1e5b2d4f6a8c0e"
QUESTION = ({"role": "user", "content": "What is 1 + 1?"},)


def test_the_key_is_sent_to_the_server(openai_server):
    openai_server.configure(api_key=KEY)
    config = EndpointConfig(base_url=openai_server.base_url, model="fake-model", api_key=KEY)

    with EndpointClient(config) as client:
        assert client.list_models() == ("fake-model",)


def test_a_wrong_key_echoed_by_the_server_is_redacted_from_the_error(openai_server):
    openai_server.configure(api_key="sk-the-right-one")
    config = EndpointConfig(base_url=openai_server.base_url, model="fake-model", api_key=KEY)

    with EndpointClient(config) as client, pytest.raises(EndpointError) as caught:
        client.chat(QUESTION)

    error = caught.value
    assert error.kind is ErrorKind.AUTHENTICATION
    assert error.attempts == 1  # a wrong key is not retried
    assert "Incorrect API key provided: [redacted]" in str(error)
    assert KEY not in "".join(traceback.format_exception(error))
    restored = pickle.loads(pickle.dumps(error))
    assert (str(restored), restored.kind, restored.attempts) == (str(error), error.kind, 1)


def test_no_log_record_contains_the_key_through_retries_and_failure(openai_server, caplog):
    caplog.set_level(logging.DEBUG)
    echo = {"status": 500, "message": f"upstream refused key {KEY}"}
    openai_server.fail_next(echo, {"drop": True}, echo, echo)
    config = EndpointConfig(base_url=openai_server.base_url, model="fake-model", api_key=KEY)

    with EndpointClient(config, RetryPolicy(max_attempts=4, base_delay=0.01)) as client:
        with pytest.raises(EndpointError) as caught:
            client.chat(QUESTION)

    assert KEY not in str(caught.value)
    retries = [r for r in caplog.records if r.name == "grading.llm.endpoint"]
    assert len(retries) == 3
    assert any(r.name.startswith("openai") for r in caplog.records), "debug logs were captured"
    for record in caplog.records:
        assert KEY not in record.getMessage()
        assert KEY not in str(record.args)


def test_reprs_leave_out_the_key(openai_server):
    config = EndpointConfig(base_url=openai_server.base_url, model="fake-model", api_key=KEY)

    with EndpointClient(config) as client:
        for text in (repr(config), repr(client), str(config)):
            assert KEY not in text
            assert "fake-model" in text


def test_a_password_in_the_url_is_refused_without_repeating_it():
    # HTTP libraries log request URLs whole, password included.
    with pytest.raises(ValueError) as caught:
        EndpointConfig(base_url="http://admin:hunter2-password@127.0.0.1:8000/v1", model="m")

    assert "carries a user name or password" in str(caught.value)
    assert "hunter2-password" not in str(caught.value)
