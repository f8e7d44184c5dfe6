"""The NPSVOR paper's comparison claims and protocol statements on hand-made results tables of
the ten methods over 23 datasets, whose verdicts are known (NP-1, NP-5 ... NP-10, NP-15, NP-16,
NP-P1 ... NP-P5)."""

from __future__ import annotations

import numpy as np
import pytest
from claims_tables import runs, study
from conftest import REPO

from ordauc.claims import CLAIMS
from ordauc.claims.npsvor_common import (
    BASELINES,
    CHU_SETS,
    METHODS,
    PAPER_SETS,
    bonferroni_dunn_cd,
)
from ordauc.claims.registry import CONFIRMED, NOT_CONFIRMED, NOTE, PARTIAL, UNDECIDABLE
from ordauc.config import load_config

REPS = 30
BASE = 0.3 + 0.004 * np.arange(REPS)  # a split effect every method shares
WIGGLE = np.where(np.arange(REPS) % 2, 0.2, -0.2)  # large, sign-alternating: never significant
# A zero-mean split effect of its own per method: paired differences without ties.
JITTER = {m: 1e-4 * i * (np.arange(REPS) - (REPS - 1) / 2) for i, m in enumerate(METHODS)}


def place(first: str, position: int) -> list[str]:
    """The ten methods in order of quality with ``first`` at ``position`` (1 = best)."""
    others = [m for m in METHODS if m != first]
    return others[:position - 1] + [first] + others[position - 1:]


def levels(order: list[str], tie: tuple[str, str] | None = None) -> dict[str, float]:
    """Mean metric per method, 0.01 apart in ``order`` (best first); ``tie`` shares a level."""
    out = {m: 0.01 * i for i, m in enumerate(order)}
    if tie:
        out[tie[1]] = out[tie[0]]
    return out


def splits_of(dataset: str, reps: int | None, chu: int) -> int:
    """The paper's splits (30 survey, 5 Chu) unless ``reps``; Chu's sets at ``chu``."""
    if reps is not None:
        return reps
    return chu if dataset in CHU_SETS else REPS


def compare(mze: dict[str, float], mae: dict[str, float] | None = None, *, n: int = 23,
            reps: int | None = None, chu: int = 6, wiggle: str | None = None, times=None,
            n_labeled=None, extra: tuple = (), names: tuple[str, ...] = PAPER_SETS,
            **kw) -> object:
    """A ``npsvor`` study on the first ``n`` of ``names`` (the paper's datasets by default),
    each with the paper's splits (Chu's at ``chu``, 6 so that the test can reject) or
    ``reps``; each method at its level plus the shared split effect; ``wiggle``
    ("mze"/"mae") adds WIGGLE to NPSVOR's values of that metric; ``times`` and ``n_labeled``
    map a dataset index to cv times per method and a training size."""
    mae = mae or mze
    groups = []
    for d, name in enumerate(names[:n]):
        k = splits_of(name, reps, chu)
        for m in METHODS:
            values = {}
            for metric, level in (("mze", mze), ("mae", mae)):
                shift = WIGGLE[:k] if wiggle == metric and m == "npsvor" else 0.0
                jitter = JITTER[m][:k] - JITTER[m][:k].mean()
                values[metric] = list(BASE[:k] + level[m] + shift + jitter)
            cv = times(d)[m] if times else 1.0
            groups.append(runs(name, m, n_labeled=n_labeled(d) if n_labeled else 300,
                               n_unlabeled=0, task="ordinal", cv_time_s=cv,
                               repetitions=list(range(k)), **values, **kw))
    return study("npsvor", *groups, *extra)


SUBSTITUTES = tuple(f"synthetic_ordinal[{i}]" for i in range(23))


def check(claim_id: str, s) -> tuple[str, str]:
    outcome = CLAIMS[claim_id].check(s)
    return outcome.verdict, outcome.statistic + " | " + outcome.evidence


def test_bonferroni_dunn_cd_matches_demsar():
    assert bonferroni_dunn_cd(10, 23) == pytest.approx(2.476, abs=1e-3)


# --- NP-5, NP-6: places by the paper's Wilcoxon ranking ---------------------------------------

def outcome(claim_id: str, s):
    return CLAIMS[claim_id].check(s)


@pytest.mark.parametrize("position, n, verdict, key", [
    (2, 23, CONFIRMED, "2nd of 10"),
    (1, 23, CONFIRMED, "1st of 10"),
    (3, 23, NOT_CONFIRMED, "3rd of 10"),
    (2, 5, UNDECIDABLE, "18 of the paper's 23 datasets not ranked"),
    (1, 22, CONFIRMED, "on 22/23"),  # one missing dataset cannot undo 22 firsts
])
def test_np_5_second_on_mze(position, n, verdict, key):
    got, text = check("NP-5", compare(levels(place("npsvor", position)), n=n))
    assert got == verdict and key in text


