"""Input checks shared by the solvers, through scikit-learn's own validation.

So every solver answers bad input as scikit-learn estimators do (NaN or inf, empty or complex
data, a wrong number of features, use before fit), and passes scikit-learn's estimator checks.
Dense-only solvers accept scipy sparse input as scikit-learn's dense-only estimators could not:
LIBSVM files load as CSR, so a CSR matrix is densified here, once, and the rest of the solver
sees a dense array. Solvers that keep data sparse call scikit-learn's ``validate_data`` with
``accept_sparse`` themselves.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted, validate_data


def _dense(X: Any) -> np.ndarray:
    return X.toarray() if sp.issparse(X) else X


def fit_input(est: Any, X: Any, y: Any, dtype: type) -> tuple[np.ndarray, np.ndarray]:
    """Dense finite X of ``dtype`` and 1-d y of the same length; sets ``n_features_in_``."""
    X, y = validate_data(est, X, y, dtype=dtype, y_numeric=True, ensure_min_samples=2,
                         accept_sparse="csr")
    return _dense(X), y


def predict_input(est: Any, X: Any, dtype: type) -> np.ndarray:
    """Dense finite X of ``dtype`` with the features seen in fit; raises before fit."""
    check_is_fitted(est)
    return _dense(validate_data(est, X, dtype=dtype, reset=False, accept_sparse="csr"))
