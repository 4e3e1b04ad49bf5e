"""Conformance floors: the engine's agreement with labelled cases must not fall below today's.

The figures are defined in grading/cases.py and docs/grading.md. Raising a floor after an
improvement is welcome; lowering one needs a reason in the change that does it.
"""

import json
from pathlib import Path

import pytest

from grading import cases
from grading.evaluators import DEFAULT_EVALUATORS

CASES_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "grading-cases"
# Our own held-out sets, written by people who never saw the engine (docs/grading.md says which
# folds of each were looked at to find kinds of mistakes and which were only measured).
DATA_DIR = Path(__file__).resolve().parent / "data"
WRITTEN = DATA_DIR / "written_realistic.jsonl"
# file: (most silent errors, most rows flagged)
DATA_FLOORS = {
    # Three wrong answers flagged since round 38: a box that works a conversion out wrong
    # ("0.0000045 = 4.5 × 10^{-5}"), a false sum, 0.4 for 4/9 written as a decimal.
    "written_realistic.jsonl": (0, 41),
    "heldout_realistic_A.jsonl": (1, 28),
    "heldout_realistic_B.jsonl": (1, 27),
    "heldout_realistic_C.jsonl": (0, 26),
    "heldout_realistic_D.jsonl": (0, 27),
    "heldout_peer_E.jsonl": (1, 27),
    # peer_mario-055 ([2^{1/2^{1000}}, ∞) for [1, ∞)) ends at its time limit on a busy machine
    # (flagged) and not on a quiet one (silent): either way stays within these.
    "peer_mario_eval.jsonl": (3, 13),
    # Written for the fourth pass (docs/grading.md): 21, 8, 9, 14, 3, 9, 12, 8 and 3 silent
    # errors on arrival.
    "heldout_realistic_F.jsonl": (5, 46),
    "heldout_realistic_G.jsonl": (3, 35),
    "heldout_peer_H.jsonl": (1, 32),
    "heldout_mixed_J.jsonl": (1, 48),
    "heldout_realistic_I.jsonl": (1, 32),
    "heldout_realistic_K.jsonl": (3, 43),
    "heldout_realistic_L.jsonl": (5, 49),
    "heldout_realistic_M.jsonl": (1, 37),
    "heldout_peer_N.jsonl": (2, 25),
    # The fifth pass: 17 and 12 silent errors on arrival.
    "heldout_realistic_O.jsonl": (3, 43),
    "heldout_mixed_P.jsonl": (2, 38),
    # Written after O and P's kinds were fixed: 9 and 6 silent errors on arrival.
    "heldout_realistic_Q.jsonl": (2, 51),
    "heldout_mixed_R.jsonl": (4, 44),
    # Written after the fifth pass: 5 silent errors on arrival.
    "heldout_realistic_S.jsonl": (1, 38),
    # Written after S: 5 and 13 silent errors on arrival.
    "heldout_realistic_T.jsonl": (4, 40),
    "heldout_mixed_U.jsonl": (4, 41),
    # Written after T and U: 9 and 5 silent errors on arrival.
    "heldout_realistic_V.jsonl": (3, 34),
    "heldout_mixed_W.jsonl": (1, 36),
    # Written after V and W: 4 and 8 silent errors on arrival.
    "heldout_realistic_X.jsonl": (0, 42),
    "heldout_mixed_Y.jsonl": (5, 41),
    # Written after X and Y: 9, 3, 11 and 4 silent errors on arrival.
    "heldout_realistic_AA.jsonl": (2, 33),
    "heldout_mixed_AB.jsonl": (0, 38),
    "heldout_realistic_AC.jsonl": (2, 38),
    "heldout_mixed_AD.jsonl": (3, 48),
    # Written after AA to AD: 6, 3, 12 and 15 silent errors on arrival.
    "heldout_realistic_AE.jsonl": (1, 35),
    "heldout_realistic_AF.jsonl": (1, 35),
    "heldout_mixed_AG.jsonl": (4, 45),
    "heldout_mixed_AH.jsonl": (3, 47),
    # Written after AE to AH: 11, 4, 2 and 7 silent errors on arrival (AK with 84 of 160 rows
    # flagged, most by a Markdown heading read as a GSM8K answer line).
    "heldout_realistic_AI.jsonl": (3, 33),
    "heldout_mixed_AJ.jsonl": (0, 35),
    "heldout_realistic_AK.jsonl": (3, 45),
    "heldout_mixed_AL.jsonl": (4, 45),
    # Written after AI to AL: 10, 7, 6 and 5 silent errors on arrival (AN and AP with base
    # models' invented turns after the answer).
    "heldout_realistic_AM.jsonl": (2, 35),
    "heldout_mixed_AN.jsonl": (4, 36),
    # "[-2, 2], x ≠ 1" where interval notation is asked: read as the gold's set now, and
    # flagged form_requested rather than a silent "incorrect"
    "heldout_realistic_AO.jsonl": (3, 35),
    "heldout_mixed_AP.jsonl": (1, 54),
    # Written after AM to AP: 9, 4, 2 and 11 silent errors on arrival.
    "heldout_realistic_AQ.jsonl": (6, 37),
    "heldout_mixed_AR.jsonl": (1, 56),
    "heldout_realistic_AS.jsonl": (0, 45),
    "heldout_mixed_AT.jsonl": (5, 51),
    # Written after AQ to AT: 12, 11, 2 and 7 silent errors on arrival (AV, units in six
    # languages, with 45% of its rows flagged).
    "heldout_realistic_AU.jsonl": (6, 33),
    "heldout_mixed_AV.jsonl": (2, 75),
    "heldout_realistic_AW.jsonl": (0, 39),
    "heldout_mixed_AX.jsonl": (3, 43),
    # Written after AU to AX: 8, 2, 13 and 5 silent errors on arrival (BA, multiple choice
    # in AQuA's "A)24, B)26" form, with letters hedged and values that name another option).
    "heldout_realistic_AY.jsonl": (3, 39),
    "heldout_mixed_AZ.jsonl": (1, 32),
    "heldout_realistic_BA.jsonl": (3, 34),
    "heldout_mixed_BB.jsonl": (2, 46),
    # Written after AY to BB: 3, 12, 3 and 7 silent errors on arrival (BD, geometry from chat
    # assistants, with sentences read down to a verb: "The garden covers about 153.94 m²").
    "heldout_realistic_BC.jsonl": (3, 36),
    "heldout_mixed_BD.jsonl": (4, 41),
    "heldout_realistic_BE.jsonl": (2, 42),
    "heldout_mixed_BF.jsonl": (4, 44),
    # Written after BC to BF: 11, 5, 6 and 7 silent errors on arrival (BG, answer forms from
    # math models: pairs stated as "x = −1 and y = 4", planes left unnormalised, hex literals).
    # and one row labelled ambiguous flagged since round 39 (0.18 for 0.\overline{18}).
    "heldout_realistic_BG.jsonl": (6, 37),
    "heldout_mixed_BH.jsonl": (2, 45),
    "heldout_realistic_BI.jsonl": (3, 30),
    "heldout_mixed_BJ.jsonl": (2, 50),
    # Written after BG to BJ: 4, 3, 10 and 10 silent errors on arrival (BM, multiple choice
    # with two letters, option sentences and doubts raised after the letter; BN, eight
    # languages).
    "heldout_realistic_BK.jsonl": (2, 31),
    "heldout_mixed_BL.jsonl": (1, 52),
    "heldout_realistic_BM.jsonl": (5, 24),
    "heldout_mixed_BN.jsonl": (3, 53),
    # Written after BK to BN: 1, 4, 3 and 7 silent errors on arrival (BR, yes/no answers that
    # their own explanation denies, in English and German).
    "heldout_realistic_BO.jsonl": (1, 44),
    "heldout_mixed_BP.jsonl": (2, 34),
    "heldout_realistic_BQ.jsonl": (0, 32),
    "heldout_mixed_BR.jsonl": (2, 54),
    # Written after BO to BR: 10, 4, 1 and 4 silent errors on arrival (BS, the value a
    # sentence names among several, an expanded template, the point of a minimum boxed).
    "heldout_realistic_BS.jsonl": (3, 31),
    "heldout_mixed_BT.jsonl": (0, 52),
    "heldout_realistic_BU.jsonl": (0, 37),
    "heldout_mixed_BV.jsonl": (3, 51),
    # Written after BS to BV: 6, 11, 4 and 8 silent errors on arrival (BX, programs' printed
    # output: several values printed, floats printed in full, a given number factored).
    "heldout_realistic_BW.jsonl": (1, 32),
    "heldout_mixed_BX.jsonl": (4, 36),
    "heldout_realistic_BY.jsonl": (1, 43),
    "heldout_mixed_BZ.jsonl": (5, 41),
    # Written after BW to BZ: 6, 4, 7 and 10 silent errors on arrival (CD, numbers in other
    # scripts and forms: Arabic-Indic digits, thin spaces, 万 and lakh, "या" for "or").
    "heldout_realistic_CA.jsonl": (2, 36),
    # A wrong answer after a sentence in the question's words that states the gold.
    "heldout_mixed_CB.jsonl": (1, 36),
    "heldout_realistic_CC.jsonl": (2, 46),
    "heldout_mixed_CD.jsonl": (1, 70),
    # Written after CA to CD: 4, 3, 6 and 0 silent errors on arrival (the fewest yet).
    "heldout_realistic_CE.jsonl": (3, 35),
    "heldout_mixed_CF.jsonl": (1, 46),
    "heldout_realistic_CG.jsonl": (3, 57),
    "heldout_mixed_CH.jsonl": (0, 47),
    # Written after CE to CH: 4, 7, 9 and 1 silent errors on arrival (CJ, yes/no in ten
    # languages, where "no" also denies other things: "has no prime factors other than 2").
    "heldout_realistic_CI.jsonl": (0, 36),
    "heldout_mixed_CJ.jsonl": (3, 68),
    "heldout_realistic_CK.jsonl": (2, 40),
    "heldout_mixed_CL.jsonl": (1, 46),
    # Written after CI to CL: 7, 13, 3 and 3 silent errors on arrival (CN, numbers as other
    # locales write them: decimal commas in Polish and Italian, "1,2 Milliarden", "$2.5M").
    "heldout_realistic_CM.jsonl": (3, 34),
    "heldout_mixed_CN.jsonl": (4, 84),
    "heldout_realistic_CO.jsonl": (2, 37),
    "heldout_mixed_CP.jsonl": (3, 33),
    # Written after CM to CP: 6, 12, 15 and 12 silent errors on arrival (CS, calculus: tan⁻¹
    # for arctan, "converges conditionally"; CT, Chinese answers with full-width forms).
    "heldout_realistic_CQ.jsonl": (5, 61),
    "heldout_mixed_CR.jsonl": (8, 34),
    "heldout_realistic_CS.jsonl": (8, 34),
    "heldout_mixed_CT.jsonl": (10, 52),
    # Written after CQ to CT: 4, 8, 15 and 48 silent errors on arrival (CX, answers naming
    # several options: "ACD" for "A, C, D", "TFTF", "1-C, 2-A"; CV, another unit than the gold's).
    "heldout_realistic_CU.jsonl": (4, 30),
    "heldout_mixed_CV.jsonl": (4, 63),
    "heldout_realistic_CW.jsonl": (10, 38),
    "heldout_mixed_CX.jsonl": (12, 32),
    # Written after CU to CX: 10, 6, 10 and 42 silent errors on arrival (DB, systems and
    # inequalities in six languages: "$y = -1$ y $x = 6$", "S = {(4; 3)}", "]-2 ; 2,5]").
    "heldout_realistic_CY.jsonl": (6, 43),
    "heldout_mixed_CZ.jsonl": (1, 38),
    "heldout_realistic_DA.jsonl": (5, 39),
    "heldout_mixed_DB.jsonl": (25, 59),
    # Written after CY to DB: 27, 15, 6 and 24 silent errors on arrival (DC, linear algebra's
    # notations and answers that are one of many; DE, answer tags, 93 rows flagged).
    "heldout_realistic_DC.jsonl": (15, 36),
    "heldout_mixed_DD.jsonl": (6, 42),
    "heldout_realistic_DE.jsonl": (3, 43),
    "heldout_mixed_DF.jsonl": (12, 44),
    # Written after DC to DF: 39, 28, 20 and 20 silent errors on arrival (DG, sets of integers
    # described by conditions; DH, dates and clock times; DI, equations of curves in other
    # forms; DJ, markup noise).
    "heldout_realistic_DG.jsonl": (31, 53),
    "heldout_mixed_DH.jsonl": (8, 40),
    "heldout_realistic_DI.jsonl": (16, 40),
    "heldout_mixed_DJ.jsonl": (7, 46),
    # Written after DG to DJ: 10, 7, 50 and 13 silent errors on arrival (DK, sequences, series
    # and limits; DL, how numbers are written; DM, questions that ask for two things; DN,
    # ratios, rates, percentages and odds).
    "heldout_realistic_DK.jsonl": (8, 33),
    "heldout_mixed_DL.jsonl": (5, 37),
    "heldout_realistic_DM.jsonl": (26, 55),
    "heldout_mixed_DN.jsonl": (6, 51),
    # Written after DK to DN: 12, 14, 6 and 20 silent errors on arrival (DO, trigonometry and
    # general solutions; DP, complex numbers; DQ, attempts, drafts and revisions; DR,
    # inequalities and intervals written every way).
    "heldout_realistic_DO.jsonl": (8, 40),
    "heldout_mixed_DP.jsonl": (13, 41),
    "heldout_realistic_DQ.jsonl": (4, 45),
    "heldout_mixed_DR.jsonl": (9, 34),
    "heldout_realistic_DS.jsonl": (0, 46),
    "heldout_mixed_DT.jsonl": (6, 46),
    "heldout_realistic_DU.jsonl": (5, 49),
    "heldout_mixed_DV.jsonl": (3, 61),
    "heldout_realistic_DW.jsonl": (6, 52),
    "heldout_mixed_DX.jsonl": (7, 42),
    "heldout_realistic_DY.jsonl": (5, 30),
    "heldout_mixed_DZ.jsonl": (4, 55),
    "heldout_realistic_EA.jsonl": (21, 57),
    "heldout_mixed_EB.jsonl": (9, 55),
    "heldout_realistic_EC.jsonl": (9, 27),
    "heldout_mixed_ED.jsonl": (3, 42),
    "heldout_realistic_EE.jsonl": (2, 40),
    "heldout_mixed_EF.jsonl": (3, 35),
    "heldout_realistic_EG.jsonl": (4, 50),
    "heldout_mixed_EH.jsonl": (8, 33),
    "heldout_realistic_EI.jsonl": (2, 34),
    "heldout_mixed_EJ.jsonl": (6, 33),
    "heldout_realistic_EK.jsonl": (4, 45),
    "heldout_mixed_EL.jsonl": (1, 55),
    # A wrong answer whose sentence names the quantity mistaken for the asked one.
    "heldout_realistic_EM.jsonl": (6, 21),
    "heldout_mixed_EN.jsonl": (4, 41),
    "heldout_realistic_EO.jsonl": (2, 69),
    "heldout_mixed_EP.jsonl": (4, 32),
    "heldout_realistic_EQ.jsonl": (3, 42),
    "heldout_mixed_ER.jsonl": (7, 38),
    "heldout_realistic_ES.jsonl": (5, 33),
    "heldout_mixed_ET.jsonl": (3, 40),
    "heldout_realistic_EU.jsonl": (3, 28),
    # A wrong conversion worked out in the box ("0.00045 = 4.5 × 10^{-5}").
    "heldout_mixed_EV.jsonl": (8, 26),
    "heldout_realistic_EW.jsonl": (9, 38),
    "heldout_mixed_EX.jsonl": (6, 39),
    "heldout_realistic_EY.jsonl": (8, 41),
    "heldout_mixed_EZ.jsonl": (5, 24),
    "heldout_realistic_FA.jsonl": (5, 28),
    "heldout_mixed_FB.jsonl": (1, 54),
    "heldout_realistic_FC.jsonl": (5, 37),
    "heldout_mixed_FD.jsonl": (3, 41),
    "heldout_realistic_FE.jsonl": (3, 52),
    "heldout_mixed_FF.jsonl": (13, 43),
    "heldout_realistic_FG.jsonl": (1, 27),
    "heldout_mixed_FH.jsonl": (3, 35),
    "heldout_realistic_FI.jsonl": (2, 35),
    "heldout_mixed_FJ.jsonl": (3, 33),
    "heldout_realistic_FK.jsonl": (2, 30),
    "heldout_mixed_FL.jsonl": (1, 35),
    "heldout_realistic_FM.jsonl": (2, 33),
    "heldout_mixed_FN.jsonl": (6, 47),
    "heldout_realistic_FO.jsonl": (5, 25),
    "heldout_mixed_FP.jsonl": (4, 44),
    "heldout_realistic_FQ.jsonl": (7, 47),
    "heldout_mixed_FR.jsonl": (4, 40),
    "heldout_realistic_FS.jsonl": (1, 49),
    "heldout_mixed_FT.jsonl": (1, 43),
    "heldout_realistic_FU.jsonl": (0, 41),
    "heldout_mixed_FV.jsonl": (7, 40),
    "heldout_realistic_FW.jsonl": (6, 45),
    "heldout_mixed_FX.jsonl": (5, 30),
    "heldout_realistic_FY.jsonl": (4, 44),
    "heldout_mixed_FZ.jsonl": (3, 39),
}

