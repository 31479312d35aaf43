/* Kernel display names. nvprof and RPD files store mangled names; the C++
 * ABI's demangler ships in libstdc++6 (always installed beside the compiler).
 * It is loaded with dlopen so the tool links with the project's flags and
 * still runs, showing mangled names, where libstdc++ is missing. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "sources/demangle.h"

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

static demangle_fn load(void) {
  static int tried;
  static demangle_fn fn;
  if (tried) return fn;
  tried = 1;
  void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
  if (!lib) return NULL;
  void *sym = dlsym(lib, "__cxa_demangle");
  memcpy(&fn, &sym, sizeof fn); /* object to function pointer, as POSIX allows */
  return fn;                    /* lib stays loaded for the process's life */
}

char *tt_demangle(const char *mangled) {
  if (!mangled || strncmp(mangled, "_Z", 2) != 0) return NULL;
  demangle_fn fn = load();
  if (!fn) return NULL;
  int status = 0;
  char *out = fn(mangled, NULL, NULL, &status);
  if (status != 0) {
    free(out);
    return NULL;
  }
  return out;
}
