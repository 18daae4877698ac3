#ifndef PTOP_DEMANGLE_H
#define PTOP_DEMANGLE_H
/* Longer mangled names are left as they are: the demangler recurses on its input. */
#define DEMANGLE_MAX_INPUT 1024
/* The readable name of a C++ or Rust (legacy mangling) symbol, or sym itself. */
const char *demangle(const char *sym);
#endif
