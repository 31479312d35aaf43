#include "hub/hub_writer.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/atomic_output.h"
#include "base/hashmap.h"
#include "hub/hub_writer_batch.h"
#include "hub/hub_writer_internal.h"
#include "hub/hub_schema.h"
#include "base/sqlite_setup.h"
#include "base/util.h"
#include "base/vec.h"

/* The queue of kernels written without one, per (process, agent, stream):
 * a direct-mapped cache in front of the map, as most imports name a few
 * streams on every kernel. */
#define QUEUE_CACHE 64
typedef struct queue_slot {
  int64_t pid, agent, stream, id;
  int used;
} queue_slot;

typedef struct entity {
  int64_t id; /* threads: the row id rows refer to (see thread_entity) */
  int64_t pid, tid;
  int merged;  /* a GPU pseudo-process whose rows moved to its owner */
  int is_lane; /* a thread that stands for a GPU lane (hub_gpu_lane_thread) */
  int64_t start, end;
  char *name;
  tt_buf extdata; /* members of a JSON object, without braces */
} entity;

struct hub_writer {
  sqlite3 *db;
  char guid[37];
  char suffix[40]; /* "_" + guid with '_' for '-' */
  hw_batches bs; /* the staged rows and their INSERTs */
  int64_t nid;
  char *hostname; /* hub_writer_hostname's, written over the node row at finish */
  hub_clock clock;    /* hub_writer_clock's, in every process row's extdata */
  int64_t to_wall_ns; /* its anchor, HUB_NULL when none */
  tt_strmap strings, agents, streams, queues, ksyms, tracks;
  tt_strmap lane_threads; /* agent/stream (or pid) -> tid of its lane thread */
  tt_strmap kernel_queues; /* pid/agent/stream -> queue row for kernels without one */
  queue_slot queue_cache[QUEUE_CACHE];
  tt_i64map gpu_agents; /* GPU type_index -> agent id (hub_gpu_agent) */
  /* What hub_writer_finish has to complete (hw_complete_joins). */
  int gpu_rows_without_tid, copies_without_agent;
  int flows_recorded; /* a flow end was written (hw_fold_launch_flows) */
  tt_i64map process_index; /* pid -> index in processes */
  tt_strmap thread_index;  /* (pid, tid) -> index in threads */
  tt_i64map thread_ids;    /* thread row id -> index in threads */
  size_t last_thread;      /* index of the thread found last (most rows repeat it) */
  int64_t next_own_id;     /* next candidate for an id of our own */
  entity *processes, *threads;
  size_t nprocesses, nthreads, cap_processes, cap_threads;
  tt_buf key;
};

typedef hw_row rowref;

static void fail(hub_writer *w, const char *what) { hw_fail(w->db, what); }

/* The connection, once no staged INSERT is in flight on the worker: every
 * statement but those INSERTs goes through here, so statements run in
 * the order one thread runs them. */
static sqlite3 *conn(hub_writer *w) {
  hw_sync(&w->bs);
  return w->db;
}

static void lane_label(hub_writer *w, tt_buf *out, int64_t agent_id, int64_t stream_id);
static void key_num(hub_writer *w, int64_t v);

static void exec(hub_writer *w, const char *sql) {
  if (sqlite3_exec(conn(w), sql, NULL, NULL, NULL) != SQLITE_OK) fail(w, sql);
}

sqlite3_stmt *hw_sql_run(hub_writer *w, int select, const char *tmpl, int n,
                         const int64_t *params) {
  char *sql = hub_schema_expand(tmpl, w->guid);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(conn(w), sql, -1, &st, NULL) != SQLITE_OK) fail(w, sql);
  free(sql);
  for (int i = 0; i < n; i++) {
    if (params[i] == HUB_NULL)
      sqlite3_bind_null(st, i + 1);
    else
      sqlite3_bind_int64(st, i + 1, params[i]);
  }
  if (select) return st;
  if (sqlite3_step(st) != SQLITE_DONE) fail(w, sqlite3_sql(st));
  sqlite3_finalize(st);
  return NULL;
}

void hw_sql_exec(hub_writer *w, const char *tmpl) {
  char *sql = hub_schema_expand(tmpl, w->guid);
  exec(w, sql);
  free(sql);
}

static void make_guid(char out[37]) {
  unsigned char r[16];
  int fd = open("/dev/urandom", O_RDONLY);
  ssize_t got = fd >= 0 ? read(fd, r, sizeof r) : -1;
  if (fd >= 0) close(fd);
  if (got != (ssize_t)sizeof r) {
    uint64_t x = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    for (int i = 0; i < 16; i++) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      r[i] = (unsigned char)(x >> 56);
    }
  }
  r[6] = (unsigned char)((r[6] & 0x0F) | 0x40); /* version 4 */
  r[8] = (unsigned char)((r[8] & 0x3F) | 0x80); /* RFC 4122 variant */
  snprintf(out, 37,
           "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
           r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11],
           r[12], r[13], r[14], r[15]);
}

char *hub_schema_expand(const char *tmpl, const char *guid) {
  char suffix[40];
  snprintf(suffix, sizeof suffix, "_%s", guid);
  for (char *p = suffix; *p; p++)
    if (*p == '-') *p = '_';
  tt_buf b = {0};
  const char *p = tmpl;
  while (*p) {
    if (strncmp(p, "{{uuid}}", 8) == 0) {
      tt_buf_puts(&b, suffix);
      p += 8;
    } else if (strncmp(p, "{{guid}}", 8) == 0) {
      tt_buf_puts(&b, guid);
      p += 8;
    } else {
      tt_buf_putc(&b, *p++);
    }
  }
  return b.data;
}

static void table(hub_writer *w, int which, const char *name, const char *cols, int ncols) {
  tt_buf full = {0};
  tt_buf_printf(&full, "%s%s", name, w->suffix);
  hw_setup_table(&w->bs, which, full.data, cols, ncols);
  tt_buf_free(&full);
}

