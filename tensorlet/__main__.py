"""``python -m tensorlet ...`` is the ``tensorlet`` command."""

import sys

from tensorlet._src.cli import main

sys.exit(main())
