"""Imports every experiment module so that they register their ids, in catalogue order."""
# ruff: noqa: I001  (the order is the catalogue order: each import registers its ids)

from . import floyd1993  # noqa: F401
from . import floyd1993_multirun  # noqa: F401
from . import floyd1993_twoway  # noqa: F401
from . import bonald2000  # noqa: F401
from . import bonald2000_tcp  # noqa: F401
