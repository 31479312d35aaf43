/* C++ symbol demangling for kernel display names (nvprof and RPD store
 * mangled names): libstdc++'s __cxa_demangle, loaded at run time. */
#ifndef TT_DEMANGLE_H
#define TT_DEMANGLE_H

/* The demangled name (malloc'd, free it), or NULL when `mangled` is not an
 * Itanium C++ ABI name (no "_Z" prefix), does not demangle, or libstdc++
 * is missing. */
char *tt_demangle(const char *mangled);

#endif
