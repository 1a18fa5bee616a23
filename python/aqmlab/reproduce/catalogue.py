"""Imports every experiment module so that they register their ids, in catalogue order."""

from . import floyd1993  # noqa: F401