# file: (least cases each evaluator agrees on, most silent errors, most rows flagged)
FLOORS = {
    # exact gives no answer where MATH's own grader has none to compare (no box, no marker),
    # so its agreement fell when it stopped comparing whole outputs with the gold.
    "dev_realistic.jsonl": (
        {"answer_check": 117, "math_verify": 94, "math_verify_strict": 44, "strict": 26,
         "flex": 93, "exact": 55},
        0,
        34,
    ),
    "dev_realistic_2.jsonl": (
        {"answer_check": 133, "math_verify": 101, "math_verify_strict": 72, "strict": 22,
         "flex": 102, "exact": 63},
        0,
        47,
    ),
    "hendrycks_math_tests.jsonl": ({"answer_check": 13, "math_verify": 14, "flex": 14, "exact": 16}, 0, 3),
    "lighteval_tests.jsonl": ({"answer_check": 32, "math_verify": 29, "flex": 20, "choice": 15}, 3, 7),
    "math_verify_tests.jsonl": (
        {"answer_check": 233, "math_verify": 281, "math_verify_strict": 92, "strict": 25,
         "flex": 245, "exact": 67},
        3,
        # "1000,99" and "1,22" alone are flagged number_format now (with no word around
        # them, a decimal comma and a list of two numbers are both readings; held-out H labels
        # such outputs ambiguous), and two wrong flags went away; "x=1/3\\approx1.3" states
        # two unequal values.
        50,
    ),
    "seed_examples.jsonl": ({"answer_check": 10, "math_verify": 7, "flex": 8, "exact": 5, "choice": 6}, 0, 5),
    "xwin_math_readme.jsonl": ({"answer_check": 13, "math_verify": 14, "strict": 2, "flex": 16, "exact": 4}, 0, 3),
}  # fmt: skip
# The budgets for realistic outputs, held on every fold of each development file
# (the folds are a hash of the case id; docs/grading.md reports which were tuned on).
REALISTIC = ("dev_realistic.jsonl", "dev_realistic_2.jsonl")
MOST_SILENT_SHARE = 0.03
MOST_FLAGGED_SHARE = 0.35

