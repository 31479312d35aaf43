/* tt_glob_match (--category, --name, db2summary's families) with values
 * worked out by hand from fnmatch's rules without flags. */
#include "../common/base/util.h"
#include "unit.h"

static void glob(const char *pattern, const char *s, int want) {
  int got = tt_glob_match(pattern, s);
  CHECK(got == want, "glob \"%s\" on \"%s\" -> %d (want %d)", pattern, s, got, want);
}

int main(void) {
  /* Whole-string matches, case-sensitive (callers fold case), '/' and a
   * leading '.' not special. */
  glob("hip*", "hip_api", 1);
  glob("hip*", "hip", 1);
  glob("hip*", "HIP_API", 0);
  glob("hip", "hip_api", 0);
  glob("*api", "hip_api", 1);
  glob("*api", "hip_api_x", 0);
  glob("*", "", 1);
  glob("", "", 1);
  glob("", "x", 0);
  glob("?", "a", 1);
  glob("?", "", 0);
  glob("?", "ab", 0);
  glob("cuda_[rd]*", "cuda_runtime", 1);
  glob("cuda_[rd]*", "cuda_driver", 1);
  glob("cuda_[rd]*", "cuda_kernel", 0);
  glob("cuda_[!rd]*", "cuda_kernel", 1);
  glob("[a-c]x", "bx", 1);
  glob("[a-c]x", "dx", 0);
  glob("a*b", "a/b", 1);
  glob("*", ".hidden", 1);
  glob("\\*", "*", 1);
  glob("\\*", "x", 0);
  glob("gpu_*_op", "gpu_mem_op", 1);
  glob("gpu_*_op", "gpu_mem_ops", 0);

  return failures ? 1 : 0;
}