def test_np_5_reads_the_mze_selected_rows():
    """MZE-tuned rows put NPSVOR 2nd; MAE-tuned rows (another selection) put it last."""
    good, bad = levels(place("npsvor", 2)), levels(place("npsvor", 10))
    groups = []
    for name in PAPER_SETS:
        k = splits_of(name, None, 6)
        for m in METHODS:
            for metric, level in (("mze", good), ("mae", bad)):
                values = list(BASE[:k] + level[m] + JITTER[m][:k])
                groups.append(runs(name, m, n_unlabeled=0, cv_metric=metric, task="ordinal",
                                   mze=values, mae=values))
    assert check("NP-5", study("npsvor", *groups))[0] == CONFIRMED
    assert check("NP-6", study("npsvor", *groups))[0] == NOT_CONFIRMED


@pytest.mark.parametrize("mae, n, verdict, key", [
    (levels(place("npsvor", 1)), 23, CONFIRMED, "1st of 10"),
    (levels(place("npsvor", 1), tie=("npsvor", "svr")), 23, PARTIAL, "1st tied"),
    (levels(place("npsvor", 3)), 23, NOT_CONFIRMED, "3rd"),
    (levels(place("npsvor", 1)), 4, UNDECIDABLE, "19 of the paper's 23"),
])
def test_np_6_first_on_mae(mae, n, verdict, key):
    got, text = check("NP-6", compare(mae, n=n))
    assert got == verdict and key in text


def test_np_6_practical_tie_shares_the_rank():
    """SVR 5e-4 behind NPSVOR on every split: first by raw means, a shared first (PARTIAL) by
    the paper's ranking, as the gap is within the practical margin."""
    mae = levels(place("npsvor", 1))
    mae[place("npsvor", 1)[1]] = mae["npsvor"] + 5e-4
    got = outcome("NP-6", compare(mae))
    assert got.verdict == PARTIAL
    assert got.values["mean_rank_average"] == pytest.approx(1.0)
    assert got.values["average_rank"] == pytest.approx(1.5)


def test_np_6_not_significant_shares_ranks():
    """NPSVOR 0.003 ahead of SVC1V1 by the mean, inside split noise (signed-rank p > 0.4): 1st
    by raw means, sharing its rank with SVC1V1 by the paper's ranking: PARTIAL, not
    CONFIRMED."""
    mae = levels(place("npsvor", 1))
    mae["npsvor"] = mae["svc1v1"] = 0.01
    noise = np.random.default_rng(0).normal(0, 0.05, REPS)
    groups = []
    for name in PAPER_SETS:
        k = splits_of(name, None, 6)
        for m in METHODS:
            values = BASE[:k] + mae[m] + JITTER[m][:k]
            if m == "npsvor":
                values = values + noise[:k] - noise[:k].mean() - 0.003
            groups.append(runs(name, m, n_unlabeled=0, task="ordinal", mae=list(values),
                               mze=list(values), repetitions=list(range(k))))
    got = outcome("NP-6", study("npsvor", *groups))
    assert got.values["mean_rank_place"] == 1.0 and got.values["mean_rank_average"] == 1.0
    assert got.verdict == PARTIAL and got.values["average_rank"] > 1.0


@pytest.mark.parametrize("claim_id", ["NP-5", "NP-6"])
@pytest.mark.parametrize("kw, ranked", [
    ({"names": SUBSTITUTES}, 0),  # the same numbers under names that are not the paper's
    ({"reps": 10}, 0),  # 10 of the paper's 30 splits: short; Chu's 6 ranked... at 10 splits
    ({"chu": 5}, 17),  # the paper's 5 splits of Chu's sets: undecided by power, not tied
])
def test_np_5_np_6_guards(claim_id, kw, ranked):
    first = levels(place("npsvor", 1))
    got = outcome(claim_id, compare(first, **kw))
    assert got.verdict == UNDECIDABLE
    assert got.provisional == CONFIRMED
    if "reps" in kw:
        assert got.values["ranked"] == 6  # Chu's sets: 10 planned >= 4 of the paper's 5
    else:
        assert got.values["ranked"] == ranked


# --- NP-1: overall -----------------------------------------------------------------------------

def _fast(d: int) -> dict[str, float]:
    return {m: 1.0 + i for i, m in enumerate(METHODS)}  # NPSVOR fastest everywhere