hub_writer *hub_writer_create(const char *path) {
  tt_sqlite_setup();
  hub_writer *w = tt_calloc(1, sizeof *w);
  unlink(path);
  if (sqlite3_open_v2(path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
      SQLITE_OK)
    tt_die(1, "%s: cannot create database: %s", tt_output_name_of(path), sqlite3_errmsg(w->db));
  make_guid(w->guid);
  w->to_wall_ns = HUB_NULL;
  snprintf(w->suffix, sizeof w->suffix, "_%s", w->guid);
  for (char *p = w->suffix; *p; p++)
    if (*p == '-') *p = '_';
  /* The output is a temporary file renamed on success, so durability
   * during the import buys nothing: no journal, no fsync. 16 KiB pages
   * cost SQLite fewer b-tree splits and page writes per row than 4 KiB
   * ones (kineto2db on the resnet50 fixture: 385 ms of CPU instead of
   * 438 ms, a hub 3% smaller). Rows arrive nearly in key order, so only
   * the right edge of each b-tree is hot: an 8 MiB page cache is as fast
   * as 64 MiB on a 436 MB trace (4.8 s against 5.2 s of CPU) and sets the
   * peak RSS at 14 MB instead of 75. The TEMP database (the link tables
   * of hub_writer_finish, one row per launch) gets a cache of its own:
   * left at SQLite's default it grew with them (kineto2db, 10x the
   * events: 16 -> 21 MB); they are filled and read in key order too. */
  exec(w, "PRAGMA page_size=16384; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
          "PRAGMA cache_size=-8192; PRAGMA temp_store=FILE; PRAGMA temp.cache_size=-1024;");
  hw_init(&w->bs, w->db);
  exec(w, "BEGIN");
  char *schema = hub_schema_expand(hub_schema_sql, w->guid);
  exec(w, schema);
  free(schema);
  /* The reader's indexes exist from the start: rows arrive nearly in key
   * order (times, ids), so maintaining them costs less than sorting every
   * table at the end, and memory stays lower. */
  char *idx = hub_schema_expand(hub_index_sql, w->guid);
  exec(w, idx);
  free(idx);

  table(w, ST_METADATA, "rocpd_metadata", "tag,value", 2);
  table(w, ST_STRING, "rocpd_string", "string", 1);
  table(w, ST_NODE, "rocpd_info_node", "hash,machine_id,hostname", 3);
  table(w, ST_PROCESS, "rocpd_info_process",
                              "id,nid,ppid,pid,init,fini,start,end,command,extdata", 10);
  table(w, ST_THREAD, "rocpd_info_thread", "id,nid,ppid,pid,tid,name,start,end,extdata", 9);
  table(w, ST_AGENT, "rocpd_info_agent",
                            "nid,pid,type,absolute_index,logical_index,type_index,name,"
                            "model_name,vendor_name,product_name,extdata",
                            11);
  table(w, ST_STREAM, "rocpd_info_stream", "nid,pid,name,extdata", 4);
  table(w, ST_QUEUE, "rocpd_info_queue", "nid,pid,name,extdata", 4);
  table(w, ST_KSYM, "rocpd_info_kernel_symbol", "nid,pid,kernel_name,display_name", 4);
  table(w, ST_TRACK, "rocpd_track", "nid,pid,tid,name_id,extdata", 5);
  table(w, ST_EVENT, "rocpd_event",
                            "category_id,stack_id,parent_stack_id,correlation_id,call_stack,"
                            "line_info,extdata",
                            7);
  table(w, ST_ARG, "rocpd_arg", "event_id,position,type,name,value", 5);
  table(w, ST_REGION, "rocpd_region",
                             "nid,pid,tid,start,end,name_id,event_id,extdata", 8);
  table(w, ST_KERNEL, "rocpd_kernel_dispatch",
                             "nid,pid,tid,agent_id,kernel_id,dispatch_id,queue_id,stream_id,"
                             "start,end,private_segment_size,group_segment_size,"
                             "workgroup_size_x,workgroup_size_y,workgroup_size_z,"
                             "grid_size_x,grid_size_y,grid_size_z,region_name_id,event_id,"
                             "extdata",
                             21);
  table(w, ST_COPY, "rocpd_memory_copy",
                           "nid,pid,tid,start,end,name_id,dst_agent_id,dst_address,"
                           "src_agent_id,src_address,size,queue_id,stream_id,region_name_id,"
                           "event_id,extdata",
                           16);
  table(w, ST_ALLOC, "rocpd_memory_allocate",
                            "nid,pid,tid,agent_id,type,level,start,end,address,size,"
                            "queue_id,stream_id,event_id,extdata",
                            14);
  table(w, ST_SAMPLE, "rocpd_sample", "track_id,timestamp,event_id,extdata", 4);

  hub_writer_metadata(w, "schema_version", "3");
  hub_writer_metadata(w, "uuid", w->suffix);
  hub_writer_metadata(w, "guid", w->guid);
  return w;
}

const char *hub_writer_guid(const hub_writer *w) { return w->guid; }

static void bind_i64(hw_row r, int i, int64_t v) { hw_bind_i64(r, i, v, HUB_NULL); }

static void bind_null(hw_row r, int i) { (void)r, (void)i; }

static void bind_text(hw_row r, int i, const char *s) { hw_bind_text(r, i, s); }

static void bind_json(hw_row r, int i, const char *s) { bind_text(r, i, s && *s ? s : "{}"); }

void hub_writer_metadata(hub_writer *w, const char *tag, const char *value) {
  hw_row st = hw_row_begin(&w->bs, ST_METADATA);
  bind_text(st, 1, tag);
  bind_text(st, 2, value);
  hw_row_commit(&w->bs, st);
}

int64_t hub_string(hub_writer *w, const char *s) {
  if (!s) s = "";
  int64_t *id = tt_strmap_get(&w->strings, s);
  if (id) return *id;
  hw_row st = hw_row_begin(&w->bs, ST_STRING);
  bind_text(st, 1, s);
  int64_t row = hw_row_commit(&w->bs, st);
  tt_strmap_put(&w->strings, s, row);
  return row;
}

/* As rocprofv3: hash is the machine id's hash (our sources record no
 * machine id: the host name stands for it), machine_id unique per node. */
static int64_t node_hash(const char *machine_id) {
  return (int64_t)(tt_hash_bytes(machine_id, strlen(machine_id)) & INT64_MAX);
}

int64_t hub_node(hub_writer *w, const char *hostname) {
  if (w->nid) return w->nid;
  const char *h = hostname ? hostname : w->hostname ? w->hostname : "unknown";
  hw_row st = hw_row_begin(&w->bs, ST_NODE);
  bind_i64(st, 1, node_hash(h));
  bind_text(st, 2, h);
  bind_text(st, 3, h);
  w->nid = hw_row_commit(&w->bs, st);
  return w->nid;
}

void hub_writer_hostname(hub_writer *w, const char *hostname) {
  if (!hostname || !*hostname) return;
  free(w->hostname);
  w->hostname = tt_strdup(hostname);
}

/* The node row was written at first use, before the source named its
 * host (Kineto's host_name may come last): named now, keeping its id. */
static void name_node(hub_writer *w) {
  if (!w->hostname) return;
  int64_t nid = hub_node(w, NULL);
  hw_flush_table(&w->bs, ST_NODE);
  char *sql = hub_schema_expand("UPDATE \"rocpd_info_node{{uuid}}\" SET hash = ?1, machine_id = "
                                "?2, hostname = ?2 WHERE id = ?3",
                                w->guid);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(conn(w), sql, -1, &st, NULL) != SQLITE_OK) fail(w, sql);
  free(sql);
  sqlite3_bind_int64(st, 1, node_hash(w->hostname));
  sqlite3_bind_text(st, 2, w->hostname, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 3, nid);
  if (sqlite3_step(st) != SQLITE_DONE) fail(w, sqlite3_sql(st));
  sqlite3_finalize(st);
}

static entity *process_entity(hub_writer *w, int64_t pid) {
  int64_t *ix = tt_i64map_get(&w->process_index, pid);
  if (ix) return &w->processes[*ix];
  tt_grow(w->processes, w->nprocesses + 1, w->cap_processes);
  entity *e = &w->processes[w->nprocesses];
  memset(e, 0, sizeof *e);
  e->pid = pid;
  e->tid = HUB_NULL;
  e->start = INT64_MAX;
  e->end = INT64_MIN;
  tt_i64map_put(&w->process_index, pid, (int64_t)w->nprocesses++);
  return e;
}

