"""The command line the project's trace checkers share: [-q] FILE...

run(check, usage) calls check(path, quiet) for each FILE (one process for
many files: the schema is loaded once) and exits with the worst result (0
valid, 1 problems found, 2 cannot run); a wrong command line prints usage
and exits 2."""
import sys


def run(check, usage):
    quiet = "-q" in sys.argv[1:]
    files = [a for a in sys.argv[1:] if a != "-q"]
    if not files:
        sys.stderr.write(usage)
        sys.exit(2)
    try:
        sys.exit(max(check(f, quiet) for f in files))
    except KeyboardInterrupt:
        sys.exit(2)