def _slow(d: int) -> dict[str, float]:
    return {m: 10.0 - i for i, m in enumerate(METHODS)}  # NPSVOR slowest everywhere


@pytest.mark.parametrize("position, times, n, verdict", [
    (1, _fast, 23, CONFIRMED),
    (1, _slow, 23, PARTIAL),
    (3, _fast, 23, NOT_CONFIRMED),
    (1, _fast, 6, UNDECIDABLE),
])
def test_np_1_generalization_and_speed(position, times, n, verdict):
    got, text = check("NP-1", compare(levels(place("npsvor", position)), times=times, n=n))
    assert got == verdict, text


# --- NP-9: Friedman, NP-16: threshold vs decomposition ------------------------------------------

@pytest.mark.parametrize("mze, mae, n, verdict", [
    (place("npsvor", 2), place("npsvor", 1), 23, CONFIRMED),
    (place("npsvor", 2), place("npsvor", 3), 23, NOT_CONFIRMED),
    (place("npsvor", 2), place("npsvor", 10), 22, NOT_CONFIRMED),  # last on 22: settled
    (place("npsvor", 2), place("npsvor", 1), 5, UNDECIDABLE),
])
def test_np_9_friedman(mze, mae, n, verdict):
    got, text = check("NP-9", compare(levels(mze), levels(mae), n=n))
    assert got == verdict, text
    if n == 23:
        assert "Friedman rejects: MZE yes, MAE yes" in text


THRESHOLD_FIRST = ["svorex", "svorim", "redsvm", "npsvor", "svr", "svc1v1", "svc1va", "cssvc",
                   "svmop", "opbe"]
DECOMPOSITION_FIRST = ["svmop", "opbe", "npsvor", "svr", "svc1v1", "svc1va", "cssvc",
                       "svorex", "svorim", "redsvm"]


@pytest.mark.parametrize("order, n, verdict", [
    (THRESHOLD_FIRST, 23, CONFIRMED),
    (DECOMPOSITION_FIRST, 23, NOT_CONFIRMED),
    (THRESHOLD_FIRST, 3, UNDECIDABLE),
])
def test_np_16_threshold_models(order, n, verdict):
    got, text = check("NP-16", compare(levels(order), n=n))
    assert got == verdict, text


# --- NP-8: wins / draws / losses, NP-7: MAE against MZE ----------------------------------------

EVEN = {m: 0.0 for m in METHODS}  # every method at one level: exact ties, draws only


@pytest.mark.parametrize("mze, mae, kw, np_7, np_8, holds", [
    (levels(place("npsvor", 2)), levels(place("npsvor", 1)), {}, CONFIRMED, CONFIRMED, 9),
    (levels(place("npsvor", 1)), levels(place("npsvor", 2)), {}, NOT_CONFIRMED, PARTIAL, 8),
    (levels(place("npsvor", 2)), levels(place("npsvor", 6)), {}, NOT_CONFIRMED, NOT_CONFIRMED,
     4),
    # 0 wins and 0 losses everywhere: no positive net, never CONFIRMED
    (EVEN, EVEN, {}, NOT_CONFIRMED, NOT_CONFIRMED, 0),
    (levels(place("npsvor", 2)), levels(place("npsvor", 1)), {"n": 4}, UNDECIDABLE,
     UNDECIDABLE, 0),
])
def test_np_7_and_np_8_wins_draws_losses(mze, mae, kw, np_7, np_8, holds):
    """NP-8: a positive net of wins over losses on MAE against each baseline; NP-7: margin and
    net wins larger on MAE than on MZE (one study each, as both read the same tallies)."""
    s = compare(mze, mae, **kw)
    got = outcome("NP-8", s)
    assert got.verdict == np_8 and got.values["holds"] == holds
    assert outcome("NP-7", s).verdict == np_7


@pytest.mark.parametrize("kw, verdict, lean, decided", [
    # Chu's 6 sets at the paper's 5 splits: undecided by power (not draws); 17 wins still settle
    ({"chu": 5}, CONFIRMED, None, 9),
    # 10 of the paper's 30 splits on the survey sets: 17 comparisons undecided per baseline
    ({"reps": 10, "chu": 10}, UNDECIDABLE, CONFIRMED, 0),
    ({"names": SUBSTITUTES}, UNDECIDABLE, CONFIRMED, 0),
])
def test_np_8_guards(kw, verdict, lean, decided):
    got = outcome("NP-8", compare(levels(place("npsvor", 2)), levels(place("npsvor", 1)), **kw))
    assert got.verdict == verdict and got.provisional == lean
    assert got.values["decided"] == decided
    if "chu" in kw and "reps" not in kw:
        assert got.values["undecided_by_power"] == 6
        assert got.values["mae"]["svr"] == {"win": 17, "undecided": 6}


