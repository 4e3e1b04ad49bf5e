"""Golds checked against the answer their own problem determines (grading.recompute)."""

import pytest

from grading.recompute import contradicts


@pytest.mark.parametrize(
    ("gold", "problem", "expected"),
    [
        ("1", "Find the remainder when $100!$ is divided by $101$.", True),
        ("100", "Find the remainder when $100!$ is divided by $101$.", False),
        ("-x+3", "Find the remainder when $x^3+2$ is divided by $x^2+1$.", True),
        ("2-x", "Find the remainder when $x^3+2$ is divided by $x^2+1$.", False),
        ("f^{-1}(x)=\\frac{x+8}{4}", "Find $f^{-1}(x)$ if $f(x) = 4x - 8$.", False),
        ("\\sqrt{x}", "Find the inverse of $f(x) = x^2$.", False),
        ("450", "What is the least common multiple of 90 and 150?", False),
        ("900", "What is the least common multiple of 90 and 150?", True),
    ],
)
def test_the_problems_own_answer_decides(gold, problem, expected):
    assert contradicts(gold, problem) is expected


@pytest.mark.parametrize(
    "problem",
    [
        "Find the remainder when $(10^{9})!$ is divided by $7$.",  # hours to evaluate exactly
        "Find the remainder when $2^{2^{100}}$ is divided by $7$.",
        "Compute $0.\\overline{3} + 0.\\overline{6}$.",  # SymPy reads the bar away
        "Compute $47_8 + 36_8$. Express your answer in base 8.",
        "Evaluate $\\log_3 27 \\cdot \\log_{27} 3$.",  # the product read into the log
        "Compute $\\sqrt{(31)(30)(29)(28)+1}$.",
    ],
)
def test_what_sympy_would_misread_or_take_hours_over_is_left_alone(problem):
    assert contradicts("1", problem) is False
