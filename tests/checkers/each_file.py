#!/usr/bin/python3
"""each_file.py VALIDATOR FILE...: runs a Python validator (a script whose
main(argv) takes one file, as ../shared/tools' pftrace-check,
chrome-json-check and otf2-check do) on each FILE in turn, as
`VALIDATOR -q FILE` would, in this one interpreter: its start and imports
(protobuf, the compiled schema) cost more than checking a small file.

Output, for each FILE the validator does not pass: its own "FILE: problem"
lines (stderr while it ran), then "FILE: exit N". Nothing for a file it
passes. Exit 0 when every file passed, 1 when any did not, 2 when the
validator cannot be loaded (then no file is vouched for).

A validator without a main(argv), or not in Python, is run as a program,
once per file."""
import contextlib, importlib.machinery, importlib.util, io, subprocess, sys, traceback


def load(path):
    """The validator as a module, or None to run it as a program: a script
    of another language (its #! line names no python), or one without
    main(argv)."""
    with open(path, "rb") as f:
        first = f.readline()
    if first.startswith(b"#!") and b"python" not in first:
        return None
    loader = importlib.machinery.SourceFileLoader("tt_validator", path)
    spec = importlib.util.spec_from_loader("tt_validator", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)                    # __name__ is not "__main__": nothing runs
    return mod if callable(getattr(mod, "main", None)) else None


def run_in_process(mod, script, path):
    """The validator's exit code and what it wrote, as its __main__ would."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(err):
        try:
            rc = mod.main([script, "-q", path])
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
        except Exception:                      # the validator's bug: no verdict
            traceback.print_exc()
            rc = 2
    return rc or 0, err.getvalue()


def run_as_program(script, path):
    p = subprocess.run([script, "-q", path], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, errors="replace")
    return p.returncode, p.stdout


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    script, files = argv[1], argv[2:]
    try:
        mod = load(script)
    except Exception as e:
        sys.stderr.write("each_file.py: cannot load %s: %r\n" % (script, e))
        return 2
    failed = 0
    for path in files:
        rc, text = run_in_process(mod, script, path) if mod else run_as_program(script, path)
        if rc == 0:
            continue
        failed = 1
        for line in text.splitlines():
            # Every line of a failed file names it, so a caller can tell whose it is.
            print(line if line.startswith(path + ": ") else "%s: %s" % (path, line))
        print("%s: exit %d" % (path, rc))
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv))