# --- NP-10: CV time --------------------------------------------------------------------------

BD = ("svc1v1", "svc1va", "cssvc", "svmop")


def _times(small_npsvor: float, large_npsvor: float, large_bd: float):
    def times(d: int) -> dict[str, float]:
        small = d < 12
        out = {m: 3.0 for m in METHODS}
        out.update({m: 1.0 if small else large_bd for m in BD})
        out["npsvor"] = small_npsvor if small else large_npsvor
        return out
    return times


def _sizes(d: int) -> int:
    return 100 + 20 * d if d < 12 else 1000 + 500 * d


@pytest.mark.parametrize("times, n, verdict, key", [
    (_times(2.0, 0.5, 5.0), 23, CONFIRMED, "(b) rank on large 1"),
    (_times(2.0, 8.0, 100.0), 23, PARTIAL, "(b) rank on large 6"),
    (_times(0.5, 0.5, 5.0), 23, NOT_CONFIRMED, "slower than 0/4"),
    (_times(2.0, 0.5, 5.0), 8, UNDECIDABLE, "15 of the paper's 23 datasets"),
    (_times(1.03, 0.5, 5.0), 23, NOT_CONFIRMED, "slower than 0/4"),  # 3 % slower: a tie
])
def test_np_10_cv_time(times, n, verdict, key):
    got, text = check("NP-10", compare(levels(METHODS), times=times, n_labeled=_sizes, n=n))
    assert got == verdict and key in text, text


def test_np_10_substitutes_lean_only():
    got = outcome("NP-10", compare(levels(METHODS), times=_times(2.0, 0.5, 5.0),
                                   n_labeled=_sizes, names=SUBSTITUTES))
    assert got.verdict == UNDECIDABLE and got.values["timed"] == 0
    assert got.provisional == CONFIRMED


@pytest.mark.parametrize("claim_id, lean", [("NP-1", PARTIAL), ("NP-9", CONFIRMED),
                                            ("NP-16", CONFIRMED)])
def test_rank_claims_on_substitutes_lean_only(claim_id, lean):
    """The same numbers under names that are not the paper's: UNDECIDABLE, leaning."""
    order = {"NP-1": place("npsvor", 1), "NP-9": place("npsvor", 1),
             "NP-16": THRESHOLD_FIRST}[claim_id]
    mze = levels(place("npsvor", 2)) if claim_id == "NP-9" else levels(order)
    got = outcome(claim_id, compare(mze, levels(order), names=SUBSTITUTES, times=_slow))
    assert got.verdict == UNDECIDABLE and got.provisional == lean


# --- NP-15: tuning headroom --------------------------------------------------------------------

def _variant(shift: float, n: int = 23) -> list:
    return [runs(name, "npsvor_tuned", solver_name="npsvor", n_unlabeled=0, task="ordinal",
                 repetitions=list(range(splits_of(name, None, 6))),
                 mze=list(BASE[:splits_of(name, None, 6)] + 0.0),
                 mae=list(BASE[:splits_of(name, None, 6)] + shift))
            for name in PAPER_SETS[:n]]


@pytest.mark.parametrize("extra, verdict, mae", [
    ((), UNDECIDABLE, None),
    (_variant(-0.005), CONFIRMED, "better"),
    (_variant(+0.005), NOT_CONFIRMED, "worse"),
    (_variant(+0.0005), NOT_CONFIRMED, "tie"),  # within the practical margin: no headroom
    (_variant(-0.005, n=10), UNDECIDABLE, None),  # 10 of the 23 datasets paired
])
def test_np_15_tuning_headroom(extra, verdict, mae):
    """A hand-made `npsvor_tuned` entry (solver npsvor) against npsvor over the 23 datasets."""
    got = outcome("NP-15", compare(levels(METHODS), extra=extra))
    assert got.verdict == verdict
    if extra:
        assert got.values["variant"] == "npsvor_tuned" and got.values["mae"] == mae
    if mae == "better":
        assert got.values["mze"] == "tie"


def test_np_15_substitute_datasets_do_not_decide():
    s = compare(levels(METHODS), names=SUBSTITUTES, extra=[
        runs(name, "npsvor_tuned", solver_name="npsvor", n_unlabeled=0, task="ordinal",
             repetitions=list(range(REPS)), mze=list(BASE), mae=list(BASE - 0.005))
        for name in SUBSTITUTES])
    got = outcome("NP-15", s)
    assert got.verdict == UNDECIDABLE and got.provisional == CONFIRMED


