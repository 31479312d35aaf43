# tracetools: trace-format converters around a rocpd SQLite hub.
# `make demo` and `make check` install missing Debian packages first.

PREFIX ?= /usr/local
DESTDIR ?=
SANITIZE ?= 0

CC ?= cc
PKGS := sqlite3 zlib yajl libprotobuf-c otf2
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

FUZZ ?= 0
FUZZ_SECONDS ?= 60
# make check's short run: this many seconds shared evenly by the harnesses
# (2 s each for the 11: libFuzzer runs a harness's whole corpus, its seeds,
# before it looks at the time, then mutates for what is left)
FUZZ_CHECK_SECONDS ?= 22

ifeq ($(FUZZ),1)
# libFuzzer harnesses (fuzz/): everything built with clang, instrumented.
BUILD := build-fuzz
CC := clang
SAN_FLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
OPT := -O1 -g
else ifeq ($(SANITIZE),thread)
# make ... SANITIZE=thread: ThreadSanitizer, for the tools' --threads 2 paths
BUILD := build-tsan
SAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer
OPT := -O1 -g
else ifeq ($(SANITIZE),1)
BUILD := build-san
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
OPT := -O1 -g
else
BUILD := build
SAN_FLAGS :=
OPT := -O2 -g
endif

CFLAGS_ALL = -std=c11 -D_GNU_SOURCE -pthread -Wall -Wextra -Werror $(OPT) $(SAN_FLAGS) \
             -Icommon -I$(BUILD)/gen $(PKG_CFLAGS) $(CFLAGS)
LDFLAGS_ALL = -pthread $(SAN_FLAGS) $(LDFLAGS)
LIBS_ALL = $(PKG_LIBS) -lm

# Every folder converters/<tool>/ is one tool: all its .c files are linked
# into $(BUILD)/bin/<tool>, its headers are private to it.
TOOLS := $(notdir $(patsubst %/,%,$(wildcard converters/*/)))
BINS := $(addprefix $(BUILD)/bin/,$(TOOLS))

COMMON_SRCS := $(wildcard common/*/*.c)
PROTOS := $(wildcard proto/*.proto)
# Generated sources are all built here from what they are generated from,
# never committed (docs/hub.md, "Generated sources").
GEN_SRCS := $(BUILD)/gen/hub_schema_sql.c $(BUILD)/gen/cupti_cbid_table.c \
            $(patsubst proto/%.proto,$(BUILD)/gen/%.pb-c.c,$(PROTOS))
COMMON_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(COMMON_SRCS)) \
               $(patsubst $(BUILD)/gen/%.c,$(BUILD)/obj/gen/%.o,$(GEN_SRCS))
UNIT_SRCS := $(wildcard tests/unit/unit_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
BENCH_BINS := $(patsubst bench/%.c,$(BUILD)/bench/%,$(wildcard bench/*.c))
# the libFuzzer harnesses (fuzz/fuzz_*.c; see their rule below)
FUZZ_HARNESSES := $(patsubst fuzz/%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_BINS := $(addprefix $(BUILD)/fuzz/,$(FUZZ_HARNESSES))

.SECONDARY:
.PHONY: all deps check check-long check-cluster demo bench install uninstall clean tools fuzz fuzz-run memcheck
all: $(BINS) $(UNIT_BINS) $(BENCH_BINS) $(BUILD)/fuzz/stream_hub $(FUZZ_BINS) $(BUILD)/tests/open_log.so $(BUILD)/tests/step_log.so
tools: $(BINS)

deps:
	@sh scripts/install-deps.sh

$(BUILD)/gen/hub_schema_sql.c: schema/rocpd_v3.sql schema/rocpd_v3_indexes.sql scripts/embed-sql.sh
	@mkdir -p $(dir $@)
	sh scripts/embed-sql.sh schema/rocpd_v3.sql schema/rocpd_v3_indexes.sql > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/cupti_cbid_table.c: schema/cupti/cupti_runtime_cbid.tsv schema/cupti/cupti_driver_cbid.tsv scripts/gen-cupti-table.sh
	@mkdir -p $(dir $@)
	sh scripts/gen-cupti-table.sh > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/%.pb-c.c $(BUILD)/gen/%.pb-c.h: proto/%.proto
	@mkdir -p $(BUILD)/gen
	protoc-c --proto_path=proto --c_out=$(BUILD)/gen $<

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Wno-unused-parameter -c $< -o $@

$(BUILD)/obj/%.o: %.c $(wildcard common/*/*.h converters/*/*.h fuzz/*.h tests/unit/*.h) $(patsubst proto/%.proto,$(BUILD)/gen/%.pb-c.h,$(PROTOS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(BUILD)/libcommon.a: $(COMMON_OBJS)
	@rm -f $@
	ar rcs $@ $^

.SECONDEXPANSION:
# (no '%' inside the secondary expansion: make would put the stem there)
$(BUILD)/bin/%: $$(subst .c,.o,$$(addprefix $(BUILD)/obj/,$$(wildcard converters/$$*/*.c))) $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $(filter %.o,$^) $(BUILD)/libcommon.a $(LIBS_ALL)

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $< $(BUILD)/libcommon.a $(LIBS_ALL)

