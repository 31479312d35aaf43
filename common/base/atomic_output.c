#include "base/atomic_output.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/gzip_file.h"
#include "base/util.h"

struct tt_output {
  char *final_path;
  char *tmp_path;
  char *staged; /* written in place: where the caller stages it (or NULL) */
  FILE *fp;
  int is_stdout;
  int is_device;
  tt_output *next;
};

/* Pending outputs, so a fatal error or a signal can remove them; and the
 * parts committed by tt_output_commit_part, removed the same way until
 * tt_output_keep_parts. */
static tt_output *volatile pending;
static tt_output *volatile committed;
static int handlers_installed;
/* The lists change on two threads in a size split planned ahead (the
 * planner's /dev/null output, the writer's parts); recursive, as
 * tt_output_abort_all aborts each pending output. */
static pthread_mutex_t lists = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};

/* ---- removal that a signal handler may do --------------------------------
 * Only async-signal-safe calls (unlinkat, openat, getdents64, lseek, close)
 * and no library string functions: a temporary may be a file or, for a
 * format that is a directory (an OTF2 archive), a directory tree. */

struct dirent64_raw {
  uint64_t ino;
  int64_t off;
  unsigned short reclen;
  unsigned char type;
  char name[];
};

static int is_dot_or_dotdot(const char *n) {
  return n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'));
}

static void remove_tree_at(int dirfd, const char *name, int depth) {
  if (unlinkat(dirfd, name, 0) == 0 || (errno != EISDIR && errno != EPERM)) return;
  if (depth < 64) {
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
      /* Passes until a pass finds nothing: removing entries while reading
       * a directory may make the same read miss some. */
      for (int pass = 0, found = 1; found && pass < 8; pass++) {
        char buf[2048];
        long n;
        found = 0;
        lseek(fd, 0, SEEK_SET);
        while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
          for (long off = 0; off < n;) {
            struct dirent64_raw *e = (struct dirent64_raw *)(buf + off);
            off += e->reclen;
            if (is_dot_or_dotdot(e->name)) continue;
            found = 1;
            remove_tree_at(fd, e->name, depth + 1);
          }
        }
      }
      close(fd);
    }
  }
  unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* Removes a temporary: a file, or a directory with everything in it. */
static void remove_tmp(const char *path) {
  int saved = errno;
  remove_tree_at(AT_FDCWD, path, 0);
  errno = saved;
}

/* "prog: removed the N parts ..." from a signal handler: no stdio, the
 * message built on the stack and given to write(2) at once. */
static void say_removed_on_signal(size_t n) {
  char buf[256], num[24];
  size_t len = 0, k = 0;
  const char *parts[] = {tt_progname(), ": interrupted: removed the ", NULL,
                         n == 1 ? " part" : " parts",
                         " this run had finished: a failed split leaves none\n"};
  do num[k++] = (char)('0' + n % 10); while ((n /= 10) && k < sizeof num);
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
    if (!parts[i]) {
      while (k && len < sizeof buf) buf[len++] = num[--k];
      continue;
    }
    for (const char *c = parts[i]; *c && len < sizeof buf; c++) buf[len++] = *c;
  }
  ssize_t w = write(STDERR_FILENO, buf, len);
  (void)w;
}

void tt_output_remove_tree(const char *path) { remove_tmp(path); }

static void on_signal(int sig) {
  /* The list is only linked and unlinked between signals, one pointer
   * store at a time, so walking it here sees a consistent list. */
  for (tt_output *o = pending; o; o = o->next)
    if (!o->is_stdout && !o->is_device) remove_tmp(o->tmp_path);
  size_t n = 0;
  for (tt_output *o = committed; o; o = o->next, n++) remove_tmp(o->final_path);
  if (n) say_removed_on_signal(n);
  signal(sig, SIG_DFL);
  raise(sig);
}

