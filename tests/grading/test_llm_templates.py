"""Prompt templates: the ready-made ones, custom ones checked up front, LaTeX braces kept."""

from __future__ import annotations

import pytest

from grading.llm import (
    BUILTIN_TEMPLATES,
    MATH_TEMPLATE,
    YESNO_TEMPLATE,
    PromptTemplate,
    TemplateError,
    chat_messages,
    template_named,
)


def test_the_math_template_asks_for_a_boxed_answer():
    prompt = MATH_TEMPLATE.render("Compute $\\frac{1}{2} + \\frac{1}{3}$.")

    assert prompt == (
        "Compute $\\frac{1}{2} + \\frac{1}{3}$.\n\n"
        "Please reason step by step, and put your final answer within \\boxed{}."
    )


def test_the_yesno_template_appends_msqas_instruction():
    prompt = YESNO_TEMPLATE.render("Is 91 a prime number?")

    assert prompt == (
        "Is 91 a prime number?\n"
        "You must answer the question with YES or NO. Do not include other words."
    )


def test_ready_made_templates_are_found_by_name():
    assert set(BUILTIN_TEMPLATES) == {"math", "yesno"}
    assert template_named("yesno") is YESNO_TEMPLATE
    with pytest.raises(TemplateError, match="no ready-made template 'gsm8k'; choose one of math"):
        template_named("gsm8k")


def test_a_custom_template_keeps_latex_braces_and_fills_every_placeholder():
    template = PromptTemplate(
        name="custom",
        text="Problem: {problem}\nWrite \\text{Answer: } then $x^{2}$, $\\frac{a}{b}$, "
        "\\boxed{}.\nAgain: {problem}",
    )

    prompt = template.render("Find $x$ if $x^{n} = {n}$.")

    assert prompt == (
        "Problem: Find $x$ if $x^{n} = {n}$.\nWrite \\text{Answer: } then $x^{2}$, "
        "$\\frac{a}{b}$, \\boxed{}.\nAgain: Find $x$ if $x^{n} = {n}$."
    )


def test_a_problem_containing_backslashes_is_inserted_as_it_is():
    assert MATH_TEMPLATE.render("\\1 \\g<0> \\n").startswith("\\1 \\g<0> \\n\n\n")


def test_an_unknown_placeholder_is_refused_with_its_line_and_column():
    with pytest.raises(TemplateError) as caught:
        PromptTemplate(name="mine", text="Solve this.\nQuestion: {question}\n{problem}")

    assert str(caught.value) == (
        "template 'mine', line 2, column 11: unknown placeholder {question}; "
        "the only placeholder is {problem}"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Solve the problem step by step.", "has no {problem} placeholder"),
        ("Answer \\text{problem} here.", "has no {problem} placeholder"),
        ("   \n", "is empty"),
    ],
)
def test_a_template_without_a_problem_placeholder_is_refused(text, message):
    with pytest.raises(TemplateError, match=message):
        PromptTemplate(name="mine", text=text)


def test_messages_carry_the_system_prompt_when_one_is_given():
    assert chat_messages(YESNO_TEMPLATE, "Is 2 even?") == (
        {"role": "user", "content": YESNO_TEMPLATE.render("Is 2 even?")},
    )
    assert chat_messages(MATH_TEMPLATE, "1+1?", "You are a careful mathematician.") == (
        {"role": "system", "content": "You are a careful mathematician."},
        {"role": "user", "content": MATH_TEMPLATE.render("1+1?")},
    )
