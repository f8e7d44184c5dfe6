"""Amazon product reviews (QS3ORAO's real-world sets): TF-IDF of the text, truncated SVD.

The 2014 release's 5-core files (``reviews_<Category>_5.json.gz``, McAuley et al. SIGIR 2015;
He & McAuley WWW 2016) hold one JSON object per line with ``reviewText``, ``summary`` and the
rating ``overall`` (1-5, the ordinal label). Each line is parsed with ``json.loads``; nothing
downloaded is ever evaluated. The paper gives only "TF-IDF, then SVD to 1000 dimensions", so the
vectoriser's settings below are this project's choice, recorded in the manifest.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ordauc.data.archive import open_stream
from ordauc.data.prepare import (
    Context,
    check_features,
    check_rows,
    label_counts,
    minmax,
    save_dense,
)
from ordauc.errors import UserError

TFIDF = {"lowercase": True, "stop_words": "english", "min_df": 5, "max_df": 0.5,
         "sublinear_tf": True, "dtype": "float32"}
N_COMPONENTS = 1000


def read_reviews(ctx: Context, role: str) -> tuple[list[str], np.ndarray]:
    """Texts (summary + review) and ratings 1..5 of a JSON-lines file."""
    where = ctx.label(role)
    texts: list[str] = []
    ratings: list[int] = []
    with open_stream(ctx.path(role)) as stream:
        for number, raw in enumerate(stream, start=1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
                rating = float(record["overall"])
            except (ValueError, KeyError, TypeError) as exc:
                raise UserError(f"{where}, line {number}: not a review record with a rating "
                                f"({type(exc).__name__}), so nothing was stored") from None
            if rating not in (1.0, 2.0, 3.0, 4.0, 5.0):
                raise UserError(f"{where}, line {number}: the rating {rating!r} is not one of "
                                "1..5, so nothing was stored")
            texts.append(f"{record.get('summary') or ''} {record.get('reviewText') or ''}")
            ratings.append(int(rating))
    if not texts:
        raise UserError(f"{where} holds no reviews, so nothing was stored")
    return texts, np.asarray(ratings, dtype=np.int64)


def amazon(ctx: Context) -> dict[str, Any]:
    """Reviews -> TF-IDF -> TruncatedSVD(1000) -> [0, 1] per column; labels = ratings."""
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts, y = read_reviews(ctx, "reviews")
    settings = dict(TFIDF, dtype=np.float32)
    try:
        tfidf = TfidfVectorizer(**settings).fit_transform(texts)
    except ValueError as exc:  # e.g. an empty vocabulary
        raise UserError(f"{ctx.label('reviews')}: no TF-IDF vocabulary could be built ({exc}), "
                        "so nothing was stored") from None
    del texts
    # Small files (fixtures, tests) have fewer terms than 1000: SVD needs k < both dimensions.
    k = min(ctx.entry.d, N_COMPONENTS, tfidf.shape[1] - 1, tfidf.shape[0] - 1)
    svd = TruncatedSVD(n_components=k, algorithm="randomized", n_iter=5, random_state=0)
    Z = svd.fit_transform(tfidf).astype(np.float32)
    lo, hi = Z.min(axis=0), Z.max(axis=0)
    X = minmax(Z, lo, hi)
    if k < ctx.entry.d:
        ctx.warn(f"{ctx.entry.name}: only {k} SVD components (the vocabulary has "
                 f"{tfidf.shape[1]} terms), not {ctx.entry.d}")
    else:
        check_features(ctx, X.shape[1], ctx.label("reviews"))
    check_rows(ctx, X.shape[0], None)
    return {"arrays": {"X": save_dense(ctx, "X", X), "y": save_dense(ctx, "y", y)},
            "label_kind": "ordinal_labels", "n": int(X.shape[0]), "n_test": None,
            "source_labels": label_counts(y),
            "preparation": {"text": "summary + ' ' + reviewText",
                            "tfidf": {k_: v for k_, v in TFIDF.items()},
                            "vocabulary": int(tfidf.shape[1]),
                            "svd": {"n_components": k, "algorithm": "randomized", "n_iter": 5,
                                    "random_state": 0,
                                    "explained_variance": float(svd.explained_variance_ratio_
                                                                .sum())},
                            "scaling": "minmax [0, 1] per SVD component"}}
