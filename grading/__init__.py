"""MathJury's grading engine: plain Python, no Django. See docs/architecture.md."""
