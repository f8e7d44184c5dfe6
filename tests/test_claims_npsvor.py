"""The NPSVOR paper's comparison claims and protocol statements on hand-made results tables of
the ten methods over 23 datasets, whose verdicts are known (NP-1, NP-5 ... NP-10, NP-15, NP-16,
NP-P1 ... NP-P5)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from claims_tables import runs, study

from ordauc.claims import CLAIMS
from ordauc.claims.npsvor_common import BASELINES, METHODS, bonferroni_dunn_cd
from ordauc.claims.registry import CONFIRMED, NOT_CONFIRMED, PARTIAL, UNDECIDABLE
from ordauc.config import load_config

ROOT = Path(__file__).resolve().parents[1]
REPS = 10
BASE = 0.3 + 0.004 * np.arange(REPS)  # a split effect every method shares
WIGGLE = np.where(np.arange(REPS) % 2, 0.2, -0.2)  # large, sign-alternating: never significant
# A zero-mean split effect of its own per method: paired differences without ties, so scipy's
# signed-rank test stays exact (with ties it runs a slow permutation test); means unchanged.
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


def compare(mze: dict[str, float], mae: dict[str, float] | None = None, *, n: int = 23,
            reps: int = REPS, wiggle: str | None = None, times=None, n_labeled=None,
            extra: tuple = (), **kw) -> object:
    """A ``npsvor`` study: ``n`` datasets, each method at its level plus the shared split
    effect; ``wiggle`` ("mze"/"mae") adds WIGGLE to NPSVOR's values of that metric; ``times``
    and ``n_labeled`` map a dataset index to cv times per method and a training size."""
    mae = mae or mze
    groups = []
    for d in range(n):
        for m in METHODS:
            values = {}
            for metric, level in (("mze", mze), ("mae", mae)):
                shift = WIGGLE[:reps] if wiggle == metric and m == "npsvor" else 0.0
                jitter = JITTER[m][:reps] - JITTER[m][:reps].mean()
                values[metric] = list(BASE[:reps] + level[m] + shift + jitter)
            cv = times(d)[m] if times else 1.0
            groups.append(runs(f"d{d}", m, n_labeled=n_labeled(d) if n_labeled else 300,
                               n_unlabeled=0, task="ordinal", cv_time_s=cv, **values, **kw))
    return study("npsvor", *groups, *extra)


def check(claim_id: str, s) -> tuple[str, str]:
    outcome = CLAIMS[claim_id].check(s)
    return outcome.verdict, outcome.statistic + " | " + outcome.evidence


def test_bonferroni_dunn_cd_matches_demsar():
    assert bonferroni_dunn_cd(10, 23) == pytest.approx(2.476, abs=1e-3)


# --- NP-5, NP-6: places by average rank --------------------------------------------------------

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
    for d in range(23):
        for m in METHODS:
            for metric, level in (("mze", good), ("mae", bad)):
                groups.append(runs(f"d{d}", m, n_unlabeled=0, cv_metric=metric, task="ordinal",
                                   mze=list(BASE + level[m]), mae=list(BASE + level[m])))
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

@pytest.mark.parametrize("mze, mae, wiggle, n, reps, np_7, np_8, key", [
    (2, 1, None, 23, REPS, CONFIRMED, CONFIRMED, "against 9 of 9"),
    (2, 1, "mae", 23, REPS, PARTIAL, CONFIRMED, "svr 0/23/0"),  # MAE: draws only
    (1, 2, None, 23, REPS, NOT_CONFIRMED, PARTIAL, "against 8 of 9"),
    (2, 6, None, 23, REPS, NOT_CONFIRMED, NOT_CONFIRMED, "against 4 of 9"),
    (2, 1, None, 4, REPS, UNDECIDABLE, UNDECIDABLE, "0 decided"),
    (10, 10, None, 23, 5, NOT_CONFIRMED, CONFIRMED, "23 decided datasets had <= 5 pairs"),
])
def test_np_7_and_np_8_wins_draws_losses(mze, mae, wiggle, n, reps, np_7, np_8, key):
    """NP-8: wins >= losses on MAE against each baseline; NP-7: margin and net wins larger on
    MAE than on MZE (one study each, as both read the same tallies)."""
    s = compare(levels(place("npsvor", mze)), levels(place("npsvor", mae)), n=n, reps=reps,
                wiggle=wiggle, repetitions=list(range(reps)))
    got, text = check("NP-8", s)
    assert got == np_8 and key in text, text
    got, text = check("NP-7", s)
    assert got == np_7, text


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
    (_times(2.0, 0.5, 5.0), 8, UNDECIDABLE, "15 of the 23 datasets"),
])
def test_np_10_cv_time(times, n, verdict, key):
    got, text = check("NP-10", compare(levels(METHODS), times=times, n_labeled=_sizes, n=n))
    assert got == verdict and key in text, text


# --- NP-15: tuning headroom --------------------------------------------------------------------

def _variant(shift: float, n: int = 23) -> list:
    return [runs(f"d{d}", "npsvor_tuned", solver_name="npsvor", n_unlabeled=0, task="ordinal",
                 mze=list(BASE + 0.0), mae=list(BASE + shift)) for d in range(n)]


@pytest.mark.parametrize("extra, verdict, key", [
    ((), UNDECIDABLE, "no tuned-eps NPSVOR variant"),
    (_variant(-0.005), CONFIRMED, "better on mae"),
    (_variant(+0.005), NOT_CONFIRMED, "worse on mae"),
    (_variant(-0.005, n=10), UNDECIDABLE, "needs >= 19"),
])
def test_np_15_tuning_headroom(extra, verdict, key):
    got, text = check("NP-15", compare(levels(METHODS), extra=extra))
    assert got == verdict and key in text, text


# --- NP-P1 ... NP-P5: protocol -------------------------------------------------------------------

def protocol(survey: int = 17, chu: int = 6, survey_splits: int = 30, share: float = 0.75,
             npsvor_eps: float = 0.2, methods=METHODS) -> list:
    """Rows of the paper's protocol: ``survey`` datasets of ``survey_splits`` hold-outs at a
    training ``share``, ``chu`` datasets of 5 splits; both selections per split."""
    groups = []
    for d in range(survey + chu):
        reps = survey_splits if d < survey else 5
        for m in methods:
            eps = {"npsvor": npsvor_eps, "svr": 0.1}.get(m, np.nan)
            for metric in ("mze", "mae"):
                groups.append(runs(
                    f"d{d}", m, n_labeled=int(400 * share), n_unlabeled=0,
                    repetitions=list(range(reps)), cv_metric=metric, task="ordinal",
                    n_test=400 - int(400 * share), mze=0.3, mae=0.4, p_C="10", p_kappa="0.01",
                    p_eps=eps, p_rho=1.0 if m == "npsvor" else np.nan,
                    p_tol_abs=0.01 if m == "npsvor" else np.nan,
                    p_tol_rel=0.01 if m == "npsvor" else np.nan))
    return groups


PAPER = load_config(ROOT / "configs" / "npsvor.yaml")
TWIN = load_config(ROOT / "configs" / "offline" / "npsvor.yaml")


@pytest.fixture(scope="module")
def paper_runs() -> list:
    return protocol()


def _with(groups: list, config) -> object:
    s = study("npsvor", *groups)
    s.config = config
    return s


def test_np_p1_datasets_and_splits(paper_runs):
    assert check("NP-P1", _with(paper_runs, PAPER))[0] == CONFIRMED
    got, text = check("NP-P1", _with(protocol(survey=3, chu=2, methods=["npsvor"]), PAPER))
    assert got == NOT_CONFIRMED and "5 datasets" in text


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


def test_np_p4_machine_is_recorded_not_matched(paper_runs):
    got, text = check("NP-P4", _with(paper_runs, PAPER))
    assert got == UNDECIDABLE and "MATLAB" in text


def test_np_p5_tests_can_be_run(paper_runs):
    got, text = check("NP-P5", _with(paper_runs, PAPER))
    assert got == CONFIRMED and "6 datasets with <= 5 splits" in text
    got, _ = check("NP-P5", _with(protocol(methods=METHODS[:-1]), PAPER))
    assert got == NOT_CONFIRMED


def test_every_npsvor_claim_is_registered():
    ids = {c.id for c in CLAIMS.values() if c.paper == "NPSVOR"}
    assert ids == {f"NP-{i}" for i in range(1, 18)} | {f"NP-P{i}" for i in range(1, 6)}
    assert set(BASELINES) < set(METHODS)
