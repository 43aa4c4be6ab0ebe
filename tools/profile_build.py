"""Profile one `mkdocs build` in this process: `python -m tools.profile_build OUT.prof [mkdocs build args]`.

The build hook forks the build into a child (hooks/build_hook.py); a profile of the parent sees only
the wait. Here the build runs in-process (the hook's path for a platform without fork) and figures
render in it too (ROOFLINE_FIGURE_WORKERS=1), so cProfile sees all of it. Prints the top entries by
own time and by cumulative time.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import sys


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m tools.profile_build OUT.prof [mkdocs build arguments]", file=sys.stderr)
        return 2
    out, args = argv[0], argv[1:]
    os.environ["ROOFLINE_FIGURE_WORKERS"] = "1"
    del os.fork  # the build hook then builds in this process (its no-fork path)
    from mkdocs.__main__ import cli

    sys.argv = ["mkdocs", "build", *args]
    profile = cProfile.Profile()
    try:
        profile.runcall(cli)
    except SystemExit as done:
        code = done.code or 0
    profile.dump_stats(out)
    stats = pstats.Stats(out)
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(40)
    return int(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
