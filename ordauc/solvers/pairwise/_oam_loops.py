"""Compiled loops of online AUC maximisation (Zhao, Hoi, Jin and Yang, ICML 2011).

One pass receives the labeled rows in the order ``order`` (v < n+ is positive v, otherwise
negative v - n+). Receiving x_t (OAM's Algorithm 1): count it, store it in its class's buffer
at ``slots[a]`` (append, reservoir replacement, or -1 = not stored;
:func:`ordauc.solvers.pairwise.order.reservoir_slots`), then update w against every stored
example of the other class (``UpdateClassifier``). Every pair is taken as z = x_pos - x_neg,
which is OAM's y_t (x_t - x) for either class of x_t.

``state`` carries a pass across calls: [a (arrival), b (next partner; -1 = arrival not yet
stored), size_pos, size_neg, seen_pos, seen_neg]. ``budget`` bounds the work of one call (pair
updates for the sequential rule, arrivals for the gradient rule); the return value is the work
done, less than ``budget`` only when the pass has ended.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ordauc.solvers.pairwise._rows import (
    LOOP_OPTIONS,
    dcd_step,
    n_rows,
    pair_axpy,
    pair_stats,
)


@njit(cache=True, nogil=True)
def _receive(order: np.ndarray, slots: np.ndarray, a: int, n_pos: int, buf_pos: np.ndarray,
             buf_neg: np.ndarray, state: np.ndarray) -> None:
    """Count arrival a and store it in its buffer (UpdateBuffer)."""
    v = order[a]
    slot = slots[a]
    if v < n_pos:
        state[4] += 1
        if slot >= 0:
            buf_pos[slot] = v
            state[2] = max(state[2], slot + 1)
    else:
        state[5] += 1
        if slot >= 0:
            buf_neg[slot] = v - n_pos
            state[3] = max(state[3], slot + 1)


@njit(**LOOP_OPTIONS)
def oam_sequential(P: np.ndarray | tuple, N: np.ndarray | tuple, w: np.ndarray,
                   order: np.ndarray, slots: np.ndarray, buf_pos: np.ndarray,
                   buf_neg: np.ndarray, state: np.ndarray, lk_base: float, cap_pos: int,
                   cap_neg: int, budget: int) -> int:
    """OAMseq (and OAMinf, whose buffers never fill): one passive-aggressive step per stored
    partner, in buffer order, each from the w the previous one left.

    The step on pair z is w += tau z, tau = min(C_t/2, max(0, 1 - z^T w)/||z||^2) (PA-I), which
    is a = clip(lk (1 - z^T w)/||z||^2, 0, 1), w += a z / lk with lk = 2/C_t (AUC-DCD Eq. 8 and
    Appendix 2). C_t = C max(1, N_t/N) grows with the count N_t of received examples of the
    partner class once their buffer (size N) is full, so lk = lk_base / max(1, N_t/N), with
    lk_base = 2/C (OAMseq) or lam n+ n- (OAMinf). Budget and return value count pair updates."""
    n_pos = n_rows(P)
    done = 0
    a, b = state[0], state[1]
    while a < order.size and done < budget:
        if b < 0:
            _receive(order, slots, a, n_pos, buf_pos, buf_neg, state)
            b = 0
        v = order[a]
        positive = v < n_pos
        if positive:
            size, lk = state[3], lk_base / max(1.0, state[5] / cap_neg)
        else:
            size, lk = state[2], lk_base / max(1.0, state[4] / cap_pos)
        b_end = min(size, b + (budget - done))
        for bb in range(b, b_end):
            i = v if positive else buf_pos[bb]
            j = buf_neg[bb] if positive else v - n_pos
            zw, zz = pair_stats(P, i, N, j, w)
            tau_lk = dcd_step(0.0, zw, zz, lk)
            if tau_lk > 0.0:
                pair_axpy(tau_lk / lk, P, i, N, j, w)
        done += b_end - b
        if b_end == size:
            a += 1
            b = -1
        else:
            b = b_end
    state[0], state[1] = a, b
    return done


@njit(**LOOP_OPTIONS)
def oam_gradient(P: np.ndarray | tuple, N: np.ndarray | tuple, w: np.ndarray,
                 order: np.ndarray, slots: np.ndarray, buf_pos: np.ndarray,
                 buf_neg: np.ndarray, state: np.ndarray, c_half: float, cap_pos: int,
                 cap_neg: int, budget: int, active: np.ndarray) -> int:
    """OAMgra: one step per arrival, w += C_t/2 sum z over the stored partners whose pair has
    z^T w <= 1 at the w before the step (OAM's gradient rule; the sum is not averaged).
    ``c_half`` = C/2; ``active`` is scratch of the larger buffer's size. Budget and return
    value count arrivals."""
    n_pos = n_rows(P)
    done = 0
    a = state[0]
    while a < order.size and done < budget:
        _receive(order, slots, a, n_pos, buf_pos, buf_neg, state)
        v = order[a]
        positive = v < n_pos
        if positive:
            size, step = state[3], c_half * max(1.0, state[5] / cap_neg)
        else:
            size, step = state[2], c_half * max(1.0, state[4] / cap_pos)
        # Every margin at the same w first, then the steps.
        for bb in range(size):
            i = v if positive else buf_pos[bb]
            j = buf_neg[bb] if positive else v - n_pos
            active[bb] = pair_stats(P, i, N, j, w)[0] <= 1.0
        for bb in range(size):
            if active[bb]:
                i = v if positive else buf_pos[bb]
                j = buf_neg[bb] if positive else v - n_pos
                pair_axpy(step, P, i, N, j, w)
        a += 1
        done += 1
    state[0], state[1] = a, -1
    return done