static void install_handlers(void) {
  if (handlers_installed) return;
  handlers_installed = 1;
  tt_set_die_hook(tt_output_abort_all); /* a fatal error removes them too */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigfillset(&sa.sa_mask); /* one cleanup at a time */
  for (size_t i = 0; i < sizeof cleanup_signals / sizeof *cleanup_signals; i++) {
    struct sigaction old;
    /* A signal the caller ignores (nohup) stays ignored. */
    if (sigaction(cleanup_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(cleanup_signals[i], &sa, NULL);
  }
}

tt_output *tt_output_begin(const char *final_path) {
  tt_output *o = tt_calloc(1, sizeof *o);
  o->final_path = tt_strdup(final_path);
  struct stat st;
  if (strcmp(final_path, "-") == 0) {
    o->is_stdout = 1;
    o->tmp_path = tt_strdup("-");
  } else if (stat(final_path, &st) == 0 && !S_ISREG(st.st_mode)) {
    /* A device or pipe (/dev/null, a FIFO) is written in place: renaming
     * a temporary over it would replace the device with a file. */
    o->is_device = 1;
    o->tmp_path = tt_strdup(final_path);
  } else {
    /* Say what is wrong with the final name, not with the temporary one. */
    char *dir = tt_strdup(final_path);
    char *slash = strrchr(dir, '/');
    if (slash) slash[slash == dir ? 1 : 0] = '\0';
    struct stat dst;
    int dir_ok = stat(slash ? dir : ".", &dst) == 0;
    int err = errno;
    free(dir);
    if (!dir_ok) tt_die(1, "%s: cannot create: %s", final_path, strerror(err));
    if (!S_ISDIR(dst.st_mode)) tt_die(1, "%s: cannot create: %s", final_path, strerror(ENOTDIR));
    tt_buf b = {0};
    tt_buf_printf(&b, "%s.tmp%ld", final_path, (long)getpid());
    o->tmp_path = b.data;
    remove_tmp(o->tmp_path);
  }
  pthread_mutex_lock(&lists);
  install_handlers();
  o->next = pending;
  pending = o;
  pthread_mutex_unlock(&lists);
  if (!o->is_stdout && !o->is_device) {
    /* Tried here (and removed: the caller may make a directory there),
     * once a signal would remove it, so a directory that refuses it is
     * said the same way for every tool (SQLite's own message gives no
     * reason). */
    int fd = open(o->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) tt_die(1, "%s: cannot create: %s", final_path, strerror(errno));
    close(fd);
    unlink(o->tmp_path);
  }
  return o;
}

const char *tt_output_tmp_path(const tt_output *o) { return o->tmp_path; }
const char *tt_output_final_path(const tt_output *o) { return o->final_path; }
void tt_output_set_staged(tt_output *o, const char *path) {
  free(o->staged);
  o->staged = tt_strdup(path);
}
const char *tt_output_staged_path(const tt_output *o) { return o->staged; }
int tt_output_is_stdout(const tt_output *o) { return o->is_stdout; }

FILE *tt_output_fopen(tt_output *o, const char *mode) {
  if (o->is_stdout) {
    o->fp = stdout;
    return stdout;
  }
  /* "x.json.gz": gzip-compressed (a device such as /dev/null stays plain). */
  if (tt_path_is_gz(o->final_path) && !o->is_device)
    o->fp = tt_gzip_fopen(o->tmp_path);
  else
    o->fp = fopen(o->tmp_path, mode);
  if (!o->fp) tt_die(1, "%s: cannot create: %s", o->final_path, strerror(errno));
  return o->fp;
}

static void unlink_pending(tt_output *o) {
  pthread_mutex_lock(&lists);
  tt_output *volatile *pp = &pending;
  while (*pp && *pp != o) pp = &(*pp)->next;
  if (*pp) *pp = o->next;
  pthread_mutex_unlock(&lists);
}

static void free_output(tt_output *o) {
  free(o->final_path);
  free(o->tmp_path);
  free(o->staged);
  free(o);
}

/* The commit up to the rename; returns 0 or -1 (temporary removed). */
static int finish(tt_output *o) {
  int rc = 0;
  if (o->fp) {
    if (o->is_stdout) {
      /* ferror too: an earlier write may have failed and been dropped. */
      if ((fflush(stdout) != 0) | ferror(stdout)) rc = -1;
    } else if (ferror(o->fp) | (fclose(o->fp) != 0)) {
      rc = -1;
    }
    o->fp = NULL;
  }
  if (rc != 0) {
    tt_error("%s: write failed: %s", o->final_path, strerror(errno));
  } else if (!o->is_stdout && !o->is_device && rename(o->tmp_path, o->final_path) != 0) {
    tt_error("%s: cannot rename from %s: %s", o->final_path, o->tmp_path, strerror(errno));
    rc = -1;
  }
  if (rc != 0 && !o->is_stdout && !o->is_device) remove_tmp(o->tmp_path);
  unlink_pending(o);
  return rc;
}

int tt_output_commit(tt_output *o) {
  int rc = finish(o);
  free_output(o);
  return rc;
}

int tt_output_commit_part(tt_output *o) {
  int renamed = !o->is_stdout && !o->is_device;
  /* Between the rename (off the pending list) and the push onto the
   * committed one, a part is on neither: a signal there would leave it.
   * The cleanup signals wait until it is on the committed list. */
  sigset_t block, old;
  sigemptyset(&block);
  for (size_t i = 0; i < sizeof cleanup_signals / sizeof *cleanup_signals; i++)
    sigaddset(&block, cleanup_signals[i]);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  int rc = finish(o);
  if (rc == 0 && renamed) {
    pthread_mutex_lock(&lists);
    o->next = committed;
    committed = o;
    pthread_mutex_unlock(&lists);
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0 || !renamed) free_output(o);
  return rc;
}

int tt_output_rename_part(const char *from, const char *to) {
  pthread_mutex_lock(&lists);
  int rc = -1;
  for (tt_output *o = committed; o; o = o->next) {
    if (strcmp(o->final_path, from) != 0) continue;
    if (rename(from, to) != 0) {
      tt_error("%s: cannot rename from %s: %s", to, from, strerror(errno));
      break;
    }
    char *old = o->final_path;
    o->final_path = tt_strdup(to);
    free(old);
    rc = 0;
    break;
  }
  pthread_mutex_unlock(&lists);
  return rc;
}

void tt_output_keep_parts(void) {
  pthread_mutex_lock(&lists);
  while (committed) {
    tt_output *o = committed;
    committed = o->next;
    free_output(o);
  }
  pthread_mutex_unlock(&lists);
}

void tt_output_abort(tt_output *o) {
  if (o->fp && !o->is_stdout) fclose(o->fp);
  if (!o->is_stdout && !o->is_device) remove_tmp(o->tmp_path);
  unlink_pending(o);
  free_output(o);
}

const char *tt_output_name_of(const char *path) {
  if (!path) return "?";
  size_t n = strlen(path);
  const char *name = path;
  pthread_mutex_lock(&lists);
  for (tt_output *o = pending; o; o = o->next) {
    size_t m = strlen(o->tmp_path);
    if (strcmp(path, o->tmp_path) == 0 ||
        (n > m && path[n - m - 1] == '/' && strcmp(path + n - m, o->tmp_path) == 0)) {
      name = o->final_path;
      break;
    }
  }
  pthread_mutex_unlock(&lists);
  return name;
}

void tt_output_abort_all(void) {
  pthread_mutex_lock(&lists);
  while (pending) {
    /* A device (the size planner's /dev/null) has nothing to remove and
     * may still be written by another thread: left to its owner. */
    if (pending->is_device) pending = pending->next;
    else tt_output_abort(pending);
  }
  size_t n = 0;
  while (committed) {
    tt_output *o = committed;
    remove_tmp(o->final_path);
    committed = o->next;
    free_output(o);
    n++;
  }
  pthread_mutex_unlock(&lists);
  if (n) tt_warn("removed the %zu part%s this run had finished: a failed split leaves none", n,
                 n == 1 ? "" : "s");
}
