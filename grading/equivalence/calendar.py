"""Dates, clock times, weekdays and durations, as outputs and golds write them in several
languages: "February 14, 2023", "2023-02-14", "9 de junio de 2023", "4:15 AM on Wednesday",
"下午4点35分", "Samstag", "1 day, 2 hours and 50 minutes". A gold of one of these kinds is
compared by what it names, not as mathematics ("5:30" is no ratio, "2023-02-14" no difference).
"""

from __future__ import annotations

import re
from functools import lru_cache

_WEEKDAY_NAMES = (
    ("monday", "mon", "montag", "lundi", "lunes", "segunda-feira", "segunda", "lunedì", "понедельник", "星期一", "周一", "月曜日"),
    ("tuesday", "tue", "tues", "dienstag", "mardi", "martes", "terça-feira", "terça", "martedì", "вторник", "星期二", "周二", "火曜日"),
    ("wednesday", "wed", "mittwoch", "mercredi", "miércoles", "quarta-feira", "quarta", "mercoledì", "среда", "星期三", "周三", "水曜日"),
    ("thursday", "thu", "thur", "thurs", "donnerstag", "jeudi", "jueves", "quinta-feira", "quinta", "giovedì", "четверг", "星期四", "周四", "木曜日"),
    ("friday", "fri", "freitag", "vendredi", "viernes", "sexta-feira", "sexta", "venerdì", "пятница", "星期五", "周五", "金曜日"),
    ("saturday", "sat", "samstag", "samedi", "sábado", "sabato", "суббота", "星期六", "周六", "土曜日"),
    ("sunday", "sun", "sonntag", "dimanche", "domingo", "domenica", "воскресенье", "星期日", "星期天", "周日", "日曜日"),
)  # fmt: skip
_MONTH_NAMES = (
    ("january", "jan", "januar", "janvier", "enero", "janeiro", "gennaio"),
    ("february", "feb", "februar", "février", "febrero", "fevereiro", "febbraio"),
    ("march", "mar", "märz", "mars", "marzo", "março"),
    ("april", "apr", "avril", "abril", "aprile"),
    ("may", "mai", "mayo", "maio", "maggio"),
    ("june", "jun", "juni", "juin", "junio", "junho", "giugno"),
    ("july", "jul", "juli", "juillet", "julio", "julho", "luglio"),
    ("august", "aug", "août", "agosto"),
    ("september", "sep", "sept", "septembre", "septiembre", "setembro", "settembre"),
    ("october", "oct", "oktober", "octobre", "octubre", "outubro", "ottobre"),
    ("november", "nov", "novembre", "noviembre", "novembro"),
    ("december", "dec", "dezember", "décembre", "diciembre", "dezembro", "dicembre"),
)  # fmt: skip
_WEEKDAY = {name: day for day, names in enumerate(_WEEKDAY_NAMES) for name in names}
_MONTH = {name: month for month, names in enumerate(_MONTH_NAMES, 1) for name in names}


def _alternation(names: dict[str, int]) -> str:
    return "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))


