"""Units of measure: which quantity a unit measures, and the unit a question asks for.

An answer given in another unit than the question asks ("1000 cm³" where it asks for liters,
"150 cm" for meters) may be the right quantity or a slip; either way a person should look.
Only a small table of common units: length, area, volume, mass, time, speed, money, angle,
and the electrical and mechanical units of science questions (amperes, volts, watts, joules,
pascals) with their prefixes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Unit:
    name: str  # the canonical spelling
    dimension: str


# spelling -> canonical unit, grouped by dimension; longer spellings are tried first.
_UNITS: dict[str, tuple[str, tuple[str, ...]]] = {
    # canonical: (dimension, spellings)
    "mm": ("length", ("mm", "millimeter", "millimeters", "millimetre", "millimetres")),
    "cm": ("length", ("cm", "centimeter", "centimeters", "centimetre", "centimetres")),
    "m": ("length", ("m", "meter", "meters", "metre", "metres")),
    "km": ("length", ("km", "kilometer", "kilometers", "kilometre", "kilometres")),
    "in": ("length", ("inch", "inches")),
    "ft": ("length", ("ft", "foot", "feet")),
    "yd": ("length", ("yd", "yard", "yards")),
    "mi": ("length", ("mile", "miles")),
    "cm2": ("area", ("cm^2", "cm^{2}", "cm²", "square centimeters", "square centimetres")),
    "m2": ("area", ("m^2", "m^{2}", "m²", "square meters", "square metres")),
    "km2": ("area", ("km^2", "km^{2}", "km²", "square kilometers", "square kilometres")),
    "ft2": ("area", ("ft^2", "ft^{2}", "ft²", "square feet")),
    "ml": ("volume", ("ml", "milliliter", "milliliters", "millilitre", "millilitres")),
    "l": ("volume", ("l", "liter", "liters", "litre", "litres")),
    "cm3": ("volume", ("cm^3", "cm^{3}", "cm³", "cubic centimeters", "cubic centimetres")),
    "m3": ("volume", ("m^3", "m^{3}", "m³", "cubic meters", "cubic metres")),
    "gal": ("volume", ("gallon", "gallons")),
    "mg": ("mass", ("mg", "milligram", "milligrams")),
    "g": ("mass", ("g", "gram", "grams")),
    "kg": ("mass", ("kg", "kilogram", "kilograms")),
    "lb": ("mass", ("lb", "lbs", "pound", "pounds")),
    "oz": ("mass", ("oz", "ounce", "ounces")),
    "s": ("time", ("s", "sec", "second", "seconds")),
    "min": ("time", ("min", "mins", "minute", "minutes")),
    "h": ("time", ("h", "hr", "hrs", "hour", "hours")),
    "day": ("time", ("day", "days")),
    "week": ("time", ("week", "weeks")),
    "year": ("time", ("year", "years")),
    "m/s": ("speed", ("m/s", "meters per second", "metres per second", "m s^{-1}")),
    "km/h": ("speed", ("km/h", "kph", "km/hr", "kilometers per hour", "kilometres per hour")),
    "mph": ("speed", ("mph", "mi/h", "miles per hour")),
    "ft/s": ("speed", ("ft/s", "feet per second")),
    "A": ("current", ("A", "amp", "amps", "ampere", "amperes")),
    "mA": ("current", ("mA", "milliamp", "milliamps", "milliampere", "milliamperes")),
    "V": ("voltage", ("V", "volt", "volts")),
    "mV": ("voltage", ("mV", "millivolt", "millivolts")),
    "kV": ("voltage", ("kV", "kilovolt", "kilovolts")),
    "W": ("power", ("W", "watt", "watts")),
    "mW": ("power", ("mW", "milliwatt", "milliwatts")),
    "kW": ("power", ("kW", "kilowatt", "kilowatts")),
    "J": ("energy", ("J", "joule", "joules")),
    "kJ": ("energy", ("kJ", "kilojoule", "kilojoules")),
    "Pa": ("pressure", ("Pa", "pascal", "pascals")),
    "kPa": ("pressure", ("kPa", "kilopascal", "kilopascals")),
    "MPa": ("pressure", ("MPa", "megapascal", "megapascals")),
    "cent": ("money", ("cent", "cents", "¢")),
    "dollar": ("money", ("dollar", "dollars", "$", "\\$")),
    "deg": ("angle", ("degree", "degrees", "°", "^\\circ", "^{\\circ}")),
    "rad": ("angle", ("radian", "radians")),
}
_SPELLINGS = sorted(
    (
        (spelling, canonical)
        for canonical, (_, spellings) in _UNITS.items()
        for spelling in spellings
    ),
    key=lambda pair: -len(pair[0]),
)
_BY_SPELLING = dict(_SPELLINGS)
_SPELLING_RE = "|".join(re.escape(spelling) for spelling, _ in _SPELLINGS)
# The unit a question asks for: "in square meters", "how many liters", "in degrees".
_ASKED = re.compile(
    rf"(?:\bin\s+(?:units\s+of\s+)?|\bhow\s+(?:many|much)\s+)(?P<unit>{_SPELLING_RE})(?![A-Za-z])",
    re.IGNORECASE,
)
# A unit right after a number in an answer: "12 cm", "1000 cm³", "100π cm²", "5√3 cm";
# "$12" is money.
_AFTER_NUMBER = re.compile(
    rf"\d\s*(?:(?:\\pi|π|\\sqrt\{{\d+\}}|√\d+)\s*)?(?P<unit>{_SPELLING_RE})(?![A-Za-z])",
    re.IGNORECASE,
)

_DOLLARS_BEFORE_NUMBER = re.compile(r"\$\s*\d")
# "10 dollars 50 cents", "3 dollars and 5 cents": one amount
DOLLARS_AND_CENTS = re.compile(r"(\d+)\s*dollars?,?\s*(?:and\s+)?(\d{1,2})\s*cents?\b", re.I)
# LaTeX around a unit ("60 \\text{ km/h}", "5\\,\\mathrm{cm}"): its words stay, the commands go.
_TEXT_COMMAND = re.compile(r"\\(?:text|mathrm|mbox|textrm|,|\s)\s*(?:\{([^{}]*)\})?")


def unit_named(spelling: str) -> Unit | None:
    canonical = _BY_SPELLING.get(spelling) or _BY_SPELLING.get(spelling.lower())
    if canonical is None:
        return None
    return Unit(canonical, _UNITS[canonical][0])


# Read once per problem: a run grades several outputs of each.
@lru_cache(maxsize=1024)
def asked_unit(problem: str) -> Unit | None:
    """The unit the question asks its answer in, from its last sentences; None when it names
    none (or names an ambiguous one-letter unit only in passing)."""
    request = problem[-400:]
    return _last_unit(m.group("unit") for m in _ASKED.finditer(request))


def stated_unit(answer: str) -> Unit | None:
    """The unit an answer gives after its number, if it is one this table knows."""
    answer = _TEXT_COMMAND.sub(r"\1", answer[-200:])  # "60 \\text{ km/h}"
    if DOLLARS_AND_CENTS.search(answer):
        return unit_named("dollar")  # "99 dollars and 12 cents" is an amount in dollars
    found = _last_unit(m.group("unit") for m in _AFTER_NUMBER.finditer(answer))
    if found is None and _DOLLARS_BEFORE_NUMBER.search(answer):
        return unit_named("$")  # "$2.05" where cents were asked
    return found


def _last_unit(spellings: Iterable[str]) -> Unit | None:
    """The last of the spellings that names a unit: the patterns match case-insensitively, so
    "in a week" matches the spelling of amperes, "A", which names none in lower case."""
    units = [unit for unit in map(unit_named, spellings) if unit is not None]
    return units[-1] if units else None


def other_unit_than_asked(problem: str, answer: str) -> bool:
    """True when the answer states a unit of the asked quantity, but not the asked unit."""
    asked, stated = asked_unit(problem), stated_unit(answer)
    return (
        asked is not None
        and stated is not None
        and asked.dimension == stated.dimension
        and asked.name != stated.name
    )
