"""Evaluators: named, versioned, configurable functions from (gold, output) to an Evaluation.

Each evaluator module registers a factory here. Evaluators keep their own caches (a parsed
gold, a compared pair), so a long-lived process grades repeated answers once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from importlib import import_module
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from grading.types import Evaluation, Sample

if TYPE_CHECKING:
    from grading.candidates import Candidates


class Evaluator(Protocol):
    """Grades a gold and an output; ``answer_check`` is a ContextEvaluator instead."""

    name: str
    version: str

    def evaluate(self, gold: str, output: str) -> Evaluation:
        """Grade ``output`` against ``gold``; never raises for bad input, returns a status."""
        ...


@runtime_checkable
class ContextEvaluator(Protocol):
    """An evaluator that reads more than the gold and output: the output's candidate answers
    and the evaluations that ran before it (``answer_check``)."""

    name: str
    version: str

    def evaluate_in_context(
        self, sample: Sample, candidates: Candidates, evaluations: tuple[Evaluation, ...]
    ) -> Evaluation: ...


class TimedEvaluator:
    """Base of our evaluators: ``_evaluate`` returns the Evaluation's fields; this names and
    times it, so every evaluator reports its milliseconds the same way."""

    name: str
    version: str

    def evaluate(self, gold: str, output: str) -> Evaluation:
        started = time.perf_counter()
        fields = self._evaluate(gold, output)
        return Evaluation(
            evaluator=self.name,
            version=self.version,
            ms=(time.perf_counter() - started) * 1000,
            **fields,
        )

    def _evaluate(self, gold: str, output: str) -> dict:
        raise NotImplementedError


class UnknownEvaluatorError(ValueError):
    pass


# name -> "module:factory". Factories take keyword options and return an Evaluator.
_FACTORIES: dict[str, str] = {
    "answer_check": "grading.evaluators.answer_check:AnswerCheck",
    "math_verify": "grading.evaluators.mathverify:MathVerify",
    "math_verify_strict": "grading.evaluators.mathverify:MathVerifyStrict",
    "strict": "grading.evaluators.xwin:XwinStrict",
    "flex": "grading.evaluators.xwin:XwinFlex",
    "exact": "grading.evaluators.exact:ExactMatch",
    "choice": "grading.evaluators.choice:ChoiceMatch",
}

AVAILABLE: tuple[str, ...] = tuple(_FACTORIES)
DEFAULT_EVALUATORS: tuple[str, ...] = AVAILABLE


def _factory(name: str) -> Callable[..., Evaluator]:
    try:
        module_name, attr = _FACTORIES[name].split(":")
    except KeyError:
        raise UnknownEvaluatorError(
            f"unknown evaluator {name!r}; available: {', '.join(AVAILABLE)}"
        ) from None
    return getattr(import_module(module_name), attr)


def build_evaluators(
    names: Sequence[str] = DEFAULT_EVALUATORS, options: dict[str, dict] | None = None
) -> tuple[Evaluator, ...]:
    """Instantiate evaluators by name, with per-evaluator keyword options."""
    options = options or {}
    unknown = [n for n in names if n not in _FACTORIES]
    if unknown:
        raise UnknownEvaluatorError(
            f"unknown evaluator(s) {', '.join(unknown)}; available: {', '.join(AVAILABLE)}"
        )
    return tuple(_factory(name)(**options.get(name, {})) for name in names)
