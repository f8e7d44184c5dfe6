"""``make reproduce-offline`` on a machine with no network: the AUC-DCD twin, the one study whose
data the repository cannot ship (dna and pendigits: no licence allows it), runs on svmguide3
from the repository's mirror folder, records the other two sets' cells as skipped with the
fetch that gets them, decides none of the claims that need them, and the pipeline exits 0.

No network is simulated by an unreachable proxy (requests honours HTTP(S)_PROXY), with an empty
data cache; the rest of the twins read built-in sets or the mirror folder, which
``tests/repo/test_offline_mirror.py`` covers.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO

DEAD = "http://127.0.0.1:9"  # the discard port: nothing listens, a connection fails at once


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("make") is None or not (REPO / ".venv" / "bin" / "ordauc")
                    .exists(), reason="needs make and the repository's .venv (make install)")
def test_the_auc_dcd_twin_runs_without_network(tmp_path: Path) -> None:
    env = {**os.environ, "ORDAUC_DATA": str(tmp_path / "data"), "NO_PROXY": "", "no_proxy": "",
           **{k: DEAD for k in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")}}
    out = tmp_path / "results"
    done = subprocess.run(["make", "--no-print-directory", "-C", str(REPO), "reproduce-offline",
                           "STUDIES=auc_dcd", f"OUT={out}", "JOBS=1"],
                          env=env, capture_output=True, text=True, timeout=1200)
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-3000:]
    assert "FAILED" not in log
    assert "pipeline: auc_dcd: some datasets could not be fetched; running the others" in log
    assert "dataset(s) dna, pendigits not fetched" in log
    table = pd.read_csv(out / "offline" / "auc_dcd" / "results.csv")
    by_set = table.groupby("dataset")["status"].agg(lambda s: sorted(set(s)))
    assert by_set.to_dict() == {"dna": ["skipped"], "pendigits": ["skipped"],
                                "svmguide3": ["ok"]}
    skipped = table[table["dataset"] == "dna"]["message"]
    assert (skipped == "dataset dna is not fetched: `ordauc fetch dna` gets it, and the next "
                       "run fills this cell").all()
    page = out / "offline" / "auc_dcd" / "report" / "index.html"
    assert page.is_file() and (out / "offline" / "index.html").is_file()
    claims = pd.read_csv(out / "offline" / "auc_dcd" / "report" / "claims.csv")
    assert (claims["verdict"] == "UNDECIDABLE").all()
