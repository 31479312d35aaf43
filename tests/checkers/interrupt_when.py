"""interrupt_when.py SIGNAL GLOB MIN_BYTES CMD...: runs CMD, and sends it
SIGNAL (INT, TERM, HUP) as soon as a path matching GLOB exists holding at
least MIN_BYTES (a directory counts the bytes of its files), or right away
when MIN_BYTES is negative. Prints CMD's exit status (negative: the
signal that ended it) and whether the signal was sent. Interrupts at a
chosen moment of a run, whatever the machine's load, unlike a timeout."""
import glob, os, signal, subprocess, sys, time

sig = getattr(signal, "SIG" + sys.argv[1])
pattern, need = sys.argv[2], int(sys.argv[3])


def size(path):
    if os.path.isdir(path):
        total = 0
        for root, _, files in os.walk(path):
            for f in files:
                try:
                    total += os.lstat(os.path.join(root, f)).st_size
                except OSError:
                    pass
        return total
    try:
        return os.lstat(path).st_size
    except OSError:
        return -1


# The tool gets the default action for SIGINT even when this script was
# started in the background (where a shell ignores SIGINT).
p = subprocess.Popen(sys.argv[4:], stderr=subprocess.DEVNULL,
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
sent = False
while p.poll() is None:
    if need < 0 or any(size(f) >= need for f in glob.glob(pattern)):
        p.send_signal(sig)
        sent = True
        break
    time.sleep(0.001)
print(p.wait(), "sent" if sent else "finished")
