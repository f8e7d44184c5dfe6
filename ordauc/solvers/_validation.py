"""Input checks shared by the solvers, through scikit-learn's own validation.

So every solver answers bad input as scikit-learn estimators do (NaN or inf, empty or complex
data, sparse data where dense is needed, a wrong number of features, use before fit), and
passes scikit-learn's estimator checks.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data


def fit_input(est: Any, X: Any, y: Any, dtype: type) -> tuple[np.ndarray, np.ndarray]:
    """Dense finite X of ``dtype`` and 1-d y of the same length; sets ``n_features_in_``."""
    X, y = validate_data(est, X, y, dtype=dtype, y_numeric=True, ensure_min_samples=2)
    return X, y


def predict_input(est: Any, X: Any, dtype: type) -> np.ndarray:
    """Dense finite X of ``dtype`` with the features seen in fit; raises before fit."""
    check_is_fitted(est)
    return validate_data(est, X, dtype=dtype, reset=False)