/* The smallest id from HUB_LANE_TID_BASE on that no thread row has. */
static int64_t free_thread_id(hub_writer *w) {
  if (!w->next_own_id) w->next_own_id = HUB_LANE_TID_BASE;
  while (tt_i64map_get(&w->thread_ids, w->next_own_id)) w->next_own_id++;
  return w->next_own_id++;
}

/* Threads are keyed by (pid, tid): two processes' tid 5 are two threads.
 * The row id (what rows' tid columns hold, as rocpd's views join T.id) is
 * the tid itself while no other thread row has it, so a trace whose tids
 * are unique keeps its ids; else an id of our own (free_thread_id). */
static entity *thread_entity(hub_writer *w, int64_t pid, int64_t tid) {
  if (w->nthreads) {
    entity *last = &w->threads[w->last_thread];
    if (last->pid == pid && last->tid == tid) return last;
  }
  tt_buf_clear(&w->key);
  key_num(w, pid);
  key_num(w, tid);
  int64_t *ix = tt_strmap_get(&w->thread_index, w->key.data);
  /* A lane thread moved to its owner (reassign) leaves its old key. */
  if (ix && w->threads[*ix].pid == pid && w->threads[*ix].tid == tid) {
    w->last_thread = (size_t)*ix;
    return &w->threads[*ix];
  }
  process_entity(w, pid);
  tt_grow(w->threads, w->nthreads + 1, w->cap_threads);
  entity *e = &w->threads[w->nthreads];
  memset(e, 0, sizeof *e);
  e->pid = pid;
  e->tid = tid;
  e->id = tt_i64map_get(&w->thread_ids, tid) ? free_thread_id(w) : tid;
  e->start = INT64_MAX;
  e->end = INT64_MIN;
  tt_i64map_put(&w->thread_ids, e->id, (int64_t)w->nthreads);
  tt_strmap_put(&w->thread_index, w->key.data, (int64_t)w->nthreads);
  w->last_thread = w->nthreads++;
  return e;
}

/* The row id of thread (pid, tid), creating its row; HUB_NULL for none. */
static int64_t thread_id(hub_writer *w, int64_t pid, int64_t tid) {
  if (tid == HUB_NULL) return HUB_NULL;
  return thread_entity(w, pid, tid)->id;
}

static void cover(entity *e, int64_t start, int64_t end) {
  if (start != HUB_NULL && start < e->start) e->start = start;
  if (end != HUB_NULL && end > e->end) e->end = end;
}

static void extdata_member(tt_buf *b, const char *key, const char *json_value) {
  if (b->len) tt_buf_putc(b, ',');
  tt_json_string(b, key, strlen(key));
  tt_buf_putc(b, ':');
  tt_buf_puts(b, json_value);
}

void hub_process_name(hub_writer *w, int64_t pid, const char *command) {
  entity *e = process_entity(w, pid);
  free(e->name);
  e->name = tt_strdup(command);
}

void hub_process_extdata(hub_writer *w, int64_t pid, const char *key, const char *json_value) {
  extdata_member(&process_entity(w, pid)->extdata, key, json_value);
}

void hub_writer_clock(hub_writer *w, hub_clock clock, int64_t to_wall_ns) {
  w->clock = clock;
  w->to_wall_ns = to_wall_ns;
}

/* The source's clock, as every process row states it (docs/hub.md). */
static void process_clock(const hub_writer *w, entity *e) {
  tt_buf v = {0};
  tt_json_string(&v, hub_clock_name(w->clock), strlen(hub_clock_name(w->clock)));
  extdata_member(&e->extdata, "clock", v.data);
  if (w->to_wall_ns != HUB_NULL) {
    tt_buf_clear(&v);
    tt_buf_put_i64(&v, w->to_wall_ns);
    extdata_member(&e->extdata, "to_wall_ns", v.data);
  }
  tt_buf_free(&v);
}

void hub_thread_name(hub_writer *w, int64_t pid, int64_t tid, const char *name) {
  entity *e = thread_entity(w, pid, tid);
  free(e->name);
  e->name = tt_strdup(name);
}

void hub_thread_extdata(hub_writer *w, int64_t pid, int64_t tid, const char *key,
                        const char *json_value) {
  extdata_member(&thread_entity(w, pid, tid)->extdata, key, json_value);
}

void hub_touch_thread(hub_writer *w, int64_t pid, int64_t tid, int64_t start, int64_t end) {
  cover(thread_entity(w, pid, tid), start, end);
  cover(process_entity(w, pid), start, end);
}

void hub_touch_process(hub_writer *w, int64_t pid, int64_t start, int64_t end) {
  cover(process_entity(w, pid), start, end);
}

/* Keys for the dedup maps, built in w->key without printf (they are built
 * for every row that names a stream, queue or kernel): numbers each
 * followed by a separator that cannot occur in them, then a string. */
static void key_num(hub_writer *w, int64_t v) {
  tt_buf_put_i64(&w->key, v);
  tt_buf_putc(&w->key, '\x1f');
}

static const char *key2(hub_writer *w, int64_t a, const char *s) {
  tt_buf_clear(&w->key);
  key_num(w, a);
  tt_buf_puts(&w->key, s ? s : "");
  return w->key.data;
}

/* Fills in an agent's row that exists from its first use: what `a`
 * gives replaces what that use had to make up; what it leaves out stays. */
static void describe_agent(hub_writer *w, int64_t id, const hub_agent_info *a) {
  if (!a->name && !a->model_name && !a->vendor_name && !a->product_name &&
      !(a->extdata && *a->extdata))
    return;
  hw_flush_table(&w->bs, ST_AGENT);
  char *sql = hub_schema_expand(
      "UPDATE \"rocpd_info_agent{{uuid}}\" SET name = COALESCE(?1, name), model_name = "
      "COALESCE(?2, model_name), vendor_name = COALESCE(?3, vendor_name), product_name = "
      "COALESCE(?4, product_name), extdata = COALESCE(?5, extdata) WHERE id = ?6",
      w->guid);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(conn(w), sql, -1, &st, NULL) != SQLITE_OK) fail(w, sql);
  free(sql);
  const char *text[5] = {a->name, a->model_name, a->vendor_name, a->product_name,
                         a->extdata && *a->extdata ? a->extdata : NULL};
  for (int i = 0; i < 5; i++)
    if (text[i])
      sqlite3_bind_text(st, i + 1, text[i], -1, SQLITE_STATIC);
    else
      sqlite3_bind_null(st, i + 1);
  sqlite3_bind_int64(st, 6, id);
  if (sqlite3_step(st) != SQLITE_DONE) fail(w, sqlite3_sql(st));
  sqlite3_finalize(st);
}

