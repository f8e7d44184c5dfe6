"""Generators of small files in every source format of the catalogue (synthetic content).

Amazon and MovieLens data may not be redistributed, so their fixtures are made up here in the
same format; so are the large sets' heads (HIGGS, SUSY, the PUF set, Dota2, ...).
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import tarfile
import zipfile

import numpy as np


def libsvm_text(X: np.ndarray, y: np.ndarray) -> bytes:
    """LIBSVM lines ``label i:v ...`` (one-based, zeros omitted)."""
    lines = []
    for row, label in zip(X, y, strict=True):
        feats = " ".join(f"{j + 1}:{v:.6g}" for j, v in enumerate(row) if v != 0)
        lines.append(f"{label:g} {feats}".rstrip())
    return ("\n".join(lines) + "\n").encode()


def csv_text(rows: np.ndarray, sep: str = ",", header: list[str] | None = None,
             fmt: str = "%.10g") -> bytes:
    out = io.StringIO()
    if header:
        out.write(sep.join(header) + "\n")
    np.savetxt(out, rows, delimiter=sep, fmt=fmt)
    return out.getvalue().encode()


def gz(data: bytes) -> bytes:
    return gzip.compress(data)


def bz(data: bytes) -> bytes:
    return bz2.compress(data)


def xz(data: bytes) -> bytes:
    return lzma.compress(data)


def zip_bytes(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def tgz_bytes(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def parquet_bytes(columns: dict[str, np.ndarray]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(pa.table(columns), buf)
    return buf.getvalue()


WORDS = [
    "great", "quality", "soft", "cheap", "broken", "perfect", "love", "hate", "small", "large",
    "cute", "awful", "fine", "sturdy", "flimsy", "return", "recommend", "excellent", "terrible",
    "okay", "color", "size", "fit", "smell", "works", "daughter", "son", "gift", "price",
    "shipping", "fast", "slow", "stars", "happy", "sad"
]


def amazon_jsonl(n: int, seed: int = 0) -> tuple[bytes, np.ndarray]:
    """Synthetic reviews in the 2014 5-core JSON-lines format; words depend on the rating."""
    rng = np.random.default_rng(seed)
    ratings = rng.integers(1, 6, size=n)
    lines = []
    for i, r in enumerate(ratings):
        words = rng.choice(WORDS, size=12)
        text = " ".join(list(words) + [WORDS[int(r)]] * 3)
        lines.append(json.dumps({"reviewerID": f"A{i}", "asin": f"B{i % 50:04d}",
                                 "reviewerName": "x", "helpful": [0, 0],
                                 "reviewText": text, "overall": float(r),
                                 "summary": WORDS[int(r) + 5], "unixReviewTime": 1400000000,
                                 "reviewTime": "05 13, 2014"}))
    return ("\n".join(lines) + "\n").encode(), ratings


def movielens_zip(n_users: int = 60, n_movies: int = 80, seed: int = 0
                  ) -> tuple[bytes, np.ndarray]:
    """A synthetic ``ml-1m.zip`` (``UserID::MovieID::Rating::Timestamp``); returns the ratings."""
    rng = np.random.default_rng(seed)
    rows = []
    for u in range(1, n_users + 1):
        seen = rng.choice(np.arange(1, n_movies + 1), size=rng.integers(10, n_movies),
                          replace=False)
        for m in np.sort(seen):
            rows.append((u, int(m), int(rng.integers(1, 6)), 978300000 + len(rows)))
    text = "\n".join("::".join(map(str, r)) for r in rows) + "\n"
    data = zip_bytes({"ml-1m/ratings.dat": text.encode(),
                      "ml-1m/movies.dat": b"1::Toy Story (1995)::Animation\n",
                      "ml-1m/users.dat": b"1::F::1::10::48067\n",
                      "ml-1m/README": b"synthetic test fixture\n"})
    return data, np.asarray(rows)