# test_align's witness of the files a tool opens (LD_PRELOAD): built
# without sanitizers, as the libraries it stands in front of are.
$(BUILD)/tests/open_log.so: tests/tools/open_log.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -Wall -Wextra -Werror -O2 -shared -fPIC -o $@ $< -ldl

# test_split_spool's witness of the rows a tool reads (LD_PRELOAD), likewise.
$(BUILD)/tests/step_log.so: tests/tools/step_log.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -Wall -Wextra -Werror -O2 -shared -fPIC -o $@ $< -ldl

# unit_split_oom makes the allocations of common/ fail on demand: its own
# tt_malloc, tt_calloc and tt_realloc stand in for theirs (--wrap).
$(BUILD)/tests/unit_split_oom: LDFLAGS_ALL += -Wl,--wrap=tt_malloc,--wrap=tt_calloc,--wrap=tt_realloc
# unit_hub_writer_batch: the malloc calls of common/ fail on demand.
$(BUILD)/tests/unit_hub_writer_batch: LDFLAGS_ALL += -Wl,--wrap=malloc

# fuzz/fuzz_<tool>.c and fuzz/fuzz_<tool>_<part>.c (several harnesses for
# one tool) are linked with converters/<tool>/*.c but <tool>_main.c: a
# harness calls what the tool's main calls, declared in its <tool>.h (an
# importer's <tool>_import, an exporter's <tool>_exporter); none includes a
# .c file (tests/tools/test_includes.sh). With FUZZ=1 libFuzzer drives it;
# otherwise fuzz/replay.c does (each input named once), so `make all`
# builds every harness with gcc too and tests run them.
FUZZ_DRIVER := $(if $(filter 1,$(FUZZ)),-fsanitize=fuzzer,$(BUILD)/obj/fuzz/replay.o)
fuzz_tool = $(firstword $(subst _, ,$(1)))
fuzz_main = $(BUILD)/obj/converters/$(1)/$(1)_main.o
fuzz_objs = $(filter-out $(call fuzz_main,$(1)),$(subst .c,.o,$(addprefix $(BUILD)/obj/,$(wildcard converters/$(1)/*.c))))
$(BUILD)/fuzz/fuzz_%: $(BUILD)/obj/fuzz/fuzz_%.o $$(call fuzz_objs,$$(call fuzz_tool,$$*)) $(filter %.o,$(FUZZ_DRIVER)) $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $(filter -f%,$(FUZZ_DRIVER)) -o $@ $(filter %.o,$^) $(BUILD)/libcommon.a $(LIBS_ALL)

# the hub an exporter harness builds from an input (scripts/fuzz-to-case.sh)
$(BUILD)/fuzz/stream_hub: $(BUILD)/obj/fuzz/stream_hub.o $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $< $(BUILD)/libcommon.a $(LIBS_ALL)

$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $< $(BUILD)/libcommon.a $(LIBS_ALL)

# The short fuzz run comes first and is counted as one more row of the
# summary (CHECK_FUZZ_RC), so that "N passed, N failed" is the last line.
# Builds use every core (BUILD_JOBS) unless make was given -j itself: a
# fresh checkout builds the tools and the fuzz harnesses before testing.
BUILD_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
JOBS_FLAG = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(BUILD_JOBS))

# The fuzz harnesses are built first; their run (one core for its seconds)
# then overlaps the tools' build, started beside it at the lowest priority
# so that the fuzzers keep their core.
check: deps
	$(MAKE) $(JOBS_FLAG) FUZZ=1 $(addprefix build-fuzz/fuzz/,$(FUZZ_HARNESSES))
	@nice -n 19 $(MAKE) $(JOBS_FLAG) all & build_pid=$$!; \
	  fuzz_rc=0; $(MAKE) $(JOBS_FLAG) fuzz FUZZ_TOTAL_SECONDS=$(FUZZ_CHECK_SECONDS) || fuzz_rc=$$?; \
	  wait $$build_pid || { echo "make check: the build failed" >&2; exit 1; }; \
	  echo "BUILD=$(BUILD) SANITIZE=$(SANITIZE) CHECK_FUZZ_RC=$$fuzz_rc bash tests/run.sh"; \
	  BUILD=$(BUILD) SANITIZE=$(SANITIZE) CHECK_FUZZ_RC=$$fuzz_rc bash tests/run.sh

# Runs too long for make check, each with a smaller run in it: the flat
# memory test at 3x the events (30k and 300k launches; db2otf2's at 600k
# launches, 4x its small hub, where check's is 2x), the index-less
# rocprofv3 database at 4x the calls (200k).
check-long: deps
	$(MAKE) all
	BUILD=$(BUILD) SANITIZE=$(SANITIZE) MEM_SMALL=30000 MEM_BIG=300000 MEM_OTF2_BIG=600000 bash tests/tools/test_memory.sh
	BUILD=$(BUILD) SANITIZE=$(SANITIZE) ROCPROF_N=200000 bash tests/tools/test_rocprofv3_read.sh
	BUILD=$(BUILD) SANITIZE=$(SANITIZE) HELGRIND_TOOLS="db2json db2perfetto db2otf2" bash tests/tools/test_align_verdict.sh

# make fuzz FUZZ_SECONDS=N: every harness of fuzz/ for N seconds, seeded
# from the fixtures (scripts/fuzz.sh); FUZZ_TOTAL_SECONDS=T instead shares
# T seconds evenly (make check: FUZZ_CHECK_SECONDS). A crash, leak or hang
# leaves its input in build-fuzz/artifacts/ and fails.
fuzz: deps
	$(MAKE) FUZZ=1 fuzz-run

fuzz-run: $(addprefix $(BUILD)/fuzz/,$(FUZZ_HARNESSES))
	BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TOTAL_SECONDS=$(FUZZ_TOTAL_SECONDS) \
	  sh scripts/fuzz.sh $(FUZZ_HARNESSES)

# make memcheck: valgrind memcheck over every tool on the fixtures.
memcheck: deps
	$(MAKE) tools
	BUILD=$(BUILD) bash scripts/memcheck.sh

# convert-array.sbatch under a real one-node Slurm (Debian's slurmd,
# slurmctld, slurm-client and munge); independent of `make check`.
check-cluster:
	@sh scripts/install-deps.sh slurmd slurmctld slurm-client munge
	$(MAKE) tools
	BUILD=$(BUILD) bash scripts/slurm/check-cluster.sh

demo: deps
	$(MAKE) tools
	BUILD=$(BUILD) bash scripts/demo.sh

bench: deps
	$(MAKE) tools $(BENCH_BINS)
	BUILD=$(BUILD) bash bench/run.sh

install: $(BINS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(wildcard man/*.1) $(DESTDIR)$(PREFIX)/share/man/man1/

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(TOOLS)) \
	      $(addprefix $(DESTDIR)$(PREFIX)/share/man/man1/,$(notdir $(wildcard man/*.1)))

clean:
	rm -rf build build-san build-tsan build-fuzz out
