"""Equivalence of a stated answer and the gold by value: rewrites, structure, the numeric probe."""
