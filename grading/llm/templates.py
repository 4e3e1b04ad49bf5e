"""Prompt templates: the text a problem is put into before it is sent to a model.

A template holds ``{problem}`` where the problem goes. Braces are otherwise left alone, so
LaTeX such as ``\\boxed{}``, ``x^{2}`` or ``\\text{answer}`` can be written as it is; a
stand-alone ``{name}`` that is not ``{problem}`` is refused as a likely typo, with its line
and column, before any request is sent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PLACEHOLDER = "problem"
# A {name} preceded by a letter, digit, backslash, ^, _ or } is a LaTeX argument
# (\text{x}, x^{n}, \frac{a}{b}), not a placeholder.
_PLACEHOLDER = re.compile(r"(?<![\\A-Za-z0-9_^}])\{([A-Za-z_][A-Za-z0-9_]*)\}")


class TemplateError(ValueError):
    """A template that cannot be used, with where and why."""


@dataclass(frozen=True)
class PromptTemplate:
    """A named template, checked when it is made."""

    name: str
    text: str

    def __post_init__(self) -> None:
        if not self.text.strip():
            raise TemplateError(f"template {self.name!r} is empty")
        for match in _PLACEHOLDER.finditer(self.text):
            if match.group(1) != PLACEHOLDER:
                line, column = _position(self.text, match.start())
                raise TemplateError(
                    f"template {self.name!r}, line {line}, column {column}: unknown placeholder "
                    f"{{{match.group(1)}}}; the only placeholder is {{{PLACEHOLDER}}}"
                )
        if not any(m.group(1) == PLACEHOLDER for m in _PLACEHOLDER.finditer(self.text)):
            raise TemplateError(
                f"template {self.name!r} has no {{{PLACEHOLDER}}} placeholder, so every request "
                f"would be the same text; put {{{PLACEHOLDER}}} where the problem goes"
            )

    def render(self, problem: str) -> str:
        """The template with the problem in place of each ``{problem}``."""
        return _PLACEHOLDER.sub(lambda _match: problem, self.text)


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


# MATH-style prompts as Qwen2.5-Math and Math-Verify's evaluation use them.
MATH_TEMPLATE = PromptTemplate(
    name="math",
    text="{problem}\n\nPlease reason step by step, and put your final answer within \\boxed{}.",
)
# MSQA's fixed instruction, appended to each true/false question.
YESNO_TEMPLATE = PromptTemplate(
    name="yesno",
    text="{problem}\nYou must answer the question with YES or NO. Do not include other words.",
)
BUILTIN_TEMPLATES: dict[str, PromptTemplate] = {t.name: t for t in (MATH_TEMPLATE, YESNO_TEMPLATE)}


def template_named(name: str) -> PromptTemplate:
    """A ready-made template by name (``math``, ``yesno``)."""
    try:
        return BUILTIN_TEMPLATES[name]
    except KeyError:
        raise TemplateError(
            f"no ready-made template {name!r}; choose one of {', '.join(BUILTIN_TEMPLATES)} "
            "or write your own with a {problem} placeholder"
        ) from None


def chat_messages(
    template: PromptTemplate, problem: str, system_prompt: str = ""
) -> tuple[dict[str, str], ...]:
    """The messages of one request: the system prompt if any, then the rendered problem."""
    user = {"role": "user", "content": template.render(problem)}
    if system_prompt.strip():
        return ({"role": "system", "content": system_prompt}, user)
    return (user,)
