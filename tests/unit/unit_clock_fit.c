/* --align's arithmetic (issue 38): the time map and its inverse with
 * values worked out by hand, its monotony under drift, and the robust fit
 * (hub_clock_fit.h) on pairs of known offset and drift, with outliers a
 * least-squares fit would follow. */
#include <stdint.h>
#include <stdlib.h>

#include "../common/hub/hub_clock_fit.h"
#include "../common/hub/hub_time_map.h"
#include "unit.h"

int main(void) {
  hub_time_map off = {.offset_ns = 1000};
  CHECK(hub_time_map_apply(&off, 5000) == 4000, "offset 1000: host 5000 is 4000 on the timeline");
  CHECK(hub_time_map_invert(&off, 4000) == 5000, "and back: 4000 -> 5000");

  /* t_h = t_ref + 1e-4 (t_ref - 1e6): t_ref 11e6 reads 11001000 on the host */
  hub_time_map dr = {.drift_ppm = 100, .anchor_ns = 1000000};
  CHECK(hub_time_map_apply(&dr, 11001000) == 11000000, "100 ppm from 1 ms: 11001000 -> %lld",
        (long long)hub_time_map_apply(&dr, 11001000));
  CHECK(hub_time_map_invert(&dr, 11000000) == 11001000, "the smallest host time at 11000000: %lld",
        (long long)hub_time_map_invert(&dr, 11000000));
  CHECK(hub_time_map_apply(&dr, 1000000) == 1000000, "the anchor stays where it is");

  int monotone = 1;
  for (int s = -1; s <= 1; s += 2) {
    hub_time_map m = {.offset_ns = -123456789012345, .drift_ppm = 50.0 * s, .anchor_ns = 7};
    int64_t prev = hub_time_map_apply(&m, 518400000000000);
    for (int64_t t = 518400000000001; t < 518400000200000; t++) {
      int64_t v = hub_time_map_apply(&m, t);
      if (v < prev) monotone = 0;
      prev = v;
    }
  }
  CHECK(monotone, "+-50 ppm over 200000 consecutive boot-clock ns: never reorders");

  /* 3 pairs: no drift (fewer than HUB_FIT_DRIFT_MIN); offset the median */
  hub_clock_pair three[] = {{1000, 1100, 0, 0}, {2000, 2110, 0, 0}, {3000, 3130, 0, 0}};
  hub_clock_fit f;
  hub_clock_fit_pairs(three, 3, &f);
  CHECK(f.offset_ns == 110 && f.drift_ppm == 0 && f.anchor_ns == 1000,
        "3 pairs 100, 110, 130 apart: offset 110 (%lld), no drift", (long long)f.offset_ns);
  CHECK(f.resid_median_ns == 10 && f.resid_p99_ns == 20 && f.used == 3,
        "residuals 10, 0, 20: median 10 (%lld), p99 20 (%lld)", (long long)f.resid_median_ns,
        (long long)f.resid_p99_ns);

  /* 40 collectives 50 ms apart, 7 ms ahead and 20 ppm fast, +-1 us of end
   * skew, 5 of them 5 ms late (a rank descheduled) */
  hub_clock_pair p[40];
  for (int i = 0; i < 40; i++) {
    int64_t ref = 1000000000 + (int64_t)i * 50000000;
    int64_t noise = (i * 7919) % 2001 - 1000;
    p[i].ref_end = ref;
    p[i].ref_start = ref - 200000;
    p[i].host_end = ref + 7000000 + (ref - 1000000000) / 50000 + noise + (i % 8 == 3 ? 5000000 : 0);
  }
  hub_clock_fit_pairs(p, 40, &f);
  CHECK(f.drift_ppm > 19.0 && f.drift_ppm < 21.0, "drift 20 ppm found: %.3f", f.drift_ppm);
  CHECK(llabs(f.offset_ns - 7000000) <= 1500, "offset 7 ms found within 1.5 us: %lld",
        (long long)f.offset_ns);
  CHECK(f.resid_median_ns <= 1500 && f.resid_p99_ns >= 4900000 && f.used == 40,
        "residual median %lld ns (the skew), p99 %lld ns (the 5 late ones show)",
        (long long)f.resid_median_ns, (long long)f.resid_p99_ns);

  /* The verdict (issue 44). The same 40 pairs, kernels of 200 us: the
   * 5 late ones are not inliers (5 ms off, more than half a kernel), the
   * refit on the 35 others is accepted. */
  for (int i = 0; i < 40; i++) p[i].host_start = p[i].host_end - 200000;
  hub_clock_judgement j;
  hub_clock_judge(p, 40, 40, 40, &j);
  CHECK(j.verdict == HUB_FIT_ACCEPTED && j.inliers == 35 && j.fit.used == 35 &&
            j.fit.resid_p99_ns <= 1500 && llabs(j.fit.offset_ns - 7000000) <= 1500,
        "40 pairs, 5 late: accepted on the 35 inliers (verdict %d, %zu inliers, p99 %lld)",
        (int)j.verdict, j.inliers, (long long)j.fit.resid_p99_ns);
  /* Half the reference's instances unmatched: too few. */
  hub_clock_judge(p, 40, 81, 40, &j);
  CHECK(j.verdict == HUB_FIT_TOO_FEW, "40 matched of 81 on the reference: too few (%d)", (int)j.verdict);
  /* Unrelated ends: 1 ms collectives whose ends differ by a random 0-20 ms. */
  hub_clock_pair u[60];
  for (int i = 0; i < 60; i++) {
    int64_t ref = 1000000000 + (int64_t)i * 20000000;
    u[i] = (hub_clock_pair){ref, ref + 3000000 + ((int64_t)i * 7919 * 104729) % 20000000,
                            ref - 1000000, 0};
    u[i].host_start = u[i].host_end - 1000000;
  }
  hub_clock_judge(u, 60, 60, 60, &j);
  CHECK(j.verdict != HUB_FIT_ACCEPTED, "unrelated ends: refused (%s: %s)",
        hub_fit_verdict_name(j.verdict), j.why);
  /* A drift of 2000 ppm (time would run twice as fast): refused, never applied. */
  hub_clock_pair d[40];
  for (int i = 0; i < 40; i++) {
    int64_t ref = 1000000000 + (int64_t)i * 50000000;
    d[i] = (hub_clock_pair){ref, ref + (ref - 1000000000) / 500, ref - 5000000, 0};
    d[i].host_start = d[i].host_end - 5000000;
  }
  hub_clock_judge(d, 40, 40, 40, &j);
  CHECK(j.verdict == HUB_FIT_DRIFT, "2000 ppm: refused for its drift (%s)", hub_fit_verdict_name(j.verdict));

  /* No map loops, whatever its drift: the inverse returns (bounded). */
  hub_time_map back = {.offset_ns = 5, .drift_ppm = -2000023, .anchor_ns = 100};
  int64_t t = hub_time_map_invert(&back, 123456789);
  CHECK(t == t, "a backwards map's inverse returns");
  hub_time_map ok = {.drift_ppm = 1000};
  CHECK(hub_time_map_valid(&ok) && !hub_time_map_valid(&back), "1000 ppm valid, -2000023 ppm not");
  return failures != 0;
}
