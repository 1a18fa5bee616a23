"""Imports every experiment module so that they register their ids, in catalogue order."""

from . import floyd1993  # noqa: F401
from . import bonald2000  # noqa: F401