# The fixtures below grade every case file (some 24,000 rows) once for the module; on a
# loaded two-core machine that takes longer than the suite's default limit of ten minutes.
pytestmark = pytest.mark.timeout(3600)

needs_cases = pytest.mark.skipif(
    not CASES_DIR.is_dir(), reason=f"shared conformance cases not found at {CASES_DIR}"
)


@pytest.fixture(scope="module")
def reports() -> dict[str, cases.FileReport]:
    names = sorted(FLOORS)
    reports = cases.run_files([CASES_DIR / name for name in names], DEFAULT_EVALUATORS)
    return dict(zip(names, reports, strict=True))


@needs_cases
@pytest.mark.parametrize("name", sorted(FLOORS))
def test_evaluators_agree_with_the_labels_at_least_as_often_as_before(reports, name):
    floors, _, _ = FLOORS[name]
    agreed = {a.evaluator: a.agreed for a in reports[name].agreements}

    below = {e: (agreed[e], least) for e, least in floors.items() if agreed[e] < least}

    assert not below, f"{name}: evaluator agreement fell below its floor (now, floor): {below}"


@needs_cases
@pytest.mark.parametrize("name", sorted(FLOORS))
def test_jury_leaves_no_more_silent_errors_and_flags_no_more_rows_than_before(reports, name):
    _, most_silent, most_flagged = FLOORS[name]
    jury = reports[name].jury

    assert jury.silent <= most_silent, f"{name}: {jury.silent} silent errors"
    assert jury.flagged <= most_flagged, f"{name}: {jury.flagged} rows flagged"


