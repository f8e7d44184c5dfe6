"""Algorithm 1 of the QSG papers written plainly, as the reference for tests and benchmarks.

Float64 throughout, every block drawn again from its seed at every prediction (Algorithm 2),
f evaluated at every sampled point, the old coefficients shrunk one by one (Eq. 14/16). It
draws the same samples and the same frequencies as :class:`ordauc.solvers.dsg.qsg.QSGS2AUC` and
:class:`~ordauc.solvers.dsg.qsg.QS3ORAO` with the same parameters, so both produce the same iterates
up to floating-point rounding. Only the ``cos_sin`` feature map; O(T^2) block draws.
"""

from __future__ import annotations

import numpy as np

from ordauc.solvers._labels import draw_batches, split_labels
from ordauc.solvers.dsg.random_features import draw_block
from ordauc.solvers.dsg.schedule import Schedule, batch_generator
from ordauc.solvers.objective import gamma_vector


def _block(seed: int, i: int, m: int, d: int, sigma: float) -> np.ndarray:
    """Frequencies of block i as float64 (the float32 draws of the fast engine, widened)."""
    return draw_block(seed, i, m, d, sigma)[0].astype(np.float64)


def _phi(X: np.ndarray, W: np.ndarray) -> np.ndarray:
    Z = X @ W.T
    return np.concatenate([np.cos(Z), np.sin(Z)], axis=1) / np.sqrt(W.shape[0])


def _pair_mean(f_a: np.ndarray, f_b: np.ndarray, phi_a: np.ndarray, phi_b: np.ndarray
               ) -> np.ndarray:
    """mean over all pairs (a, b) of dl/du phi(x_a) + dl/dv phi(x_b) for l = (1 - u + v)^2."""
    r = 1.0 - f_a[:, None] + f_b[None, :]  # residual of every pair
    d_u, d_v = -2.0 * r, 2.0 * r
    return (d_u[:, :, None] * phi_a[:, None, :] + d_v[:, :, None] * phi_b[None, :, :]
            ).mean(axis=(0, 1))


def predict(X: np.ndarray, alphas: list[np.ndarray], seed: int, m: int, sigma: float
            ) -> np.ndarray:
    """Algorithm 2: f(x) = sum_i alpha_i^T phi_{omega_i}(x), each omega_i drawn from seed i."""
    X = np.asarray(X, dtype=np.float64)
    f = np.zeros(X.shape[0])
    for i, a in enumerate(alphas):
        f += _phi(X, _block(seed, i, m, X.shape[1], sigma)) @ a
    return f


def fit(X: np.ndarray, y: np.ndarray, *, lam: float, sigma: float, gamma: float,
        n_iter: int, batch_size: int, block_size: int, random_state: int,
        step: str = "inverse", theta: float | None = None, t0: float | None = None,
        theta_decay: float = 1e-4, binary: bool = True) -> list[np.ndarray]:
    """The coefficients alpha_1..alpha_T of Algorithm 1 (binary 0/1 or ordinal 1..k labels)."""
    X = np.asarray(X, dtype=np.float32).astype(np.float64)
    lab = split_labels(y, "binary" if binary else "ordinal")
    k, b, m = lab.n_classes, batch_size, block_size
    g = gamma_vector(gamma, k)
    schedule = Schedule.resolve(step, lam, theta, t0, theta_decay)
    X_l, X_all_u = X[lab.labeled], lab.unlabeled
    use_u = bool(np.any(g < 1.0)) and X_all_u.size > 0
    pools = lab.batch_pools(with_unlabeled=use_u)  # the engine's samples, in its order
    rng = batch_generator(random_state)
    alphas: list[np.ndarray] = []
    for t in range(1, n_iter + 1):
        draws, u = draw_batches(rng, pools, b)
        u = np.empty(0, dtype=int) if u is None else u
        X_u = X[u]
        # One prediction for every sampled point of this iteration (Algorithm 1, line 9).
        pts = np.concatenate([X_u] + [X_l[idx] for pair in draws for idx in pair])
        f_all = predict(pts, alphas, random_state, m, sigma)
        W = _block(random_state, t - 1, m, X.shape[1], sigma)
        phi_all = _phi(pts, W)
        f_u, phi_u = f_all[: u.size], phi_all[: u.size]
        grad = np.zeros(2 * m)
        at = u.size
        for j in range(k - 1):
            sl_p, sl_n = slice(at, at + b), slice(at + b, at + 2 * b)
            at += 2 * b
            f_p, f_n, phi_p, phi_n = f_all[sl_p], f_all[sl_n], phi_all[sl_p], phi_all[sl_n]
            # Mean over all pairs (a, b) of l1 phi(x_a) + l2 phi(x_b), l = (1 - f_a + f_b)^2.
            part = g[j] * _pair_mean(f_p, f_n, phi_p, phi_n)
            if use_u:
                part += (1.0 - g[j]) * (_pair_mean(f_p, f_u, phi_p, phi_u)
                                        + _pair_mean(f_u, f_n, phi_u, phi_n))
            grad += part / (k - 1)
        eta = schedule.eta(t)
        for a in alphas:  # Eq. (14)/(16): shrink every old coefficient
            a *= 1.0 - eta * lam
        alphas.append(-eta * grad)
    return alphas


def decision_float64(model: object, X: np.ndarray) -> np.ndarray:
    """f(X) of a fitted QSG model in float64 throughout (arguments, cosines, sums): the
    reference its float32 evaluations (``decision_function``, the pass's tracked values) are
    compared with."""
    blocks, f = model.blocks_, np.zeros(X.shape[0])  # type: ignore[attr-defined]
    for i in range(model.coef_.shape[0]):  # type: ignore[attr-defined]
        W, phase = blocks.draw(i)
        Z = X.astype(np.float64) @ W.astype(np.float64).T
        F = np.cos(Z + phase) if blocks.phase else np.hstack([np.cos(Z), np.sin(Z)])
        f += F @ model.coef_[i]  # type: ignore[attr-defined]
    return f * blocks.norm * model.scale_  # type: ignore[attr-defined]
