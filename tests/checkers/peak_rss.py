#!/usr/bin/python3
"""peak_rss.py CMD...: runs CMD (stdout to /dev/null) and prints its peak
resident set size in KiB (getrusage of the child), then exits with CMD's
status. Independent of the code under test."""
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)