@needs_cases
@pytest.mark.parametrize("name", REALISTIC)
def test_realistic_outputs_stay_within_the_error_and_review_budgets_on_every_fold(reports, name):
    # Given a realistic development file, a third of it traps, in three folds
    for fold, jury in enumerate(reports[name].folds):
        # Then on each fold at most 3% of rows are silent errors and at most 35% go to a human
        assert jury.silent_share <= MOST_SILENT_SHARE, f"{name} fold {fold}: {jury.silent} silent"
        assert jury.flagged_share <= MOST_FLAGGED_SHARE, f"{name} fold {fold}: {jury.flagged}"


@pytest.fixture(scope="module")
def data_reports() -> dict[str, cases.FileReport]:
    names = sorted(DATA_FLOORS)
    reports = cases.run_files([DATA_DIR / name for name in names], DEFAULT_EVALUATORS)
    return dict(zip(names, reports, strict=True))


@pytest.mark.parametrize("name", sorted(DATA_FLOORS))
def test_held_out_sets_keep_their_silent_errors_and_flags_within_todays(data_reports, name):
    most_silent, most_flagged = DATA_FLOORS[name]
    jury = data_reports[name].jury

    assert jury.silent <= most_silent, f"{name}: {jury.silent} silent errors"
    assert jury.flagged <= most_flagged, f"{name}: {jury.flagged} rows flagged"


