"""MovieLens 1M as NPSVOR's collaborative-filtering task (Wang et al. 2017, section V-E).

The paper follows Chu & Keerthi (2007): one target user; the movies that user rated are the
samples; the 1500 other users with the most ratings on those movies are the features (their
ratings, unobserved entries imputed with the user's mean over those movies); the target user's
rating (1..5) is the label. The paper reports 518 movies for its target user and a 503 x 1500
input matrix with 35.17 % observed entries, but not who the target user was: by default this
recipe takes the first user (smallest id) with exactly 518 ratings, else the one whose count is
nearest to 518, and it drops movies none of the 1500 users rated. ``ml-1m.zip`` (GroupLens,
Harper & Konstan 2015) may not be redistributed.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from ordauc.data.archive import open_stream
from ordauc.data.prepare import Context, check_rows, label_counts, save_dense
from ordauc.errors import UserError

RATINGS = "ml-1m/ratings.dat"


def read_ratings(ctx: Context) -> np.ndarray:
    """``(user, movie, rating)`` rows of ``ratings.dat`` (``UserID::MovieID::Rating::Time``)."""
    import pandas as pd

    where = ctx.label("archive", RATINGS)
    with open_stream(ctx.path("archive", RATINGS)) as stream:
        text = stream.read()
    try:
        frame = pd.read_csv(io.BytesIO(text.replace(b"::", b"\t")), sep="\t", header=None,
                            dtype=np.int64, usecols=[0, 1, 2])
        if frame.shape[1] != 3 or frame.isna().any().any():
            raise ValueError("missing fields")
    except (ValueError, pd.errors.ParserError):
        for number, line in enumerate(text.splitlines(), start=1):
            fields = line.split(b"::")
            if len(fields) != 4 or not all(f.strip().isdigit() for f in fields):
                raise UserError(f"{where}, line {number}: not of the form "
                                "UserID::MovieID::Rating::Timestamp, so nothing was stored"
                                ) from None
        raise UserError(f"{where} could not be parsed, so nothing was stored") from None
    data = frame.to_numpy()
    if data.size == 0 or data[:, 2].min() < 1 or data[:, 2].max() > 5:
        raise UserError(f"{where} has ratings outside 1..5, so nothing was stored")
    return data


def pick_target_user(data: np.ndarray, n_movies: int) -> int:
    """The first user with exactly ``n_movies`` ratings, else the one nearest to that count."""
    users, counts = np.unique(data[:, 0], return_counts=True)
    distance = np.abs(counts - n_movies)
    return int(users[np.lexsort((users, distance))[0]])


def movielens(ctx: Context) -> dict[str, Any]:
    """Movies rated by the target user x the 1500 most active other users, mean-imputed."""
    o = ctx.entry.options
    n_users = int(o.get("n_users", 1500))
    data = read_ratings(ctx)
    target = o.get("target_user") or pick_target_user(data, int(o.get("target_movies", 518)))
    mine = data[data[:, 0] == target]
    if mine.shape[0] == 0:
        raise UserError(f"MovieLens has no user {target}, so nothing was stored")
    movies = np.sort(mine[:, 1])
    others = data[(data[:, 0] != target) & np.isin(data[:, 1], movies)]
    users, counts = np.unique(others[:, 0], return_counts=True)
    chosen = np.sort(users[np.lexsort((users, -counts))[:n_users]])
    rows = np.searchsorted(movies, others[:, 1])
    cols_all = np.searchsorted(chosen, others[:, 0])
    keep = (cols_all < chosen.size) & (chosen[np.minimum(cols_all, chosen.size - 1)]
                                       == others[:, 0])
    M = np.full((movies.size, chosen.size), np.nan, dtype=np.float64)
    M[rows[keep], cols_all[keep]] = others[keep, 2]
    observed = ~np.isnan(M)
    rated = observed.any(axis=1)
    M, observed = M[rated], observed[rated]
    column_mean = np.nanmean(M, axis=0)  # every chosen user rated at least one kept movie
    X = np.where(observed, M, column_mean).astype(np.float32)
    y_by_movie = dict(zip(mine[:, 1].tolist(), mine[:, 2].tolist(), strict=True))
    y = np.asarray([y_by_movie[m] for m in movies[rated]], dtype=np.int64)
    if chosen.size < n_users:
        ctx.warn(f"{ctx.entry.name}: only {chosen.size} other users rated the target user's "
                 f"movies, not {n_users}")
    check_rows(ctx, X.shape[0], None)
    return {"arrays": {"X": save_dense(ctx, "X", X), "y": save_dense(ctx, "y", y)},
            "label_kind": "ordinal_labels", "n": int(X.shape[0]), "n_test": None,
            "d": int(X.shape[1]), "source_labels": label_counts(y),
            "preparation": {"protocol": "Chu & Keerthi 2007 / NPSVOR section V-E",
                            "target_user": int(target), "target_user_movies": int(movies.size),
                            "movies_kept": int(rated.sum()), "feature_users": int(chosen.size),
                            "feature_user_ids": chosen.tolist(),
                            "movie_ids": movies[rated].tolist(),
                            "observed_fraction": float(observed.mean()),
                            "imputation": "each user's mean rating over the kept movies",
                            "scaling": "none"}}
