"""Units of measure: which quantity a unit measures, and the unit a question asks for.

An answer given in another unit than the question asks ("1000 cm³" where it asks for liters,
"150 cm" for meters) may be the right quantity or a slip; either way a person should look.
Only a small table of common units: length, area, volume, mass, time, speed, money, angle,
and the electrical and mechanical units of science questions (amperes, volts, watts, joules,
pascals) with their prefixes.
"""

from __future__ import annotations

import re
from collections import Counter
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
    "ft2": ("area", ("ft^2", "ft^{2}", "ft²", "square feet", "square foot", "sq ft")),
    "yd2": ("area", ("yd^2", "yd^{2}", "yd²", "square yards", "square yard", "sq yd")),
    "in2": ("area", ("in^2", "in^{2}", "in²", "square inches", "square inch", "sq in")),
    "mi2": ("area", ("mi^2", "mi^{2}", "mi²", "square miles", "square mile")),
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


# Units as products of base units, for converting a measured value between prefixes and units
# of one quantity ("100 MHz" is 1.00 × 10^8 Hz; "2.70 g/cm³" is 2700 kg/m³; "4.0 mM" is
# 0.0040 M). Each symbol is a factor times powers of base units.
_BASE_SYMBOLS: dict[str, tuple[float, tuple[tuple[str, int], ...]]] = {
    "g": (1.0, (("g", 1),)),
    "m": (1.0, (("m", 1),)),
    "s": (1.0, (("s", 1),)),
    "min": (60.0, (("s", 1),)),
    "h": (3600.0, (("s", 1),)),
    "d": (86400.0, (("s", 1),)),
    "week": (604800.0, (("s", 1),)),
    "in": (0.0254, (("m", 1),)),  # the imperial units, exactly as defined in metres and grams
    "ft": (0.3048, (("m", 1),)),
    "yd": (0.9144, (("m", 1),)),
    "mi": (1609.344, (("m", 1),)),
    "mph": (0.44704, (("m", 1), ("s", -1))),
    "lb": (453.59237, (("g", 1),)),
    "oz": (28.349523125, (("g", 1),)),
    "gal": (3.785411784e-3, (("m", 3),)),
    "L": (1e-3, (("m", 3),)),
    "l": (1e-3, (("m", 3),)),
    "mol": (1.0, (("mol", 1),)),
    "M": (1e3, (("mol", 1), ("m", -3))),  # molar: mol/L
    "Hz": (1.0, (("s", -1),)),
    "J": (1.0, (("J", 1),)),
    "Wh": (3600.0, (("J", 1),)),
    "eV": (1.602176634e-19, (("J", 1),)),
    "W": (1.0, (("J", 1), ("s", -1))),
    "N": (1.0, (("N", 1),)),
    "Pa": (1.0, (("N", 1), ("m", -2))),
    "bar": (1e5, (("N", 1), ("m", -2))),
    "V": (1.0, (("V", 1),)),
    "A": (1.0, (("A", 1),)),
    "C": (1.0, (("A", 1), ("s", 1))),
    "F": (1.0, (("F", 1),)),
    "Ω": (1.0, (("V", 1), ("A", -1))),
}
_PREFIXES = {
    "T": 1e12, "G": 1e9, "M": 1e6, "k": 1e3, "h": 1e2, "c": 1e-2, "m": 1e-3,
    "µ": 1e-6, "μ": 1e-6, "u": 1e-6, "n": 1e-9, "p": 1e-12,
}  # fmt: skip
# Units that take no prefix: "min" is minutes, not a milli-"in"; "h" and "d" are hours and days.
_UNPREFIXED = frozenset(("min", "h", "d"))
_POWER = re.compile(r"\^\s*\{?\s*(-?\d)\s*\}?|([²³])|⁻¹")
_PER = re.compile(r"\s+per\s+")
_UNIT_FACTOR = re.compile(r"\s*(?:[*·⋅.]|\\cdot)\s*|\s+")


def measure(unit_text: str) -> tuple[float, frozenset] | None:
    """``unit_text`` as a factor and the powers of base units it stands for, or None when
    a part of it is not a unit this table knows ("atoms", "apples")."""
    text = unit_text.replace("\\,", " ").replace("\\text", "").replace("{", "").replace("}", "")
    text = text.replace("\\mu ", "µ").replace("\\mu", "µ").replace("\\Omega", "Ω").strip()
    text = _PER.sub("/", text)  # "meters per minute"
    if not text or len(text) > 20:
        return None
    factor, powers = 1.0, Counter[str]()
    for index, part in enumerate(text.split("/")):
        sign = 1 if index == 0 else -1
        for token in filter(None, _UNIT_FACTOR.split(part.strip())):
            read = _token(token)
            if read is None:
                return None
            token_factor, token_powers = read
            factor *= token_factor**sign
            for base, power in token_powers.items():
                powers[base] += sign * power
    return factor, frozenset((base, power) for base, power in powers.items() if power)