def test_folds_are_a_stable_hash_of_the_case_id():
    assert [cases.fold_of(f"dev-{n}") for n in range(6)] == [
        cases.fold_of(f"dev-{n}") for n in range(6)
    ]
    assert {cases.fold_of(f"case-{n}") for n in range(60)} == {0, 1, 2}


def test_the_reason_table_gives_each_reasons_precision(tmp_path, capsys):
    # Given one hedged output that really is ambiguous, and one hedged but right
    rows = [
        {"id": "r-1", "kind": "verdict", "gold": "3", "output": "So it is 3 or 5.",
         "expected": "ambiguous"},
        {"id": "r-2", "kind": "verdict", "gold": "4", "output": "So it is 4 or 6.",
         "expected": "incorrect"},
    ]  # fmt: skip
    path = tmp_path / "hedges.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")

    cases.main([str(path)], DEFAULT_EVALUATORS, reasons=True)

    # Then "hedged" fired twice and one of the two rows needed a human
    hedged = next(
        line for line in capsys.readouterr().out.splitlines() if line.startswith("hedged")
    )
    assert hedged.split()[1:3] == ["2", "(50%)"]


@needs_cases
def test_jury_flags_every_ambiguous_seed_example():
    # Given the design documents' examples that a careful grader must send to a human
    seed = cases.read_cases(CASES_DIR / "seed_examples.jsonl")
    ambiguous = [c for c in seed if c.expected == "ambiguous"]
    assert ambiguous

    # When they are graded
    report = cases.run_cases("seed", ambiguous, DEFAULT_EVALUATORS)

    # Then every one is flagged, so none is called correct without a flag
    assert report.jury.flagged == len(ambiguous)
    assert report.jury.silent_ambiguous == 0