int64_t hub_agent(hub_writer *w, const hub_agent_info *a) {
  tt_buf_clear(&w->key);
  key_num(w, a->type_index);
  tt_buf_puts(&w->key, a->type);
  int64_t *id = tt_strmap_get(&w->agents, w->key.data);
  if (id) return *id;
  char *key = tt_strdup(w->key.data);
  hw_row st = hw_row_begin(&w->bs, ST_AGENT);
  bind_i64(st, 1, hub_node(w, NULL));
  bind_i64(st, 2, a->pid == HUB_NULL ? 0 : a->pid);
  bind_text(st, 3, a->type);
  bind_i64(st, 4, a->type_index);
  bind_i64(st, 5, a->type_index);
  bind_i64(st, 6, a->type_index);
  bind_text(st, 7, a->name);
  bind_text(st, 8, a->model_name);
  bind_text(st, 9, a->vendor_name);
  bind_text(st, 10, a->product_name);
  bind_json(st, 11, a->extdata);
  int64_t row = hw_row_commit(&w->bs, st);
  tt_strmap_put(&w->agents, key, row);
  free(key);
  return row;
}

int64_t hub_agent_describe(hub_writer *w, const hub_agent_info *a) {
  tt_buf_clear(&w->key);
  key_num(w, a->type_index);
  tt_buf_puts(&w->key, a->type);
  int64_t *id = tt_strmap_get(&w->agents, w->key.data);
  if (!id) return hub_agent(w, a);
  int64_t known = *id;
  describe_agent(w, known, a);
  return known;
}

int64_t hub_gpu_agent(hub_writer *w, int64_t pid, int64_t gpu_index) {
  /* Called for every GPU row: agents are never removed, so the first
   * answer for an index stays the answer. */
  int64_t *known = tt_i64map_get(&w->gpu_agents, gpu_index);
  if (known) return *known;
  char name[48];
  snprintf(name, sizeof name, "GPU %lld", (long long)gpu_index);
  hub_agent_info a = {.pid = pid, .type = "GPU", .type_index = gpu_index, .name = name};
  int64_t id = hub_agent(w, &a);
  tt_i64map_put(&w->gpu_agents, gpu_index, id);
  return id;
}

static int64_t named_row(hub_writer *w, tt_strmap *map, int which, int64_t pid,
                         const char *name, const char *extdata) {
  int64_t *id = tt_strmap_get(map, key2(w, pid, name));
  if (id) return *id;
  char *key = tt_strdup(w->key.data);
  int64_t nid = hub_node(w, NULL);
  hw_row st = hw_row_begin(&w->bs, which);
  bind_i64(st, 1, nid);
  bind_i64(st, 2, pid);
  bind_text(st, 3, name);
  bind_json(st, 4, extdata);
  int64_t row = hw_row_commit(&w->bs, st);
  tt_strmap_put(map, key, row);
  free(key);
  return row;
}

int64_t hub_stream(hub_writer *w, int64_t pid, const char *name, const char *extdata) {
  return named_row(w, &w->streams, ST_STREAM, pid, name, extdata);
}

int64_t hub_queue(hub_writer *w, int64_t pid, const char *name, const char *extdata) {
  return named_row(w, &w->queues, ST_QUEUE, pid, name, extdata);
}

int64_t hub_kernel_symbol(hub_writer *w, int64_t pid, const char *kernel_name,
                          const char *display_name) {
  int64_t *id = tt_strmap_get(&w->ksyms, key2(w, pid, kernel_name));
  if (id) return *id;
  char *key = tt_strdup(w->key.data);
  hw_row st = hw_row_begin(&w->bs, ST_KSYM);
  bind_i64(st, 1, hub_node(w, NULL));
  bind_i64(st, 2, pid);
  bind_text(st, 3, kernel_name);
  bind_text(st, 4, display_name ? display_name : kernel_name);
  int64_t row = hw_row_commit(&w->bs, st);
  tt_strmap_put(&w->ksyms, key, row);
  free(key);
  return row;
}

/* The track (pid, tid, name), made on first use with extdata {"kind":K}
 * and, for a GPU lane's (lane != NULL: agent, stream), the lane's ids. */
static int64_t track_row(hub_writer *w, int64_t pid, int64_t tid, const char *name,
                         hub_track_kind kind, const int64_t *lane) {
  tt_buf_clear(&w->key);
  key_num(w, pid);
  key_num(w, tid);
  tt_buf_puts(&w->key, name);
  int64_t *id = tt_strmap_get(&w->tracks, w->key.data);
  if (id) return *id;
  char *key = tt_strdup(w->key.data);
  /* rocpd's samples view joins the track's process and thread. */
  int64_t thread = HUB_NULL;
  if (pid != HUB_NULL && tid != HUB_NULL)
    thread = thread_id(w, pid, tid);
  else if (pid != HUB_NULL)
    process_entity(w, pid);
  int64_t name_id = hub_string(w, name);
  char extdata[128];
  if (lane && lane[1] != HUB_NULL)
    snprintf(extdata, sizeof extdata, "{\"kind\":\"%s\",\"agent_id\":%lld,\"stream_id\":%lld}",
             hub_track_kind_name(kind), (long long)lane[0], (long long)lane[1]);
  else if (lane)
    snprintf(extdata, sizeof extdata, "{\"kind\":\"%s\",\"agent_id\":%lld}",
             hub_track_kind_name(kind), (long long)lane[0]);
  else
    snprintf(extdata, sizeof extdata, "{\"kind\":\"%s\"}", hub_track_kind_name(kind));
  hw_row st = hw_row_begin(&w->bs, ST_TRACK);
  bind_i64(st, 1, hub_node(w, NULL));
  bind_i64(st, 2, pid);
  bind_i64(st, 3, thread);
  bind_i64(st, 4, name_id);
  bind_json(st, 5, extdata);
  int64_t row = hw_row_commit(&w->bs, st);
  tt_strmap_put(&w->tracks, key, row);
  free(key);
  return row;
}

int64_t hub_track(hub_writer *w, int64_t pid, int64_t tid, const char *name,
                  hub_track_kind kind) {
  return track_row(w, pid, tid, name, kind, NULL);
}

static int64_t event_row(hub_writer *w, const char *category, int64_t correlation_id,
                         int64_t stack_id, int64_t parent_stack_id, const char *call_stack,
                         const char *extdata) {
  int64_t cat = category ? hub_string(w, category) : HUB_NULL;
  hw_row st = hw_row_begin(&w->bs, ST_EVENT);
  bind_i64(st, 1, cat);
  bind_i64(st, 2, stack_id);
  bind_i64(st, 3, parent_stack_id);
  bind_i64(st, 4, correlation_id);
  bind_json(st, 5, call_stack);
  bind_json(st, 6, NULL); /* line_info: no source records one */
  bind_json(st, 7, extdata);
  return hw_row_commit(&w->bs, st);
}

int64_t hub_event_stack(hub_writer *w, const char *category, int64_t correlation_id,
                        int64_t stack_id, int64_t parent_stack_id, const char *extdata) {
  return event_row(w, category, correlation_id, stack_id, parent_stack_id, NULL, extdata);
}

int64_t hub_event_call_stack(hub_writer *w, const char *category, int64_t correlation_id,
                             const char *call_stack, const char *extdata) {
  return event_row(w, category, correlation_id, correlation_id, HUB_NULL, call_stack, extdata);
}

int64_t hub_event(hub_writer *w, const char *category, int64_t correlation_id,
                  const char *extdata) {
  return hub_event_stack(w, category, correlation_id, correlation_id, HUB_NULL, extdata);
}

