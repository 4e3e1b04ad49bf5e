"""The model's own reply, without the turns a model goes on to write after it.

A chat model's reply ends at its end-of-turn token; what follows is a turn it made up. Under a
few-shot prompt a base model answers, then keeps generating in the prompt's pattern: a
new "Q:" or "Problem:" with its own working and its own "The answer is …", or a "Human:" turn.
Evaluation harnesses cut the output at such stop sequences before grading (lm-eval-harness's
``until``); a grader that reads the whole text takes the invented problem's answer for the
model's. The cut is made only where the reply before it has said something a value can be read
from (a digit or an answer word), so an output that opens by restating "Problem: …" keeps it.
"""

from __future__ import annotations

import re

from grading.types import Sample

# Tokens that end a chat turn: what follows one ("<|im_start|>user …") is a turn the model made
# up. Found with ``str.find``, so a 200 MB output costs milliseconds.
END_OF_TURN_TOKENS = (
    "<|im_end|>",
    "<|im_start|>",
    "<|endoftext|>",
    "<|eot_id|>",
    "<|end_of_turn|>",
    "<|end|>",
    "</s>",
    "<end_of_turn>",
)
# A new turn of a few-shot prompt's pattern, on a line of its own, in the prompt's own spelling
# (case-sensitive: twice as fast, and a prompt's labels are capitalised).
_NEW_TURN = re.compile(
    r"\n[ \t]*(?:Q ?:|(?:Question|QUESTION|Problem|PROBLEM|Exercise)\s*\d*\s*:|Human\s*:"
    r"|User\s*:|Instruction\s*:|#{1,4}\s*(?:Instruction|Question|Problem|Human|User)\b)"
)
_SAYS_SOMETHING = re.compile(r"\d|\b(?:answer|yes|no|true|false)\b", re.IGNORECASE)
_REASKED_REACH = 400
_SPACE = re.compile(r"\s+")


def own_reply(output: str, problem: str = "") -> str:
    """``output`` up to the first end-of-turn token, and then up to the first new turn that
    follows something a value can be read from. A turn that asks the same problem again is
    not cut: its answer is a second answer to it."""
    if "<|" in output or "</s>" in output or "<end_of_turn>" in output:
        found = [i for i in (output.find(token) for token in END_OF_TURN_TOKENS) if i > 0]
        end = min(found, default=-1)
        if end > 0 and not output[:end].isspace():
            output = output[:end]
    # "Question: …" in a reasoning block is no turn; in one never closed, nothing is
    thinking_ends = output.rfind("</think>")
    if thinking_ends < 0 and "<think>" in output:
        return output
    for turn in _NEW_TURN.finditer(output, max(0, thinking_ends)):
        if _SAYS_SOMETHING.search(output, 0, turn.start()):
            if _asks_again(problem, output[turn.end() : turn.end() + _REASKED_REACH]):
                return output
            return output[: turn.start()]
    return output


def _asks_again(problem: str, turn: str) -> bool:
    """The turn opens with the problem's own first words (its first 60 characters)."""
    opening = _SPACE.sub(" ", problem.strip())[:60]
    return len(opening) >= 20 and opening in _SPACE.sub(" ", turn)


def without_continuation(sample: Sample) -> Sample:
    """``sample`` with its output cut at the model's first invented turn (itself when none).
    A reply cut there had finished, whatever ended the generation later."""
    reply = own_reply(sample.output, sample.problem)
    if len(reply) == len(sample.output):
        return sample
    return Sample(sample.gold, reply, "", sample.problem)
