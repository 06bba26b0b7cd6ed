"""``python -m pgmpy_ext.cli``: the ``pgmpy-ext`` command (handy from a checkout, where the console script is the
installed copy's)."""

import sys

from pgmpy_ext.cli import main

sys.exit(main())
