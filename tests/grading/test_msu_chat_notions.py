"""Notions through a chat endpoint: the prompt, and reading what comes back strictly or tolerantly."""

from __future__ import annotations

import json

import pytest

from grading.msu.chat_notions import (
    MAX_REPLY_NOTIONS,
    MAX_SOLUTION_CHARS,
    PROMPT_VERSION,
    ChatNotionExtractor,
    NotionReplyError,
    notion_messages,
    parse_notion_reply,
)
from grading.msu.embedding import HashedNotionEmbedder
from grading.msu.score import msu_score
from tests.msu_fake_endpoint import fake_openai_server, http_chat

SOLUTION = r"By Vieta's formulas the roots sum to $7$, so the answer is $\boxed{7}$."
EXPECTED = ("quadratic equation", "vieta's formulas")


@pytest.mark.parametrize(
    "reply",
    [
        '["Vieta\'s formulas", "quadratic equation"]',
        '```json\n["Vieta\'s formulas", "quadratic equation"]\n```',
        '```\n["Vieta\'s formulas", "quadratic equation"]\n```\nThese are the notions.',
        'Here are the notions: ["Vieta\'s formulas", "quadratic equation"]. Hope this helps!',
        '{"keywords": ["Vieta\'s formulas", "quadratic equation"]}',
        'Sure! {"notions": ["Vieta\'s formulas", "quadratic equation"]}',
        'Step [1]: read the solution. ["Vieta\'s formulas", "quadratic equation"]',
        '```json\n["Vieta\'s formulas", "quadratic equation"]',  # the fence never closes
    ],
    ids=[
        "strict",
        "json-fence",
        "fence-then-text",
        "text-around",
        "keywords-object",
        "notions-object",
        "bracket-before-list",
        "open-fence",
    ],
)
def test_replies_strict_and_tolerant_give_the_same_notions(reply):
    assert parse_notion_reply(reply) == EXPECTED


def test_notions_are_normalised_case_spacing_duplicates_and_list_markers():
    reply = json.dumps(
        [
            "  Vieta’s   Formulas ",
            "vieta's formulas",
            "1. Quadratic equation.",
            "- AM–GM inequality",
            "",
            "   ",
            "x" * 101,
        ]
    )

    assert parse_notion_reply(reply) == (
        "am-gm inequality",
        "quadratic equation",
        "vieta's formulas",
    )


def test_non_string_items_are_skipped_and_numbers_kept_as_text():
    assert parse_notion_reply('["modular arithmetic", 7, null, {"a": 1}, ["x"]]') == (
        "7",
        "modular arithmetic",
    )


def test_an_empty_list_is_no_notions():
    assert parse_notion_reply("[]") == ()
    assert parse_notion_reply('{"keywords": []}') == ()


def test_only_the_first_notions_of_a_rambling_reply_are_kept():
    reply = json.dumps([f"notion {i:03d}" for i in range(MAX_REPLY_NOTIONS + 50)])

    notions = parse_notion_reply(reply)

    assert len(notions) == MAX_REPLY_NOTIONS
    assert notions[-1] == f"notion {MAX_REPLY_NOTIONS - 1:03d}"


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("The solution uses Vieta's formulas and the quadratic formula.", "holds no JSON list"),
        ('{"answer": 7}', "without a list under 'keywords'"),
        ('"vieta"', "not a list of notions"),
        ("[{}, [], null]", "holds no strings"),
        ("", "holds no JSON list"),
    ],
)
def test_a_reply_without_a_list_of_notions_is_an_error_that_quotes_it(reply, message):
    with pytest.raises(NotionReplyError, match=message) as error:
        parse_notion_reply(reply)

    assert repr(reply[:20])[1:-1] in str(error.value)


def test_the_prompt_asks_for_a_json_list_and_carries_the_solution():
    messages = notion_messages(SOLUTION)

    assert [m["role"] for m in messages] == ["system", "user"]
    assert "JSON array of strings" in messages[1]["content"]
    assert messages[1]["content"].endswith(SOLUTION)


def test_a_long_solution_keeps_its_start_and_its_end():
    solution = "START " + "x" * 100_000 + " END"

    prompt = notion_messages(solution)[1]["content"]

    assert "START" in prompt and prompt.endswith(" END") and "[...]" in prompt
    assert len(prompt) < MAX_SOLUTION_CHARS + 1_000


def test_notions_come_from_a_local_endpoint_over_http():
    def reply(messages):
        assert SOLUTION in messages[-1]["content"]
        return 'Here you go:\n```json\n["Quadratic equation", "Vieta\'s formulas"]\n```'

    with fake_openai_server(reply) as endpoint:
        extractor = ChatNotionExtractor(http_chat(endpoint.base_url, "fake-model"), "fake-model")
        notions = extractor.extract(SOLUTION)

    assert notions.notions == EXPECTED
    assert (notions.extractor, notions.extractor_version) == ("llm:fake-model", PROMPT_VERSION)
    assert endpoint.requests[0]["model"] == "fake-model"
    assert endpoint.requests[0]["messages"] == notion_messages(SOLUTION)


def test_an_endpoint_that_answers_prose_raises_and_scores_nothing():
    with fake_openai_server(lambda messages: "I cannot help with that.") as endpoint:
        extractor = ChatNotionExtractor(http_chat(endpoint.base_url, "fake-model"), "fake-model")
        with pytest.raises(NotionReplyError, match="I cannot help with that"):
            extractor.extract(SOLUTION)


def test_an_endpoint_that_finds_no_notions_gives_no_score_with_a_reason():
    extractor = ChatNotionExtractor(lambda messages: "[]", "fake-model")
    human = ChatNotionExtractor(lambda messages: '["modular arithmetic"]', "fake-model")

    result = msu_score(extractor.extract("..."), human.extract("..."), HashedNotionEmbedder())

    assert result.score is None
    assert result.no_score_reason == "no notions were found in the model's solution"
