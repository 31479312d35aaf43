/* The calling-context tree of an archive whose part holds CPU samples
 * (docs/exporters.md, "db2otf2: CPU samples").
 *
 * OTF2's calling-context events "are mutually exclusive with the
 * Enter/Leave events in a trace" (OTF2_EvtWriter.h), so in such a part
 * every interval is a CallingContextEnter/Leave, as Score-P's tracing
 * substrate writes them when unwinding is on, and every sample a
 * CallingContextSample. A context is (region, parent, address), interned
 * once: an interval's is its region under the innermost interval open on
 * its location (under its backtrace's frames when it has one), a sample's
 * its frames, outermost first, under the innermost open interval. A frame
 * is a region of paradigm SAMPLING named after its function, its module as
 * the region's source file, its address a CallingContextProperty
 * "address". Memory: the distinct contexts, never the samples. */
#include <stdlib.h>
#include <string.h>

#include "db2otf2.h"
#include "base/util.h"
#include "base/vec.h"

uint32_t o2_context(o2_archive *a, uint32_t region, uint32_t parent, int64_t pc) {
  /* Exact key, no hash standing in for it: the three numbers as text. */
  tt_buf_clear(&a->text);
  tt_buf_put_i64(&a->text, region);
  tt_buf_putc(&a->text, ':');
  tt_buf_put_i64(&a->text, parent == O2_NO_CONTEXT ? -1 : (int64_t)parent);
  tt_buf_putc(&a->text, ':');
  tt_buf_put_i64(&a->text, pc);
  int added;
  int64_t v = *tt_strmap_add(&a->context_index, a->text.data, (int64_t)a->ncontexts, &added);
  if (!added) return (uint32_t)v;
  tt_grow(a->contexts, a->ncontexts + 1, a->cap_contexts);
  uint32_t depth = parent == O2_NO_CONTEXT ? 1 : a->contexts[parent].depth + 1;
  a->contexts[a->ncontexts] =
      (o2_context_def){.region = region, .parent = parent, .depth = depth, .pc = pc,
                       .callsite = -1, .under = O2_NO_CONTEXT};
  if (pc != HUB_NULL) {
    a->s_address = o2_string(a, "address"); /* interned before the definitions */
    a->ncontext_props++;
  }
  return (uint32_t)a->ncontexts++;
}

uint32_t o2_context_parent(const o2_archive *a, uint32_t ctx) {
  return ctx == O2_NO_CONTEXT ? O2_NO_CONTEXT : a->contexts[ctx].parent;
}

/* A frame's region: its function, in its module (the source file). */
static uint32_t frame_region(o2_archive *a, const hub_frame *f) {
  tt_buf_clear(&a->text);
  tt_buf_puts(&a->text, "frame:");
  tt_buf_puts(&a->text, f->module);
  tt_buf_putc(&a->text, '\x01');
  tt_buf_puts(&a->text, f->name);
  int added;
  int64_t v = *tt_strmap_add(&a->region_index, a->text.data, (int64_t)a->nregions, &added);
  if (!added) return (uint32_t)v;
  tt_grow(a->regions, a->nregions + 1, a->cap_regions);
  uint32_t n = o2_string(a, f->name);
  a->regions[a->nregions] = (o2_region_def){
      .name = n, .canonical = n, .file = f->module[0] ? o2_string(a, f->module) : O2_NO_STRING,
      .role = OTF2_REGION_ROLE_FUNCTION, .paradigm = OTF2_PARADIGM_SAMPLING};
  return (uint32_t)a->nregions++;
}

uint32_t o2_callsite_context(o2_archive *a, hub_sample_reader *sr, uint32_t under,
                             int64_t callsite) {
  /* (under, callsite) -> context: a sample's whole chain is looked up
   * once per distinct pair, then in one step. */
  int64_t key = (int64_t)tt_hash_mix(tt_hash_mix(0x9e3779b9, under), (uint64_t)callsite);
  int64_t *v = tt_i64map_get(&a->callsite_contexts, key);
  if (v && a->contexts[*v].callsite == callsite && a->contexts[*v].under == under)
    return (uint32_t)*v;
  const hub_callsite *cs = hub_samples_callsite(sr, callsite);
  uint32_t parent = cs->parent < 0 ? under : o2_callsite_context(a, sr, under, cs->parent);
  const hub_frame *f = hub_samples_frame(sr, cs->frame);
  uint32_t ctx = o2_context(a, frame_region(a, f), parent, f->pc);
  a->contexts[ctx].callsite = callsite;
  a->contexts[ctx].under = under;
  if (!v) tt_i64map_put(&a->callsite_contexts, key, ctx);
  return ctx;
}

uint32_t o2_unwind_distance(const o2_archive *a, uint32_t now, uint32_t prev) {
  /* OTF2_GlobalDefWriter.h, CallingContext: the nodes newly entered
   * since the previous context, plus the one that made progress (their
   * deepest common node, or the undefined root). */
  uint32_t x = now, y = prev, entered = 0;
  uint32_t dx = x == O2_NO_CONTEXT ? 0 : a->contexts[x].depth;
  uint32_t dy = y == O2_NO_CONTEXT ? 0 : a->contexts[y].depth;
  for (; dx > dy; dx--, entered++) x = a->contexts[x].parent;
  for (; dy > dx; dy--) y = a->contexts[y].parent;
  while (x != y) {
    x = a->contexts[x].parent;
    y = a->contexts[y].parent;
    entered++;
  }
  return entered + 1;
}

uint32_t o2_interrupt_generator(o2_archive *a, const char *category) {
  const char *name = category && category[0] ? category : "CPU sampling";
  int added;
  int64_t v = *tt_strmap_add(&a->generator_index, name, (int64_t)a->ngenerators, &added);
  if (!added) return (uint32_t)v;
  tt_grow(a->generators, a->ngenerators + 1, a->cap_generators);
  a->generators[a->ngenerators] = o2_string(a, name);
  return (uint32_t)a->ngenerators++;
}

void o2_write_contexts(o2_archive *a, OTF2_GlobalDefWriter *w, OTF2_ErrorCode *st) {
  /* The hub records no sampling period: 0, "not known". */
  for (size_t i = 0; i < a->ngenerators; i++)
    o2_note(st, OTF2_GlobalDefWriter_WriteInterruptGenerator(
                    w, (OTF2_InterruptGeneratorRef)i, a->generators[i],
                    OTF2_INTERRUPT_GENERATOR_MODE_TIME, OTF2_BASE_DECIMAL, 0, 0));
  /* Parents first: a context is interned after its parent. */
  for (size_t i = 0; i < a->ncontexts; i++) {
    const o2_context_def *c = &a->contexts[i];
    o2_note(st, OTF2_GlobalDefWriter_WriteCallingContext(
                    w, (OTF2_CallingContextRef)i, c->region, OTF2_UNDEFINED_SOURCE_CODE_LOCATION,
                    c->parent == O2_NO_CONTEXT ? OTF2_UNDEFINED_CALLING_CONTEXT : c->parent));
    if (c->pc != HUB_NULL) {
      OTF2_AttributeValue v;
      v.uint64 = (uint64_t)c->pc;
      o2_note(st, OTF2_GlobalDefWriter_WriteCallingContextProperty(
                      w, (OTF2_CallingContextRef)i, a->s_address, OTF2_TYPE_UINT64, v));
    }
  }
}

void o2_contexts_free(o2_archive *a) {
  tt_strmap_free(&a->context_index);
  tt_strmap_free(&a->generator_index);
  tt_i64map_free(&a->callsite_contexts);
  free(a->contexts);
  free(a->generators);
}