void hub_arg(hub_writer *w, int64_t event_id, int position, hub_arg_type type,
             const char *name, const char *value) {
  hw_row st = hw_row_begin(&w->bs, ST_ARG);
  bind_i64(st, 1, event_id);
  bind_i64(st, 2, position);
  bind_text(st, 3, hub_arg_type_name(type));
  bind_text(st, 4, name);
  bind_text(st, 5, value);
  hw_row_commit(&w->bs, st);
}

void hub_arg_int(hub_writer *w, int64_t event_id, int position, const char *name, int64_t v) {
  char text[TT_I64_CHARS + 1];
  *tt_format_i64(text, v) = '\0';
  hub_arg(w, event_id, position, HUB_ARG_INT, name, text);
}

/* rocpd's views INNER JOIN every row's rocpd_event: a row written without
 * one gets an empty event of its own. */
static int64_t event_or_new(hub_writer *w, int64_t event_id) {
  return event_id != HUB_NULL ? event_id
                              : hub_event_stack(w, NULL, HUB_NULL, HUB_NULL, HUB_NULL, NULL);
}

void hub_region(hub_writer *w, int64_t pid, int64_t tid, int64_t start, int64_t end,
                const char *name, int64_t event_id, const char *extdata) {
  entity *t = thread_entity(w, pid, tid);
  cover(t, start, end);
  cover(process_entity(w, pid), start, end);
  int64_t thread = t->id;
  event_id = event_or_new(w, event_id);
  int64_t name_id = hub_string(w, name);
  hw_row st = hw_row_begin(&w->bs, ST_REGION);
  bind_i64(st, 1, hub_node(w, NULL));
  bind_i64(st, 2, pid);
  bind_i64(st, 3, thread);
  bind_i64(st, 4, start);
  bind_i64(st, 5, end);
  bind_i64(st, 6, name_id);
  bind_i64(st, 7, event_id);
  bind_json(st, 8, extdata);
  hw_row_commit(&w->bs, st);
}

void hub_kernel_row_init(hub_kernel_row *k) {
  memset(k, 0, sizeof *k);
  k->tid = k->queue_id = k->stream_id = HUB_NULL;
  k->private_segment_size = k->group_segment_size = HUB_NULL;
  for (int i = 0; i < 3; i++) k->workgroup[i] = k->grid[i] = HUB_NULL;
  k->event_id = HUB_NULL;
}

/* rocpd's kernels view reaches the process through the queue: every
 * dispatch needs a queue row of its process, even a CUDA stream's. One
 * queue per (process, agent, stream), named after the stream (else the
 * GPU), extdata {"agent_id":A,"stream_id":S}; hub_writer_reassign_gpu_pids
 * moves it with its kernels. */
static int64_t kernel_queue(hub_writer *w, int64_t pid, int64_t agent_id, int64_t stream_id) {
  uint64_t h = tt_hash_mix(tt_hash_mix(tt_hash_mix(0, (uint64_t)pid), (uint64_t)agent_id),
                           (uint64_t)stream_id);
  queue_slot *slot = &w->queue_cache[h % QUEUE_CACHE];
  if (slot->used && slot->pid == pid && slot->agent == agent_id && slot->stream == stream_id)
    return slot->id;
  tt_buf_clear(&w->key);
  key_num(w, pid);
  key_num(w, agent_id);
  key_num(w, stream_id);
  int64_t *known = tt_strmap_get(&w->kernel_queues, w->key.data);
  if (known) {
    *slot = (queue_slot){pid, agent_id, stream_id, *known, 1};
    return *known;
  }
  char *key = tt_strdup(w->key.data);
  tt_buf label = {0}, ext = {0};
  lane_label(w, &label, agent_id, stream_id);
  tt_buf_printf(&ext, "{\"agent_id\":%lld", (long long)agent_id);
  if (stream_id != HUB_NULL) tt_buf_printf(&ext, ",\"stream_id\":%lld", (long long)stream_id);
  tt_buf_putc(&ext, '}');
  hw_row q = hw_row_begin(&w->bs, ST_QUEUE);
  bind_i64(q, 1, hub_node(w, NULL));
  bind_i64(q, 2, pid);
  bind_text(q, 3, label.data);
  bind_json(q, 4, ext.data);
  int64_t id = hw_row_commit(&w->bs, q);
  tt_strmap_put(&w->kernel_queues, key, id);
  *slot = (queue_slot){pid, agent_id, stream_id, id, 1};
  free(key);
  tt_buf_free(&label);
  tt_buf_free(&ext);
  return id;
}

void hub_kernel_dispatch(hub_writer *w, const hub_kernel_row *k) {
  hub_touch_process(w, k->pid, k->start, k->end);
  /* As rocprofv3: the renamed region's name, else the empty string (the
   * kernels view INNER JOINs it). */
  int64_t region = hub_string(w, k->region_name ? k->region_name : "");
  int64_t event_id = event_or_new(w, k->event_id);
  int64_t queue_id =
      k->queue_id != HUB_NULL ? k->queue_id : kernel_queue(w, k->pid, k->agent_id, k->stream_id);
  if (k->tid == HUB_NULL) w->gpu_rows_without_tid = 1;
  hw_row st = hw_row_begin(&w->bs, ST_KERNEL);
  bind_i64(st, 1, hub_node(w, NULL));
  bind_i64(st, 2, k->pid);
  bind_i64(st, 3, thread_id(w, k->pid, k->tid));
  bind_i64(st, 4, k->agent_id);
  bind_i64(st, 5, k->kernel_id);
  bind_i64(st, 6, k->dispatch_id);
  bind_i64(st, 7, queue_id);
  bind_i64(st, 8, k->stream_id);
  bind_i64(st, 9, k->start);
  bind_i64(st, 10, k->end);
  bind_i64(st, 11, k->private_segment_size);
  bind_i64(st, 12, k->group_segment_size);
  for (int i = 0; i < 3; i++) bind_i64(st, 13 + i, k->workgroup[i]);
  for (int i = 0; i < 3; i++) bind_i64(st, 16 + i, k->grid[i]);
  bind_i64(st, 19, region);
  bind_i64(st, 20, event_id);
  bind_json(st, 21, k->extdata);
  hw_row_commit(&w->bs, st);
}

void hub_copy_row_init(hub_copy_row *c) {
  memset(c, 0, sizeof *c);
  c->tid = c->dst_agent_id = c->dst_address = c->src_agent_id = c->src_address = HUB_NULL;
  c->size = c->queue_id = c->stream_id = c->event_id = HUB_NULL;
}

