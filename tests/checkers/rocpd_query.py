"""rocpd_query.py SQL DB... : runs SQL over hub databases loaded the way
rocpd's own Python tools load them (tests/checkers/rocpd_views.py's load: every file
ATTACHed, one TEMP view per base table over every uuid, then rocpd's four
view SQL files from tests/data/rocpd/), and prints the rows '|'-separated: what
rocpd's top_kernels, kernels, busy ... list for those databases.
Exit 2 when rocpd's SQL cannot run on the input."""
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from rocpd_views import load  # noqa: E402


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        con, _ = load(argv[1:])
        for row in con.execute(argv[0]):
            print("|".join("" if v is None else str(v) for v in row))
    except (sqlite3.Error, OSError) as e:
        print(f"{' '.join(argv[1:])}: rocpd's SQL failed: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
