"""``python -m grading``. A command that grades starts its fork server first, so the engine
imports and warms up while the command line's own imports load (grading.forkserver)."""

import sys

from grading import forkserver

if sys.argv[1:2] in (["grade"], ["cases"]):
    forkserver.start_early()

from grading.cli import main  # noqa: E402  (after the fork server has started)

sys.exit(main())
