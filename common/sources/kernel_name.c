/* Kernel short names (kernel_name.h): one pass over the name at template
 * and parenthesis depth, keeping the qualified name before the parameter
 * list, then dropping the return type. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sources/demangle.h"
#include "sources/kernel_name.h"

static const char anon[] = "(anonymous namespace)";

/* A '(' that opens a parameter list: right after a name or a template
 * argument list ("f(", "f<int>("), not after a space ("Memset (Device)")
 * and not "(anonymous namespace)". */
static int opens_params(const char *name, const char *p) {
  if (p == name || strncmp(p, anon, sizeof anon - 1) == 0) return 0;
  unsigned char c = (unsigned char)p[-1];
  return isalnum(c) || c == '_' || c == '>' || c == ']';
}

/* The name without template arguments, up to its parameter list; 0 when
 * it has no parameter list and no template arguments (not a signature). */
static int strip(const char *name, tt_buf *out) {
  int depth = 0, templated = 0;
  for (const char *p = name; *p; p++) {
    if (depth == 0 && strncmp(p, anon, sizeof anon - 1) == 0) {
      tt_buf_append(out, p, sizeof anon - 1);
      p += sizeof anon - 2;
      continue;
    }
    if (*p == '<' && depth == 0 && p >= name + 8 && strncmp(p - 8, "operator", 8) == 0) {
      while (*p == '<' || *p == '=') tt_buf_putc(out, *p++); /* "operator<<" is a name */
      p--;
      continue;
    }
    if (*p == '<') {
      depth++;
      templated = 1;
    } else if (*p == '>' && depth > 0) {
      depth--;
    } else if (depth == 0 && *p == '(' && opens_params(name, p)) {
      return 1;
    } else if (depth == 0) {
      tt_buf_putc(out, *p);
    }
  }
  return templated && depth == 0;
}

void tt_kernel_short_name(const char *name, tt_buf *out) {
  tt_buf_clear(out);
  char *demangled = strncmp(name, "_Z", 2) == 0 ? tt_demangle(name) : NULL;
  const char *n = demangled ? demangled : name;
  if (!strip(n, out)) {
    tt_buf_clear(out);
    tt_buf_puts(out, n);
    free(demangled);
    return;
  }
  /* The return type ("void ", "at::Tensor "): all before the last space
   * outside "(anonymous namespace)". */
  const char *s = out->data ? out->data : "";
  const char *cut = NULL;
  for (const char *p = s; *p; p++) {
    if (strncmp(p, anon, sizeof anon - 1) == 0) {
      p += sizeof anon - 2;
      continue;
    }
    if (*p == ' ') cut = p + 1;
  }
  /* trailing spaces of the name itself ("f <int>" is rare): keep it whole */
  if (cut && *cut) {
    size_t len = strlen(cut);
    memmove(out->data, cut, len + 1);
    out->len = len;
  }
  if (out->len == 0) {
    tt_buf_clear(out);
    tt_buf_puts(out, n);
  }
  free(demangled);
}

/* --- categories and vendor-neutral names (kernel_name.h) --------------- */

/* Whether `s` holds `word`, ASCII case ignored. */
static int holds(const char *s, const char *word) {
  size_t n = strlen(word);
  for (; *s; s++)
    if (strncasecmp(s, word, n) == 0) return 1;
  return 0;
}

static int holds_any(const char *s, const char *const *words) {
  for (; *words; words++)
    if (holds(s, *words)) return 1;
  return 0;
}

void tt_kernel_category(const char *name, int is_copy, int copy_dir, int is_memset, tt_buf *out) {
  static const char *const dirs[] = {"copy", "copy HtoD", "copy DtoH", "copy DtoD", "copy HtoH"};
  /* longest first where one holds another (AllReduce holds Reduce) */
  static const char *const collectives[] = {"AllReduce", "AllGather", "ReduceScatter", "AllToAll",
                                            "Broadcast", "SendRecv",  "Reduce",        NULL};
  static const char *const comm[] = {"nccl", "rccl", "all_reduce", "allreduce", "allgather", NULL};
  static const char *const attention[] = {"flash", "fmha", "attention", "attn", "sdpa", NULL};
  static const char *const gemm[] = {"gemm", "cutlass", "cijk_", "cublas", "xmma", "matmul",
                                     "hipblaslt", "wvsplitk", "mm_kernel", "bmm", NULL};
  /* not a bare "conv": "convert" is elementwise; scudnn: cuDNN's
   * volta_scudnn_* convolutions; dgrad/wgrad: their backward passes */
  static const char *const conv[] = {"convolution", "convolve", "conv1d", "conv2d", "conv3d", "winograd",
                                     "scudnn", "implicit_", "im2col", "dgrad", "wgrad", NULL};
  static const char *const norm[] = {"layer_norm", "layernorm", "batch_norm", "batchnorm", "rms_norm",
                                     "rmsnorm", "group_norm", "norm_kernel", NULL};
  static const char *const reduce[] = {"reduce", "argmax", "argmin", "sum_kernel", "cumsum", "scan", NULL};
  static const char *const elementwise[] = {"elementwise", "vectorized", "unrolled", "triton_poi",
                                            "index", "gather", "scatter", "copy", "cat", "fill", NULL};
  tt_buf_clear(out);
  if (is_copy) {
    tt_buf_puts(out, dirs[copy_dir >= 0 && copy_dir <= 4 ? copy_dir : 0]);
    return;
  }
  if (is_memset || holds(name, "memset")) {
    tt_buf_puts(out, "memset");
    return;
  }
  if (holds_any(name, comm)) {
    tt_buf_puts(out, "collective");
    for (const char *const *c = collectives; *c; c++)
      if (holds(name, *c)) {
        tt_buf_printf(out, " %s", *c);
        break;
      }
    return;
  }
  /* what a kernel does before the GEMM it may be built on (a flash
   * kernel's template names cutlass, an implicit-GEMM convolution sgemm) */
  const char *cat = holds_any(name, attention)     ? "attention"
                    : holds(name, "softmax")       ? "softmax"
                    : holds_any(name, norm)        ? "normalization"
                    : holds_any(name, conv)        ? "convolution"
                    : holds_any(name, gemm)        ? "GEMM"
                    : holds_any(name, reduce)      ? "reduction"
                    : holds_any(name, elementwise) ? "elementwise"
                                                   : "other";
  tt_buf_puts(out, cat);
}

/* Whether position p of name starts a word (not inside an identifier). */
static int word_start(const char *name, const char *p) {
  return p == name || !isalnum((unsigned char)p[-1]);
}

void tt_vendor_neutral_name(const char *name, tt_buf *out) {
  static const struct { const char *from, *to; } spellings[] = {
      {"_cudnn_", "dnn_"}, {"_miopen_", "dnn_"}, {"cudnn_", "dnn_"},
      {"miopen_", "dnn_"}, {"cuda", "gpu"},       {"hip", "gpu"}};
  enum { ANYWHERE = 4 }; /* the first four match inside a word too */
  tt_buf_clear(out);
  for (const char *p = name; *p;) {
    size_t i, n = 0;
    for (i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
      n = strlen(spellings[i].from);
      if (strncmp(p, spellings[i].from, n) == 0 && (i < ANYWHERE || word_start(name, p))) break;
    }
    if (i < sizeof spellings / sizeof spellings[0]) {
      tt_buf_puts(out, spellings[i].to);
      p += n;
    } else {
      tt_buf_putc(out, *p++);
    }
  }
}
