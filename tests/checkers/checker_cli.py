"""The command line the project's trace checkers share: [-q] FILE...

run(check, usage) calls check(path, quiet) for each FILE (one process for
many files: the schema is loaded once) and exits with the worst result (0
valid, 1 problems found, 2 cannot run); a wrong command line prints usage
and exits 2. Problems and read_bytes are what a JSON checker's check()
shares: its problems said as found, and its input read."""
import json
import sys

SHOW = 25  # problems said per file; the rest are counted


class Problems(list):
    """One file's problems: the first SHOW said on stderr as found."""

    def __init__(self, path):
        super().__init__()
        self.path = path

    def __call__(self, msg):
        self.append(msg)
        if len(self) <= SHOW:
            sys.stderr.write("%s: %s\n" % (self.path, msg))

    def finish(self, quiet, stats):
        """Counts what was not shown, prints stats (and "errors") as one
        JSON line unless quiet; the exit status: 1 with problems, else 0."""
        if len(self) > SHOW:
            sys.stderr.write("%s: %d more problems not shown\n" % (self.path, len(self) - SHOW))
        if not quiet:
            print(json.dumps(dict(stats, errors=len(self)), separators=(",", ":"),
                             sort_keys=True))
        return 1 if self else 0


def read_bytes(path):
    """The file's bytes, or None once it is said why it cannot be opened."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        sys.stderr.write("%s: cannot open: %s\n" % (path, e.strerror))
        return None


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