void hub_memory_copy(hub_writer *w, const hub_copy_row *c) {
  hub_touch_process(w, c->pid, c->start, c->end);
  int64_t name_id = hub_string(w, c->name);
  int64_t region = c->region_name ? hub_string(w, c->region_name) : HUB_NULL;
  int64_t event_id = event_or_new(w, c->event_id);
  if (c->tid == HUB_NULL) w->gpu_rows_without_tid = 1;
  if (c->src_agent_id == HUB_NULL || c->dst_agent_id == HUB_NULL) w->copies_without_agent = 1;
  hw_row st = hw_row_begin(&w->bs, ST_COPY);
  bind_i64(st, 1, hub_node(w, NULL));
  bind_i64(st, 2, c->pid);
  bind_i64(st, 3, thread_id(w, c->pid, c->tid));
  bind_i64(st, 4, c->start);
  bind_i64(st, 5, c->end);
  bind_i64(st, 6, name_id);
  bind_i64(st, 7, c->dst_agent_id);
  bind_i64(st, 8, c->dst_address);
  bind_i64(st, 9, c->src_agent_id);
  bind_i64(st, 10, c->src_address);
  bind_i64(st, 11, c->size);
  bind_i64(st, 12, c->queue_id);
  bind_i64(st, 13, c->stream_id);
  bind_i64(st, 14, region);
  bind_i64(st, 15, event_id);
  bind_json(st, 16, c->extdata);
  hw_row_commit(&w->bs, st);
}

void hub_alloc_row_init(hub_alloc_row *a) {
  memset(a, 0, sizeof *a);
  a->tid = a->agent_id = a->address = a->queue_id = a->stream_id = a->event_id = HUB_NULL;
  a->type = "ALLOC";
  a->level = "REAL";
}

void hub_memory_allocate(hub_writer *w, const hub_alloc_row *a) {
  hub_touch_process(w, a->pid, a->start, a->end);
  int64_t event_id = event_or_new(w, a->event_id);
  if (a->tid == HUB_NULL) w->gpu_rows_without_tid = 1;
  hw_row st = hw_row_begin(&w->bs, ST_ALLOC);
  bind_i64(st, 1, hub_node(w, NULL));
  bind_i64(st, 2, a->pid);
  bind_i64(st, 3, thread_id(w, a->pid, a->tid));
  bind_i64(st, 4, a->agent_id);
  bind_text(st, 5, a->type);
  bind_text(st, 6, a->level);
  bind_i64(st, 7, a->start);
  bind_i64(st, 8, a->end);
  bind_i64(st, 9, a->address);
  bind_i64(st, 10, a->size);
  bind_i64(st, 11, a->queue_id);
  bind_i64(st, 12, a->stream_id);
  bind_i64(st, 13, event_id);
  bind_json(st, 14, a->extdata);
  hw_row_commit(&w->bs, st);
}

void hub_sample(hub_writer *w, int64_t track_id, int64_t timestamp, int64_t event_id,
                const char *extdata) {
  event_id = event_or_new(w, event_id);
  hw_row st = hw_row_begin(&w->bs, ST_SAMPLE);
  bind_i64(st, 1, track_id);
  bind_i64(st, 2, timestamp);
  bind_i64(st, 3, event_id);
  bind_json(st, 4, extdata);
  hw_row_commit(&w->bs, st);
}

static void flow_sample(hub_writer *w, int64_t track, int64_t ts, char phase,
                        const char *category, const char *name, int64_t id, int bind_enclosing) {
  tt_buf ext = {0};
  tt_buf_printf(&ext, "{\"ph\":\"%c\",\"name\":", phase);
  tt_json_string(&ext, name ? name : "", name ? strlen(name) : 0);
  if (bind_enclosing) tt_buf_puts(&ext, ",\"bp\":\"e\"");
  tt_buf_putc(&ext, '}');
  int64_t ev = hub_event_stack(w, category, id, HUB_NULL, HUB_NULL, ext.data);
  hub_sample(w, track, ts, ev, NULL);
  w->flows_recorded = 1;
  tt_buf_free(&ext);
}

void hub_flow_end(hub_writer *w, int64_t pid, int64_t tid, int64_t ts, char phase,
                  const char *category, const char *name, int64_t id, int bind_enclosing) {
  hub_touch_thread(w, pid, tid, ts, ts);
  int64_t track = hub_track(w, pid, tid, "flow", HUB_TRACK_FLOW);
  flow_sample(w, track, ts, phase, category, name, id, bind_enclosing);
}

void hub_flow_end_gpu(hub_writer *w, int64_t pid, int64_t agent_id, int64_t stream_id, int64_t ts,
                      char phase, const char *category, const char *name, int64_t id,
                      int bind_enclosing) {
  hub_touch_process(w, pid, ts, ts);
  char track_name[64];
  snprintf(track_name, sizeof track_name, "flow (stream row %lld)", (long long)stream_id);
  int64_t lane[2] = {agent_id, stream_id};
  int64_t track = track_row(w, pid, HUB_NULL, track_name, HUB_TRACK_FLOW, lane);
  flow_sample(w, track, ts, phase, category, name, id, bind_enclosing);
}

int64_t hub_counter_track(hub_writer *w, int64_t pid, const char *name) {
  hub_touch_process(w, pid, HUB_NULL, HUB_NULL);
  return hub_track(w, pid, HUB_NULL, name, HUB_TRACK_COUNTER);
}

int64_t hub_gpu_counter_track(hub_writer *w, int64_t pid, int64_t agent_id, const char *name) {
  if (pid != HUB_NULL) hub_touch_process(w, pid, HUB_NULL, HUB_NULL);
  int64_t lane[2] = {agent_id, HUB_NULL};
  return track_row(w, pid, HUB_NULL, name, HUB_TRACK_COUNTER, lane);
}

void hub_counter_sample(hub_writer *w, int64_t track_id, int64_t ts, double value,
                        const char *category) {
  char ext[64];
  snprintf(ext, sizeof ext, "{\"value\":%.17g}", value);
  int64_t ev = hub_event_stack(w, category, HUB_NULL, HUB_NULL, HUB_NULL, NULL);
  hub_sample(w, track_id, ts, ev, ext);
}

/* Runs one statement (its table names already expanded) with ?1 = v. */
static void update_with(hub_writer *w, const char *sql, int64_t v) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(conn(w), sql, -1, &st, NULL) != SQLITE_OK) fail(w, sql);
  sqlite3_bind_int64(st, 1, v);
  if (sqlite3_step(st) != SQLITE_DONE) fail(w, sql);
  sqlite3_finalize(st);
}

void hub_writer_shift_times(hub_writer *w, int64_t delta) {
  if (delta == 0) return;
  hw_flush_all(&w->bs);
  static const char *const updates[] = {
      "rocpd_region", "\"start\"=\"start\"+?1, \"end\"=\"end\"+?1",
      "rocpd_kernel_dispatch", "\"start\"=\"start\"+?1, \"end\"=\"end\"+?1",
      "rocpd_memory_copy", "\"start\"=\"start\"+?1, \"end\"=\"end\"+?1",
      "rocpd_memory_allocate", "\"start\"=\"start\"+?1, \"end\"=\"end\"+?1",
      "rocpd_sample", "\"timestamp\"=\"timestamp\"+?1",
  };
  for (size_t i = 0; i < sizeof updates / sizeof *updates; i += 2) {
    tt_buf sql = {0};
    tt_buf_printf(&sql, "UPDATE \"%s%s\" SET %s", updates[i], w->suffix, updates[i + 1]);
    update_with(w, sql.data, delta);
    tt_buf_free(&sql);
  }
  for (size_t i = 0; i < w->nprocesses; i++) {
    if (w->processes[i].start != INT64_MAX) w->processes[i].start += delta;
    if (w->processes[i].end != INT64_MIN) w->processes[i].end += delta;
  }
  for (size_t i = 0; i < w->nthreads; i++) {
    if (w->threads[i].start != INT64_MAX) w->threads[i].start += delta;
    if (w->threads[i].end != INT64_MIN) w->threads[i].end += delta;
  }
}

