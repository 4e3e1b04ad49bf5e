"""The error a file that cannot be used raises."""

from __future__ import annotations


class IngestError(ValueError):
    """The file cannot be imported; ``problems`` says what is wrong and on which line."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))