# --- NP-P1 ... NP-P5: protocol -------------------------------------------------------------------

def protocol(survey: int = 17, chu: int = 6, survey_splits: int = 30, share: float = 0.75,
             npsvor_eps: float = 0.2, methods=METHODS) -> list:
    """Rows of the paper's protocol: ``survey`` datasets of ``survey_splits`` hold-outs at a
    training ``share``, ``chu`` datasets of 5 splits; both selections per split."""
    groups = []
    names = list(PAPER_SETS[:survey]) + list(CHU_SETS[:chu])
    for d, name in enumerate(names):
        reps = survey_splits if d < survey else 5
        for m in methods:
            eps = {"npsvor": npsvor_eps, "svr": 0.1}.get(m, np.nan)
            for metric in ("mze", "mae"):
                groups.append(runs(
                    name, m, n_labeled=int(400 * share), n_unlabeled=0,
                    repetitions=list(range(reps)), cv_metric=metric, task="ordinal",
                    n_test=400 - int(400 * share), mze=0.3, mae=0.4, p_C="10", p_kappa="0.01",
                    p_eps=eps, p_rho=1.0 if m == "npsvor" else np.nan,
                    p_tol_abs=0.01 if m == "npsvor" else np.nan,
                    p_tol_rel=0.01 if m == "npsvor" else np.nan))
    return groups


PAPER = load_config(REPO / "configs" / "npsvor.yaml")
TWIN = load_config(REPO / "configs" / "offline" / "npsvor.yaml")


@pytest.fixture(scope="module")
def paper_runs() -> list:
    return protocol()


def _with(groups: list, config) -> object:
    s = study("npsvor", *groups)
    s.config = config
    return s


def test_np_p1_datasets_and_splits(paper_runs):
    assert check("NP-P1", _with(paper_runs, PAPER))[0] == CONFIRMED
    got = outcome("NP-P1", _with(protocol(survey=3, chu=2, methods=["npsvor"]), PAPER))
    assert got.verdict == NOT_CONFIRMED and got.values["datasets"] == 5


@pytest.mark.parametrize("share, config, verdict", [
    (0.75, PAPER, CONFIRMED), (0.5, PAPER, NOT_CONFIRMED), (0.75, None, UNDECIDABLE)])
def test_np_p2_splits_and_scaling(share, config, verdict):
    s = _with(protocol(share=share, methods=["npsvor"]), config)
    assert check("NP-P2", s)[0] == verdict


@pytest.mark.parametrize("eps, config, verdict, key", [
    (0.2, PAPER, CONFIRMED, "5 of 5"),
    (0.1, PAPER, NOT_CONFIRMED, "npsvor eps"),
    (0.2, TWIN, NOT_CONFIRMED, "5-fold CV on the full grid: no"),
    (0.2, None, UNDECIDABLE, "no config copy"),
])
def test_np_p3_model_selection(eps, config, verdict, key):
    got, text = check("NP-P3", _with(protocol(survey=2, chu=1, npsvor_eps=eps), config))
    assert got == verdict and key in text, text


def test_np_p4_machine_is_a_note(paper_runs):
    got, text = check("NP-P4", _with(paper_runs, PAPER))
    assert got == NOTE and "MATLAB" in text


def test_np_p5_tests_can_be_run(paper_runs):
    got, text = check("NP-P5", _with(paper_runs, PAPER))
    assert got == CONFIRMED and "6 datasets with <= 5 splits" in text
    got, _ = check("NP-P5", _with(protocol(methods=METHODS[:-1]), PAPER))
    assert got == NOT_CONFIRMED


def test_np_p1_substitute_names_deviate():
    groups = [runs(f"synthetic_ordinal[{i}]", "npsvor", n_unlabeled=0, task="ordinal",
                   repetitions=list(range(30 if i < 17 else 5)), mze=0.3, mae=0.4)
              for i in range(23)]
    got = outcome("NP-P1", _with(groups, PAPER))
    assert got.verdict == NOT_CONFIRMED and got.values["datasets"] == 0


def test_paper_datasets_are_the_config_s():
    """The count rules' denominator: the paper's 23 datasets as configs/npsvor.yaml names
    them."""
    assert tuple(d.name for d in PAPER.datasets) == PAPER_SETS
    assert len(PAPER_SETS) == 23 and set(CHU_SETS) < set(PAPER_SETS)


def test_every_npsvor_claim_is_registered():
    ids = {c.id for c in CLAIMS.values() if c.paper == "NPSVOR"}
    assert ids == {f"NP-{i}" for i in range(1, 18)} | {f"NP-P{i}" for i in range(1, 6)}
    assert set(BASELINES) < set(METHODS)
