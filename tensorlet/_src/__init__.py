"""tensorlet's implementation.  Importing it registers every op family and public name."""

from tensorlet._src import api_framework  # noqa: F401
from tensorlet._src.ops import FAMILIES  # noqa: F401
from tensorlet._src.ops import operators  # noqa: F401
from tensorlet._src import autodiff  # noqa: F401
from tensorlet._src.ops import indexed_slices  # noqa: F401
from tensorlet._src.util import nest  # noqa: F401
from tensorlet._src import graph  # noqa: F401
