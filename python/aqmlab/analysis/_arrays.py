"""The shape of the analytic models' results.

A vectorised model returns a float for scalar arguments and a numpy array otherwise
(:func:`scalar_or_array`). The models check their arguments with :mod:`aqmlab.base`,
which raises ``ValueError`` naming the argument, the rule and the value received
(``"rho must be > 0, got -1"``).
"""

from __future__ import annotations

from typing import Any, Union

import numpy as np

#: A number or a numpy array of numbers (the models broadcast their arguments).
ArrayLike = Union[float, np.ndarray]


def scalar_or_array(out: Any) -> ArrayLike:
    """A float for a 0-d result (scalar arguments), the array otherwise."""
    return float(out) if np.ndim(out) == 0 else out