_WEEKDAY_WORD = re.compile(rf"(?<![^\W\d_])(?:{_alternation(_WEEKDAY)})(?![^\W\d_])\.?", re.I)
_MONTH_WORD = rf"(?:{_alternation(_MONTH)})\.?"
# LaTeX around a date or time: "2023\text{-}02\text{-}14", "\text{4:15 PM}", "$17{:}30$".
_MARKUP = re.compile(r"\\text\s*\{([^{}]*)\}|\\mathrm\s*\{([^{}]*)\}|[{}$*]|\\[,;! ]")
_DATES = (
    # 2023-02-14, 2023/2/14
    (re.compile(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})"), ("y", "m", "d")),
    # February 14, 2023; Feb. 14th 2023
    (re.compile(rf"({_MONTH_WORD})\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?", re.I), ("M", "d", "y")),
    # 14 February 2023; 1. Januar 2000; 9 de junio de 2023; le 14 février 2023
    (re.compile(rf"(\d{{1,2}})(?:st|nd|rd|th|\.|º|er)?\s+(?:de\s+)?({_MONTH_WORD})(?:,?\s+(?:de\s+)?(\d{{4}}))?", re.I), ("d", "M", "y")),
    # 2023年2月14日
    (re.compile(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*日"), ("y", "m", "d")),
    # 06/06/2024: month first or day first
    (re.compile(r"(\d{1,2})[/.](\d{1,2})[/.](\d{4})"), ("a", "b", "y")),
)  # fmt: skip
_CLOCK = re.compile(
    r"(?<![\d.:])(\d{1,2})\s*(?::|h|(?<=\d)\.(?=\d{2}\s*[ap]\.?\s*m))\s*(\d{2})(?::(\d{2}))?"
    r"(?!\s*(?:[/:]\d|(?:hours?|h|min)\b))\s*(?:([ap])\.?\s*m\b\.?)?",
    re.I,
)
# A whole hour with its half of the day: "8 PM", "11 a.m."
_HOUR_OF_DAY = re.compile(r"(?<![\d.:])(\d{1,2})()()\s*([ap])\.?\s*m\b\.?", re.I)
_CHINESE_CLOCK = re.compile(
    r"(上午|早上|凌晨|中午|下午|晚上)?\s*(\d{1,2})\s*[点點時时]\s*(?:(\d{1,2})\s*分|半)?"
)
_AFTERNOON = ("中午", "下午", "晚上")
# Words around a date or a time that name neither: "on Friday", "el viernes", "um 16 Uhr".
_DATE_WORDS = re.compile(r"^\s*(?:on|the|el|le|der|den|am|o|a)\s+|\s+(?:de|del)\s+(?=\d{4})", re.I)
_CLOCK_WORDS = re.compile(
    r"\b(?:on|at|um|à|a las|às|le|el)\b|[,(）)（]|\bUhr\b|\bhoras?\b|\bheures?\b", re.I
)
# A gold on the 24-hour clock ("17:30", "04:15"), and an answer that says which half of the day.
_TWENTY_FOUR_HOURS = re.compile(r"(?<!\d)(?:1[3-9]|2[0-3]|0\d):\d{2}")
_HALF_OF_DAY = re.compile(r"\d\s*[ap]\.?\s*m\b|[上下中]午|早上|晚上|凌晨", re.I)
_DURATION_PART = re.compile(
    r"(\d+(?:\.\d+)?)\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)(?![A-Za-z])",
    re.I,
)
_DURATION_JOINERS = re.compile(r"[\s,]+|\band\b", re.I)
_UNIT_SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
_HOURS_AND_MINUTES = re.compile(r"(\d{1,3}):(\d{2})(?::(\d{2}))?")
_DAY_MINUTES = 24 * 60
# What every date, time, weekday or duration has: a clock's colon, a letter (a month, a
# weekday, a unit), a separator between digits, or a CJK time word.
_MAY_NAME_ONE = re.compile(
    r"\d\s*[:.h点點時时]\s*\d|[A-Za-zÀ-ÿА-я]{2,}|\d[-/]\d|[年月日点點时時周曜]|星期"
)


def names_a_day_or_time(gold: str) -> bool:
    """The gold is a date, a clock time or a weekday (not a duration, which is a quantity)."""
    return _kind(gold) in ("date", "clock", "weekday")


# Read once per gold: every comparison asks, and a run grades several outputs of each.
@lru_cache(maxsize=4096)
def _kind(gold: str) -> str:
    text = _plain(gold)
    if not _MAY_NAME_ONE.search(text):
        return ""
    if _date(text) is not None:
        return "date"
    if _clock(text) is not None:
        return "clock"
    if _only_weekday(text) is not None:
        return "weekday"
    return "duration" if len(_DURATION_PART.findall(text)) > 1 and _duration(text) else ""


def compare(gold: str, answer: str) -> bool | None:
    """Whether ``answer`` names the date, clock time, weekday or duration ``gold`` names;
    None when the gold is none of these or the answer is not one, so that the caller reads
    it otherwise. An answer that is a sentence names the last date in it ("100 días después
    … es el viernes 9 de junio")."""
    if not _kind(gold):
        return None
    gold, answer = _plain(gold), _plain(answer)
    gold_date = _date(gold)
    if gold_date is not None:
        answer_date = _date(answer) or _last_date_in(answer)
        if answer_date is None:
            return None
        return any(_same_day(g, a) for g in gold_date for a in answer_date)
    gold_clock = _clock(gold)
    if gold_clock is not None:
        # "17:30" asks the 24-hour clock: "5:30" there is half past five in the morning
        as_written = bool(_TWENTY_FOUR_HOURS.search(gold)) and not _HALF_OF_DAY.search(answer)
        answer_clock = _clock(answer, as_written=as_written) or _last_clock_in(answer, as_written)
        if answer_clock is None:
            return None
        (gold_day, gold_moments), (answer_day, answer_moments) = gold_clock, answer_clock
        return (gold_day is None or answer_day == gold_day) and bool(gold_moments & answer_moments)
    gold_weekday = _only_weekday(gold)
    if gold_weekday is not None:
        named = _weekdays(answer)
        return named == {gold_weekday} if named else None
    gold_seconds = _duration(gold)
    if gold_seconds is not None and len(_DURATION_PART.findall(gold)) > 1:
        answer_seconds = _duration(answer)
        if answer_seconds is None and (clock := _HOURS_AND_MINUTES.fullmatch(answer)) is not None:
            hours, minutes, seconds = (int(part or 0) for part in clock.groups())
            if not clock.group(3) and hours * 60 + minutes == gold_seconds:
                return True  # "7:44" for "7 minutes 44 seconds": a lap time, minutes first
            answer_seconds = hours * 3600 + minutes * 60 + seconds
        return answer_seconds == gold_seconds if answer_seconds is not None else None
    return None


def _plain(text: str) -> str:
    text = _MARKUP.sub(lambda m: m.group(1) or m.group(2) or " ", text)
    return re.sub(r"\s+", " ", text.replace("{:}", ":")).strip(" .")


def _date(text: str) -> list[tuple[int | None, int, int]] | None:
    """The (year, month, day) readings of a text that is a date (with a weekday or not)."""
    rest = _DATE_WORDS.sub(" ", _WEEKDAY_WORD.sub(" ", text)).strip(" ,.")
    for pattern, fields in _DATES:
        match = pattern.fullmatch(rest)
        if match is None:
            continue
        values = dict(zip(fields, match.groups(), strict=True))
        year = int(values["y"]) if values.get("y") else None
        if "M" in values:
            month = _MONTH[values["M"].lower().rstrip(".")]
            return _valid([(year, month, int(values["d"]))])
        if "a" in values:  # month first and day first, where both can be
            first, second = int(values["a"]), int(values["b"])
            return _valid([(year, first, second), (year, second, first)])
        return _valid([(year, int(values["m"]), int(values["d"]))])
    return None


def _last_date_in(text: str) -> list[tuple[int | None, int, int]] | None:
    found = [m for pattern, _ in _DATES for m in pattern.finditer(text)]
    return _date(max(found, key=lambda m: (m.end(), -m.start())).group(0)) if found else None


def two_dates(answer: str) -> bool:
    """A numeric date that reads as two days ("03/06/2024": 6 March or 3 June)."""
    readings = _date(_plain(answer))
    return readings is not None and len(set(readings)) > 1


def _valid(readings: list[tuple[int | None, int, int]]) -> list | None:
    kept = [r for r in readings if 1 <= r[1] <= 12 and 1 <= r[2] <= 31]
    return kept or None


def _same_day(gold: tuple, answer: tuple) -> bool:
    """One day; an answer without a year names the gold's day of the year it asks about."""
    return gold[1:] == answer[1:] and (answer[0] is None or gold[0] in (None, answer[0]))


def _clock(text: str, *, as_written: bool = False) -> tuple[int | None, frozenset[int]] | None:
    """The weekday named with a clock time, if any, and the minutes of the day the time can
    name: "4:30" either half of the day (``as_written``: the hour as written), "4:30 p.m."
    one, "24:00" midnight."""
    days = _weekdays(text)
    if len(days) > 1:
        return None
    rest = _WEEKDAY_WORD.sub(" ", text)
    rest = _CLOCK_WORDS.sub(" ", re.sub(r"\([^()]*\)", " ", rest)).strip()
    rest = re.sub(r"^am\s", "", rest).strip()  # German "am Mittwoch um 4:15", not a.m.
    chinese = _CHINESE_CLOCK.fullmatch(rest)
    if chinese is not None:
        hours = int(chinese.group(2)) % 12 + (12 if chinese.group(1) in _AFTERNOON else 0)
        minutes = 30 if "半" in rest and not chinese.group(3) else int(chinese.group(3) or 0)
        moments = (
            frozenset({hours * 60 + minutes})
            if chinese.group(1)
            else _both_halves(int(chinese.group(2)), minutes)
        )
        return (days.pop() if days else None), moments
    match = _CLOCK.fullmatch(rest) or _HOUR_OF_DAY.fullmatch(rest)
    if match is None:
        return None
    hours, minutes = int(match.group(1)), int(match.group(2) or 0)
    half = (match.group(4) or "").lower()
    if minutes > 59 or hours > 24 or (hours == 24 and minutes) or (half and not 1 <= hours <= 12):
        return None
    if half:
        moments = frozenset({(hours % 12 + (12 if half == "p" else 0)) * 60 + minutes})
    elif as_written:
        moments = frozenset({(hours * 60 + minutes) % _DAY_MINUTES})
    else:
        moments = _both_halves(hours, minutes)
    return (days.pop() if days else None), moments


def _last_clock_in(text: str, as_written: bool) -> tuple[int | None, frozenset[int]] | None:
    """The last clock time a sentence names ("The battery will run out on Tuesday at 8 PM"),
    on the one weekday it names, if any."""
    found = [m for pattern in (_CLOCK, _HOUR_OF_DAY) for m in pattern.finditer(text)]
    days = _weekdays(text)
    if not found or len(days) > 1:
        return None
    last = max(found, key=lambda m: (m.end(), -m.start()))
    read = _clock(last.group(0).strip(), as_written=as_written)
    return None if read is None else ((days.pop() if days else None), read[1])


def _both_halves(hours: int, minutes: int) -> frozenset[int]:
    readings = {(hours * 60 + minutes) % _DAY_MINUTES}
    if 1 <= hours <= 12:
        readings.add(((hours + 12) % 24) * 60 + minutes)
    return frozenset(readings)


def _weekdays(text: str) -> set[int]:
    """The weekdays ``text`` names (0 for Monday)."""
    return {_WEEKDAY[m.group(0).lower().rstrip(".")] for m in _WEEKDAY_WORD.finditer(text)}


def _only_weekday(text: str) -> int | None:
    match = _WEEKDAY_WORD.fullmatch(text.strip())
    return _WEEKDAY[match.group(0).lower().rstrip(".")] if match else None


def _duration(text: str) -> float | None:
    """Seconds in "1 day, 2 hours and 50 minutes", "13 h 16 m"; None unless the text is only
    such parts."""
    parts = _DURATION_PART.findall(text)
    if not parts or _DURATION_JOINERS.sub("", _DURATION_PART.sub("", text)):
        return None
    return sum(float(number) * _UNIT_SECONDS[unit[0].lower()] for number, unit in parts)
