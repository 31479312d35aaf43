/* db2diff's html: written later in this branch. */
#include "db2diff.h"

int dd_write_html(const dd_report *r, FILE *fp) {
  (void)r;
  (void)fp;
  tt_error("--format html: not written yet");
  return -1;
}
