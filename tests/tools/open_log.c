/* A test's witness of which files a tool opens (LD_PRELOAD): every path
 * passed to open/openat (what SQLite's unix VFS calls, once per
 * connection to a database file) is appended, one per line, to the file
 * named by OPEN_LOG. test_align counts the connections to each hub:
 * independent of the tool's own code, which knows nothing of it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static void note(const char *path) {
  const char *log = getenv("OPEN_LOG");
  if (!log || !path) return;
  int fd = ((int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open"))(
      log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char line[4200];
  int n = snprintf(line, sizeof line, "%s\n", path);
  if (n > 0 && (size_t)n < sizeof line && write(fd, line, (size_t)n) < 0) n = 0;
  close(fd);
}

#define MODE_ARG(flags, mode)                                                                      \
  mode_t mode = 0;                                                                                 \
  if ((flags) & (O_CREAT | O_TMPFILE)) {                                                           \
    va_list ap;                                                                                    \
    va_start(ap, flags);                                                                           \
    mode = (mode_t)va_arg(ap, int);                                                                \
    va_end(ap);                                                                                    \
  }

int open(const char *path, int flags, ...) {
  MODE_ARG(flags, mode)
  note(path);
  return ((int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open"))(path, flags, mode);
}

int open64(const char *path, int flags, ...) {
  MODE_ARG(flags, mode)
  note(path);
  return ((int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open64"))(path, flags, mode);
}

int openat(int dir, const char *path, int flags, ...) {
  MODE_ARG(flags, mode)
  note(path);
  return ((int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat"))(dir, path, flags, mode);
}

int openat64(int dir, const char *path, int flags, ...) {
  MODE_ARG(flags, mode)
  note(path);
  return ((int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat64"))(dir, path, flags,
                                                                               mode);
}
