"""CI: prepare the AUC-DCD twin's dna and pendigits into a data folder, without network, from the
development data beside the repository, through a local mirror folder (the way ``ordauc fetch
--mirror`` reads any mirror). The repository does not ship these two (no licence allows it; see
data/offline-mirror/README.md), so the pipeline's fetch then finds them already prepared. Where
the development data is absent, say so and do nothing: the pipeline fetches them from LIBSVM's
site.

Usage: python .ci/devdata.py DATA_DIR
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
# Under the names LIBSVM's site gives them. pendigits comes from the UCI copy: the other
# collection's pendigits lacks each row's last feature.
FILES = {"dna.scale": "zpli0320-dataset", "dna.scale.t": "zpli0320-dataset",
         "pendigits": "uci-pendigits", "pendigits.t": "uci-pendigits"}


def main(data_dir: Path, shared: Path = SHARED) -> int:
    from ordauc.data.fetch import fetch

    missing = [f"{folder}/{name}" for name, folder in FILES.items()
               if not (shared / folder / name).is_file()]
    if missing:
        print(f"devdata: {shared} lacks {', '.join(missing)}: nothing prepared; the AUC-DCD "
              "twin fetches dna and pendigits from LIBSVM's site")
        return 0
    with tempfile.TemporaryDirectory() as mirror:
        for name, folder in FILES.items():
            shutil.copy(shared / folder / name, Path(mirror) / name)
        # Unpinned files: their sha256 is recorded in DATA_DIR's lock on this first fetch.
        fetch(["dna", "pendigits"], data_dir, [mirror], progress=False)
    print(f"devdata: dna and pendigits prepared in {data_dir} from the development data")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
