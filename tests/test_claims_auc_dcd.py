"""The AUC-DCD paper's accuracy claims (DCD-1 .. DCD-4, DCD-9, DCD-10) on hand-made results
tables, one per verdict each rule can reach, and the paper's protocol rebuilt from the tuning
scores (one lambda per dataset and method). The builders here serve the other
``test_claims_auc_dcd_*`` modules too."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from claims_tables import curve, runs, table

from ordauc.claims import CLAIMS
from ordauc.claims.auc_dcd_common import (
    METHODS,
    MSGD,
    OAM,
    PERM,
    SDCD,
    paper_protocol,
    paper_variant,
)
from ordauc.claims.registry import CONFIRMED, NOT_CONFIRMED, PARTIAL, UNDECIDABLE
from ordauc.claims.study import Study
from ordauc.report.published import AUC_DCD_TABLE2

TEN = [f"set{i}" for i in range(10)]
ITERATIONS = list(range(100, 5001, 100))


def noise(n: int, seed: int) -> np.ndarray:
    """A zero-mean, unit-sd pattern of ``n`` values (exact: a check's means are the given)."""
    x = np.random.default_rng(seed).standard_normal(n)
    return (x - x.mean()) / x.std(ddof=1)


def method_rows(dataset: str, method: str, values: np.ndarray | list[float], *,
                suffix: str = "_paper", tuning: str = "test", label: str | None = None,
                **extra: object) -> list[dict[str, object]]:
    """One row per run of ``method`` (a registry name) under the label ``method + suffix``."""
    return runs(dataset, label or f"{method}{suffix}", auc=list(values), solver_name=method,
                tuning=tuning, **extra)


def dcd_study(means: dict[str, dict[str, float]], *, n: int = 20,
              spread: dict[str, float] | None = None, shared: float = 0.01,
              suffix: str = "_paper", tuning: str = "test", extra: list | None = None,
              curves: pd.DataFrame | None = None, scores: pd.DataFrame | None = None,
              config: object | None = None) -> Study:
    """An ``auc_dcd`` study: per dataset, each method's runs with the given mean AUC; a
    noise pattern shared by all methods (sd ``shared``) plus each method's own (sd
    ``spread[method]``, default 0)."""
    groups = []
    for k, (dataset, by_method) in enumerate(means.items()):
        common = shared * noise(n, 1000 + k)
        for j, (method, mean) in enumerate(by_method.items()):
            own = (spread or {}).get(method, 0.0) * noise(n, 10 * k + j)
            groups.append(method_rows(dataset, method, mean + common + own, suffix=suffix,
                                      tuning=tuning))
    study = Study(name="auc_dcd", results=table(*groups, *(extra or [])), curves=curves,
                  tuning=scores)
    study.config = config
    return study


def same(value: dict[str, float], datasets: list[str]) -> dict[str, dict[str, float]]:
    return {d: dict(value) for d in datasets}


def speed_curves(datasets: list[str], speed: dict[str, tuple[float, float]], *, n: int = 5,
                 suffix: str = "_paper") -> pd.DataFrame:
    """Checkpoint rows: 1 - AUC = 0.1 + 10 a / t and P = 1 + 100 b / t for (a, b) =
    ``speed[method]``: larger = slower convergence (the same curve in each of ``n`` runs)."""
    t = np.asarray(ITERATIONS, dtype=float)
    frames = []
    for dataset in datasets:
        for method, (a, b) in speed.items():
            label = f"{method}{suffix}"
            one = pd.concat([curve(dataset, label, "auc", ITERATIONS, list(0.9 - 10 * a / t)),
                             curve(dataset, label, "objective", ITERATIONS,
                                   list(1 + 100 * b / t))], ignore_index=True)
            every = pd.concat([one.assign(repetition=r) for r in range(n)], ignore_index=True)
            frames.append(every.assign(key=f"{dataset}/{label}/r" + every["repetition"]
                                       .astype(str)))
    return pd.concat(frames, ignore_index=True)


FAST = {OAM: (4, 4), SDCD: (2, 1.5), PERM: (2, 2), MSGD: (1, 1)}  # OAMinf slowest
SLOW = {OAM: (1, 1), SDCD: (2, 2), PERM: (2, 2), MSGD: (3, 3)}  # OAMinf fastest


def check(claim_id: str, study: Study) -> tuple[str, str]:
    outcome = CLAIMS[claim_id].check(study)
    return outcome.verdict, outcome.statistic


PERM_TOP = {OAM: 0.80, SDCD: 0.81, PERM: 0.83, MSGD: 0.815}
OAM_TOP = {OAM: 0.85, SDCD: 0.81, PERM: 0.80, MSGD: 0.815}


@pytest.mark.parametrize(("name", "means", "speed", "verdict"), [
    ("both", same(PERM_TOP, TEN), FAST, CONFIRMED),
    ("auc only", same(PERM_TOP, TEN), SLOW, PARTIAL),
    ("neither", same(OAM_TOP, TEN), SLOW, NOT_CONFIRMED),
    ("no curves", same(PERM_TOP, TEN), None, UNDECIDABLE),
    ("sig. below once", {**same(PERM_TOP, TEN[:9]), "set9": OAM_TOP}, FAST, PARTIAL),
])
def test_dcd_1(name: str, means: dict, speed: dict | None, verdict: str) -> None:
    curves = None if speed is None else speed_curves(TEN[:3], speed, n=10)
    got, statistic = check("DCD-1", dcd_study(means, n=10, curves=curves))
    assert got == verdict, (name, statistic)


@pytest.mark.parametrize(("means", "spread", "verdict", "key"), [
    (same(PERM_TOP, TEN), None, CONFIRMED, "highest on 10/10"),
    # highest by 0.002 on noise of sd 0.02: never significant
    (same({OAM: 0.80, SDCD: 0.80, PERM: 0.802, MSGD: 0.80}, TEN),
     {OAM: 0.02, SDCD: 0.02, PERM: 0.02, MSGD: 0.02}, PARTIAL, "highest on 10/10"),
    (same(OAM_TOP, TEN), None, NOT_CONFIRMED, "highest on 0/10"),
    (same(PERM_TOP, TEN[:3]), None, UNDECIDABLE, "highest on 3/3"),
])
def test_dcd_2(means: dict, spread: dict | None, verdict: str, key: str) -> None:
    got, statistic = check("DCD-2", dcd_study(means, spread=spread))
    assert got == verdict and key in statistic, statistic


def test_dcd_2_needs_every_method_and_enough_pairs() -> None:
    three = {d: {m: v for m, v in PERM_TOP.items() if m != MSGD} for d in TEN}
    outcome = CLAIMS["DCD-2"].check(dcd_study(three))
    assert outcome.verdict == UNDECIDABLE and "MSGD" in outcome.evidence
    study = dcd_study(same(PERM_TOP, TEN))
    rows = study.results
    failed = (rows["dataset"].isin(TEN[:5]) & (rows["solver"] == "oam_inf_paper")
              & (rows["repetition"] < 10))
    rows.loc[failed, ["status", "auc"]] = ["error", np.nan]
    got, statistic = check("DCD-2", study)  # 10 of 20 paired: 5 datasets undecidable (C2)
    assert got == UNDECIDABLE and "highest on 5/5" in statistic, statistic


def test_a_users_labels_group_by_tuning_kind() -> None:
    groups = [method_rows(d, m, [v + 0.001 * r for r in range(20)], label=f"mine_{m[-4:]}")
              for d in TEN for m, v in PERM_TOP.items()]
    study = Study(name="auc_dcd", results=table(*groups))
    variant = paper_variant(study.results)
    assert variant is not None and sorted(variant.labels) == sorted(METHODS)
    assert check("DCD-2", study)[0] == CONFIRMED


@pytest.mark.parametrize(("spread", "datasets", "verdict"), [
    ({PERM: 0.005, SDCD: 0.02, MSGD: 0.02}, TEN, CONFIRMED),
    ({PERM: 0.01, SDCD: 0.02, MSGD: 0.005}, TEN, PARTIAL),
    ({PERM: 0.03, SDCD: 0.02, MSGD: 0.02}, TEN, NOT_CONFIRMED),
    ({PERM: 0.005, SDCD: 0.02, MSGD: 0.02}, TEN[:3], UNDECIDABLE),
])
def test_dcd_3(spread: dict, datasets: list[str], verdict: str) -> None:
    got, statistic = check("DCD-3", dcd_study(same(PERM_TOP, datasets), spread=spread,
                                              shared=0.0))
    assert got == verdict, statistic


@pytest.mark.parametrize(("means", "verdict", "key"), [
    ({**same({OAM: 0.8, SDCD: 0.81, PERM: 0.82, MSGD: 0.81}, TEN[:5]),
      **same({OAM: 0.8, SDCD: 0.79, PERM: 0.82, MSGD: 0.79}, TEN[5:])}, CONFIRMED,
     "SDCD above OAMinf on 5/10"),
    (same({OAM: 0.8, SDCD: 0.81, PERM: 0.82, MSGD: 0.81}, TEN), NOT_CONFIRMED,
     "SDCD above OAMinf on 10/10"),
    (same({OAM: 0.8, SDCD: 0.81, PERM: 0.82, MSGD: 0.81}, TEN[:3]), UNDECIDABLE, "on 3/3"),
    # settled on 3 datasets: 1 of 3, and at most 1 + 7 = 8 of 10
    ({"a": {OAM: 0.8, SDCD: 0.81, MSGD: 0.81}, "b": {OAM: 0.8, SDCD: 0.7, MSGD: 0.7},
      "c": {OAM: 0.8, SDCD: 0.7, MSGD: 0.7}}, CONFIRMED, "on 1/3"),
])
def test_dcd_4(means: dict, verdict: str, key: str) -> None:
    got, statistic = check("DCD-4", dcd_study(means))
    assert got == verdict and key in statistic, statistic


def published_means(shift: dict[str, float] | None = None, datasets: list[str] | None = None
                    ) -> dict[str, dict[str, float]]:
    """The paper's Table 2 means, ``shift`` added per dataset."""
    out = {}
    for dataset in datasets or AUC_DCD_TABLE2.datasets:
        out[dataset] = {m: float(AUC_DCD_TABLE2.value(dataset, m)["mean"])
                        + (shift or {}).get(dataset, 0.0) for m in METHODS}
    return out


@pytest.mark.parametrize(("means", "verdict", "key"), [
    (published_means(), CONFIRMED, "40 of 40"),
    (published_means(dict.fromkeys(AUC_DCD_TABLE2.datasets[:5], 0.2)), PARTIAL, "20 of 40"),
    (published_means(dict.fromkeys(AUC_DCD_TABLE2.datasets, 0.2)), NOT_CONFIRMED, "0 of 40"),
    (published_means(datasets=["sonar", "dna"]), UNDECIDABLE, "8 of 8"),
    (same(PERM_TOP, TEN), UNDECIDABLE, "not computed"),
])
def test_dcd_9(means: dict, verdict: str, key: str) -> None:
    got, statistic = check("DCD-9", dcd_study(means, shared=0.005))
    assert got == verdict and key in statistic, statistic


@pytest.mark.parametrize(("seq", "gra", "verdict"), [
    (0.78, 0.77, CONFIRMED), (0.78, 0.85, PARTIAL), (0.85, 0.86, NOT_CONFIRMED),
    (None, None, UNDECIDABLE),
])
def test_dcd_10(seq: float | None, gra: float | None, verdict: str) -> None:
    means = same(PERM_TOP, TEN)
    if seq is not None:
        for by_method in means.values():
            by_method.update({"oam_seq": seq, "oam_gra": gra})
    outcome = CLAIMS["DCD-10"].check(dcd_study(means))
    assert outcome.verdict == verdict, outcome.statistic
    if seq is None:
        assert "oam_seq_paper" in outcome.evidence and "configs/auc_dcd.yaml" in outcome.evidence


def tuning_scores(datasets: list[str], lams: list[float], score: object, n: int = 20,
                  methods: tuple[str, ...] = METHODS) -> pd.DataFrame:
    """tuning_scores.csv rows of test tuning: ``score(dataset, method, run, point)``."""
    rows = [{"key": f"{d}/{m}_paper/r{r}", "dataset": d, "solver": f"{m}_paper",
             "repetition": r, "n_labeled": 200, "n_unlabeled": 1000, "tuning": "test",
             "point": i, "metric": "auc", "score": score(d, m, r, i), "p_lam": lam}
            for d in datasets for m in methods for r in range(n) for i, lam in enumerate(lams)]
    return pd.DataFrame(rows)


def test_the_paper_protocol_takes_one_lambda_per_dataset_and_method() -> None:
    # point 0 alternates 0.88 / 0.70 (mean 0.79), point 1 is 0.80 throughout: each run's
    # best is 0.88 or 0.80, the best mean is point 1
    def score(d: str, m: str, r: int, i: int) -> float:
        return (0.88 if r % 2 else 0.70) if i == 0 else 0.80

    scores = tuning_scores(["a"], [1e-3, 1e-1], score)
    per_run = [0.88 if r % 2 else 0.80 for r in range(20)]
    study = Study(name="auc_dcd", results=table(*[method_rows("a", m, per_run)
                                                  for m in METHODS]), tuning=scores)
    proto = paper_protocol(study)
    assert np.allclose(proto.table["auc"], 0.80) and "best mean" in proto.how
    assert proto.chosen[("a", PERM)] == "lam=0.1" and len(proto.edge) == 4
    without = Study(name="auc_dcd", results=study.results)
    assert paper_protocol(without).table["auc"].max() == pytest.approx(0.88)