def _token(token: str) -> tuple[float, Counter] | None:
    exponent = 1
    power = _POWER.search(token)
    if power is not None:
        exponent = (
            int(power.group(1)) if power.group(1) else {"²": 2, "³": 3}.get(power.group(2), -1)
        )
        token = token[: power.start()]
    read = _symbol(token) or _named(token)
    if read is None:
        return None
    factor, bases = read
    return factor**exponent, Counter({base: power * exponent for base, power in bases})


def _symbol(symbol: str) -> tuple[float, tuple[tuple[str, int], ...]] | None:
    symbol = _CANONICAL_SYMBOLS.get(symbol, symbol)
    if symbol in _BASE_SYMBOLS:
        return _BASE_SYMBOLS[symbol]
    prefix, base = symbol[:1], symbol[1:]
    if prefix in _PREFIXES and base in _BASE_SYMBOLS and base not in _UNPREFIXED:
        factor, bases = _BASE_SYMBOLS[base]
        return _PREFIXES[prefix] * factor, bases
    return None


def _named(word: str) -> tuple[float, tuple[tuple[str, int], ...]] | None:
    """A unit by its name: "joules", "kilometres", "nanometers", "megahertz"."""
    named = unit_named(word)
    if named is not None:
        return _symbol(named.name)
    lowered = word.lower()
    for prefix_word, prefix in _PREFIX_WORDS.items():
        if lowered.startswith(prefix_word) and len(lowered) > len(prefix_word):
            rest = lowered[len(prefix_word) :]
            rest = "o" + rest if rest.startswith("hm") else rest  # "kilohms", "megohm"
            base = unit_named(rest)
            symbol = base.name if base is not None else _SCIENCE_NAMES.get(rest.rstrip("s"))
            return _symbol(prefix + symbol) if symbol else None
    symbol = _SCIENCE_NAMES.get(lowered.rstrip("s"))
    return _symbol(symbol) if symbol else None


_PREFIX_WORDS = {
    "tera": "T", "giga": "G", "mega": "M", "kilo": "k", "centi": "c", "milli": "m",
    "micro": "µ", "nano": "n", "pico": "p",
}  # fmt: skip
# Names the table of units above does not hold, without a plural "s".
_SCIENCE_NAMES = {
    "hertz": "Hz", "newton": "N", "coulomb": "C", "farad": "F", "ohm": "Ω", "molar": "M",
    "mole": "mol", "electronvolt": "eV", "watt-hour": "Wh", "watt hour": "Wh",
}  # fmt: skip
# Canonical names of the table above that are not the symbols of this one.
_CANONICAL_SYMBOLS = {"ml": "mL", "sec": "s", "hr": "h", "day": "d"}


_IN_UNIT = re.compile(r"\b(?:in|into|to)\s+(?:units\s+of\s+)?([^\s,.?;:()$]+)")


def named_unit(question: str) -> str:
    """The unit the question asks its answer in ("Express it in nanometers", "in kJ"), in
    its last sentences; empty when it names none."""
    return next((m.group(1) for m in _IN_UNIT.finditer(question[-300:]) if measure(m.group(1))), "")


def conversion_factor(from_unit: str, to_unit: str) -> float | None:
    """What a value in ``from_unit`` is multiplied by to be in ``to_unit``; None unless both
    are units of one quantity."""
    source, target = measure(from_unit), measure(to_unit)
    if source is None or target is None or source[1] != target[1] or not source[1]:
        return None
    return source[0] / target[0]


def base_unit(unit_text: str) -> str:
    """The unit without a scientific prefix ("TJ" → "J", "MHz" → "Hz", "ns" → "s"); the unit
    itself otherwise, and for the everyday ones ("cm", "km", "mg"), in which values are given
    as often as in the base unit."""
    read = measure(unit_text)
    if read is None or unit_text.strip()[:1] not in _SCIENTIFIC_PREFIXES:
        return unit_text
    bases = (symbol for symbol in _BASE_SYMBOLS if measure(symbol) == (1.0, read[1]))
    return next(bases, unit_text)


_SCIENTIFIC_PREFIXES = frozenset("TGMµμunp")