def test_runner_prints_agreement_and_jury_tables_and_returns_zero(tmp_path, capsys):
    # Given a small case file with one right, one wrong and one ambiguous output
    rows = [
        {"id": "t-1", "kind": "verdict", "gold": "42", "output": "The answer is 42.",
         "expected": "correct"},
        {"id": "t-2", "kind": "verdict", "gold": "42", "output": "The answer is 41.",
         "expected": "incorrect"},
        {"id": "t-3", "kind": "verdict", "gold": "3", "output": "So the answer is 3 or 5.",
         "expected": "ambiguous"},
    ]  # fmt: skip
    path = tmp_path / "tiny.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")

    # When the runner is run on it
    status = cases.main([str(path)], ["math_verify", "exact"])

    # Then it prints per-evaluator agreement and the jury's figures, and succeeds
    printed = capsys.readouterr().out
    assert status == 0
    assert "tiny.jsonl  math_verify              2  100.0%" in printed
    jury_line = next(line for line in printed.splitlines() if line.startswith("tiny.jsonl   "))
    assert jury_line.split()[1:3] == ["3", "1"]  # rows, flagged
    assert jury_line.split()[-2:] == ["0", "(0.0%)"]  # no silent errors


def test_unreadable_case_line_names_its_file_and_line(tmp_path):
    path = tmp_path / "broken.jsonl"
    path.write_text('{"id": "x", "kind": "verdict"}\n', encoding="utf-8")

    with pytest.raises(cases.CaseFileError, match=r"broken\.jsonl:1"):
        cases.read_cases(path)