/* One pid's lane threads and process entity follow it to `to`. */
static void reassign_entities(hub_writer *w, int64_t from, int64_t to) {
  /* Lane threads (GPU annotations' regions on a stream) follow their GPU. */
  for (size_t i = 0; i < w->nthreads; i++) {
    entity *t = &w->threads[i];
    if (!t->is_lane || t->pid != from) continue;
    t->pid = to;
    int64_t p[3] = {from, to, t->id};
    tt_buf_clear(&w->key);
    key_num(w, to);
    key_num(w, t->tid);
    tt_strmap_put(&w->thread_index, w->key.data, (int64_t)i);
    hw_sql_run(w, 0, "UPDATE \"rocpd_region{{uuid}}\" SET pid = ?2 WHERE pid = ?1 AND tid = ?3",
               3, p);
  }
  int64_t *ix = tt_i64map_get(&w->process_index, from);
  if (ix) {
    entity *src = &w->processes[*ix];
    src->merged = 1;
    int64_t s = src->start, e = src->end;
    /* The GPU pseudo-process keeps its row only if threads name it. */
    cover(process_entity(w, to), s == INT64_MAX ? HUB_NULL : s, e == INT64_MIN ? HUB_NULL : e);
  }
}

void hub_writer_reassign_gpu_pids(hub_writer *w, const int64_t *from, size_t n, int64_t to) {
  static const char *const tables[] = {"rocpd_kernel_dispatch", "rocpd_memory_copy",
                                       "rocpd_memory_allocate", "rocpd_info_stream",
                                       "rocpd_info_queue", "rocpd_info_agent",
                                       "rocpd_track"};
  /* One UPDATE per table for all the pids (each is a scan of the table). */
  tt_buf in = {0};
  for (size_t i = 0; i < n; i++) {
    if (from[i] == to) continue;
    tt_buf_putc(&in, in.len ? ',' : '(');
    tt_buf_put_i64(&in, from[i]);
  }
  if (!in.len) return;
  tt_buf_putc(&in, ')');
  hw_flush_all(&w->bs);
  for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
    tt_buf sql = {0};
    tt_buf_printf(&sql, "UPDATE \"%s%s\" SET pid=?1 WHERE pid IN %s", tables[i], w->suffix,
                  in.data);
    /* Of the tracks, only those on a GPU lane (flow ends there). */
    if (strcmp(tables[i], "rocpd_track") == 0)
      tt_buf_puts(&sql, " AND json_extract(extdata, '$.agent_id') IS NOT NULL");
    update_with(w, sql.data, to);
    tt_buf_free(&sql);
  }
  tt_buf_free(&in);
  for (size_t i = 0; i < n; i++)
    if (from[i] != to) reassign_entities(w, from[i], to);
}

void hub_writer_fold_process(hub_writer *w, int64_t from, int64_t to, const char *label) {
  int64_t *ix = tt_i64map_get(&w->process_index, from);
  if (from == to || !ix) return;
  size_t src_ix = (size_t)*ix;
  hw_flush_all(&w->bs);
  static const char *const tables[] = {"rocpd_region", "rocpd_track", "rocpd_kernel_dispatch",
                                       "rocpd_memory_copy", "rocpd_memory_allocate",
                                       "rocpd_info_stream", "rocpd_info_queue"};
  int64_t p[2] = {from, to};
  for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
    tt_buf sql = {0};
    tt_buf_printf(&sql, "UPDATE \"%s{{uuid}}\" SET pid = ?2 WHERE pid = ?1", tables[i]);
    hw_sql_run(w, 0, sql.data, 2, p);
    tt_buf_free(&sql);
  }
  entity *src = &w->processes[src_ix];
  tt_buf member = {0};
  if (src->extdata.len) tt_buf_printf(&member, "{%s}", src->extdata.data);
  for (size_t i = 0; i < w->nthreads; i++) {
    entity *t = &w->threads[i];
    if (t->pid != from) continue;
    t->pid = to;
    tt_buf_clear(&w->key);
    key_num(w, to);
    key_num(w, t->tid);
    tt_strmap_put(&w->thread_index, w->key.data, (int64_t)i);
    /* "Spans · PyTorch Profiler": the thread says where it was. */
    tt_buf name = {0};
    tt_buf_puts(&name, label);
    if (t->name && t->name[0]) tt_buf_printf(&name, " \xc2\xb7 %s", t->name);
    free(t->name);
    t->name = tt_strdup(name.data);
    tt_buf_free(&name);
    if (member.len) extdata_member(&t->extdata, "folded_process", member.data);
  }
  tt_buf_free(&member);
  src = &w->processes[src_ix];
  src->merged = 1;
  int64_t s = src->start, e = src->end;
  cover(process_entity(w, to), s == INT64_MAX ? HUB_NULL : s, e == INT64_MIN ? HUB_NULL : e);
}

int64_t hub_writer_launcher_pid(hub_writer *w, int64_t gpu_pid) {
  hw_flush_all(&w->bs);
  int64_t p[1] = {gpu_pid};
  /* Through rocpd_event's correlation index: one lookup per GPU row. */
  sqlite3_stmt *st = hw_sql_run(
      w, 1,
      "SELECT r.pid, count(*) AS n FROM (SELECT event_id FROM \"rocpd_kernel_dispatch{{uuid}}\" "
      "WHERE pid = ?1 UNION ALL SELECT event_id FROM \"rocpd_memory_copy{{uuid}}\" WHERE pid = "
      "?1) g JOIN \"rocpd_event{{uuid}}\" eg ON eg.id = g.event_id JOIN \"rocpd_event{{uuid}}\" "
      "er ON er.correlation_id = eg.correlation_id AND er.id <> eg.id JOIN "
      "\"rocpd_region{{uuid}}\" r ON r.event_id = er.id WHERE eg.correlation_id IS NOT NULL "
      "AND r.pid <> ?1 GROUP BY r.pid ORDER BY n DESC, r.pid LIMIT 1",
      1, p);
  int64_t pid = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : HUB_NULL;
  sqlite3_finalize(st);
  return pid;
}

/* "GPU 0", "GPU 0 stream 7": a GPU lane's label from its rows. */
static void lane_label(hub_writer *w, tt_buf *out, int64_t agent_id, int64_t stream_id) {
  hw_flush_table(&w->bs, ST_AGENT);
  hw_flush_table(&w->bs, ST_STREAM);
  int64_t p[2] = {agent_id, stream_id};
  sqlite3_stmt *st =
      hw_sql_run(w, 1,
                 "SELECT (SELECT COALESCE(type,'') || ' ' || COALESCE(type_index, id) "
                 "FROM \"rocpd_info_agent{{uuid}}\" WHERE id = ?1), (SELECT name FROM "
                 "\"rocpd_info_stream{{uuid}}\" WHERE id = ?2)",
                 2, p);
  if (sqlite3_step(st) == SQLITE_ROW) {
    const char *a = (const char *)sqlite3_column_text(st, 0);
    const char *s = (const char *)sqlite3_column_text(st, 1);
    tt_buf_printf(out, "%s%s%s", a ? a : "", a && s ? " " : "", s ? s : "");
  }
  sqlite3_finalize(st);
  if (!out->len) tt_buf_puts(out, agent_id == HUB_NULL ? "process tracks" : "GPU");
}

int64_t hub_gpu_lane_thread(hub_writer *w, int64_t pid, int64_t agent_id, int64_t stream_id) {
  tt_buf_clear(&w->key);
  if (agent_id == HUB_NULL && stream_id == HUB_NULL) {
    tt_buf_putc(&w->key, 'p');
    key_num(w, pid);
  } else {
    key_num(w, agent_id);
    key_num(w, stream_id);
  }
  int64_t *known = tt_strmap_get(&w->lane_threads, w->key.data);
  if (known) return *known;
  char *key = tt_strdup(w->key.data);
  int64_t tid = free_thread_id(w);
  entity *e = thread_entity(w, pid, tid); /* its id is its tid: free */
  e->is_lane = 1;
  tt_buf label = {0};
  lane_label(w, &label, agent_id, stream_id);
  e->name = tt_strdup(label.data);
  tt_buf_free(&label);
  tt_buf_printf(&e->extdata, "\"kind\":\"%s\"",
                hub_thread_kind_name(agent_id == HUB_NULL && stream_id == HUB_NULL
                                         ? HUB_THREAD_PROCESS_TRACKS
                                         : HUB_THREAD_GPU_LANE));
  if (agent_id != HUB_NULL) tt_buf_printf(&e->extdata, ",\"agent_id\":%lld", (long long)agent_id);
  if (stream_id != HUB_NULL)
    tt_buf_printf(&e->extdata, ",\"stream_id\":%lld", (long long)stream_id);
  tt_strmap_put(&w->lane_threads, key, tid);
  free(key);
  return tid;
}

static void bind_extdata(hw_row st, int i, const tt_buf *b) {
  tt_buf json = {0};
  tt_buf_putc(&json, '{');
  if (b->len) tt_buf_append(&json, b->data, b->len);
  tt_buf_putc(&json, '}');
  bind_text(st, i, json.data);
  tt_buf_free(&json);
}

static int has_threads(const hub_writer *w, int64_t pid) {
  for (size_t i = 0; i < w->nthreads; i++)
    if (w->threads[i].pid == pid) return 1;
  return 0;
}

static void write_entities(hub_writer *w) {
  int64_t nid = hub_node(w, NULL);
  for (size_t i = 0; i < w->nprocesses; i++) {
    entity *e = &w->processes[i];
    if (e->merged && !has_threads(w, e->pid)) {
      /* No process of its own: what the source said of it is kept as
       * metadata, so the row does not show up as an empty process. */
      tt_buf tag = {0}, val = {0};
      tt_buf_printf(&tag, "merged_process.%lld", (long long)e->pid);
      tt_buf_puts(&val, "{\"command\":");
      tt_json_string(&val, e->name ? e->name : "", e->name ? strlen(e->name) : 0);
      if (e->extdata.len) tt_buf_printf(&val, ",%s", e->extdata.data);
      tt_buf_putc(&val, '}');
      hub_writer_metadata(w, tag.data, val.data);
      tt_buf_free(&tag);
      tt_buf_free(&val);
      continue;
    }
    hw_row st = hw_row_begin(&w->bs, ST_PROCESS);
    bind_i64(st, 1, e->pid);
    bind_i64(st, 2, nid);
    bind_null(st, 3);
    bind_i64(st, 4, e->pid);
    bind_i64(st, 5, e->start == INT64_MAX ? HUB_NULL : e->start);
    bind_i64(st, 6, e->end == INT64_MIN ? HUB_NULL : e->end);
    bind_i64(st, 7, e->start == INT64_MAX ? HUB_NULL : e->start);
    bind_i64(st, 8, e->end == INT64_MIN ? HUB_NULL : e->end);
    bind_text(st, 9, e->name ? e->name : "");
    process_clock(w, e);
    bind_extdata(st, 10, &e->extdata);
    hw_row_commit(&w->bs, st);
  }
  for (size_t i = 0; i < w->nthreads; i++) {
    entity *e = &w->threads[i];
    hw_row st = hw_row_begin(&w->bs, ST_THREAD);
    bind_i64(st, 1, e->id);
    bind_i64(st, 2, nid);
    bind_null(st, 3);
    bind_i64(st, 4, e->pid);
    bind_i64(st, 5, e->tid);
    bind_text(st, 6, e->name ? e->name : "");
    bind_i64(st, 7, e->start == INT64_MAX ? HUB_NULL : e->start);
    bind_i64(st, 8, e->end == INT64_MIN ? HUB_NULL : e->end);
    bind_extdata(st, 9, &e->extdata);
    hw_row_commit(&w->bs, st);
  }
}

static void free_writer(hub_writer *w) {
  hw_free(&w->bs);
  sqlite3_close(w->db);
  tt_strmap_free(&w->strings);
  tt_strmap_free(&w->agents);
  tt_strmap_free(&w->streams);
  tt_strmap_free(&w->queues);
  tt_strmap_free(&w->ksyms);
  tt_strmap_free(&w->tracks);
  tt_strmap_free(&w->lane_threads);
  tt_strmap_free(&w->kernel_queues);
  tt_i64map_free(&w->gpu_agents);
  tt_i64map_free(&w->process_index);
  tt_strmap_free(&w->thread_index);
  tt_i64map_free(&w->thread_ids);
  free(w->hostname);
  for (size_t i = 0; i < w->nprocesses; i++) {
    free(w->processes[i].name);
    tt_buf_free(&w->processes[i].extdata);
  }
  for (size_t i = 0; i < w->nthreads; i++) {
    free(w->threads[i].name);
    tt_buf_free(&w->threads[i].extdata);
  }
  free(w->processes);
  free(w->threads);
  tt_buf_free(&w->key);
  free(w);
}

void hub_writer_finish(hub_writer *w) {
  hw_complete_joins(w, &w->bs, w->gpu_rows_without_tid, w->copies_without_agent);
  if (w->flows_recorded) {
    hw_fold_launch_flows(w);
    hub_writer_metadata(w, HUB_LAUNCH_ARROWS_TAG, HUB_LAUNCH_ARROWS_CORRELATION);
  }
  write_entities(w);
  name_node(w);
  hw_flush_all(&w->bs);
  exec(w, "COMMIT");
  free_writer(w);
}

void hub_writer_abort(hub_writer *w) {
  sqlite3_exec(conn(w), "ROLLBACK", NULL, NULL, NULL);
  free_writer(w);
}

int64_t hub_writer_row_count(const hub_writer *w) { return w->bs.rows; }

void hub_writer_threads(hub_writer *w, int n) {
  if (n >= 2 && tt_sqlite_threaded()) hw_start_worker(&w->bs);
}
