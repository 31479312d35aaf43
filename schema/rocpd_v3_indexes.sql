-- Indexes the streaming reader (common/hub_reader.c) relies on: each table
-- is read in start-time order, and correlation partners and flow ends are
-- looked up by id. The time-order indexes hold the reader's whole order
-- (start, then end descending so an enclosing interval comes first, then
-- id, which SQLite appends to every index entry): with ("start") alone it
-- sorted each run of equal starts in a temporary b-tree. Created with the
-- tables: rows arrive nearly in key order, so maintaining them is cheaper
-- than sorting every table at the end.
-- rocpd_arg has none: the writer puts an event's args right after it, so
-- the reader steps rocpd_arg in rowid order (common/hub_reader_args.c), as
-- it does in rocprofv3's index-less files; an index on (event_id, position)
-- cost a quarter of the insert time of an arg-heavy trace and 9% of its size.
CREATE INDEX IF NOT EXISTS "rocpd_region_start{{uuid}}" ON "rocpd_region{{uuid}}" ("start", "end" DESC);
CREATE INDEX IF NOT EXISTS "rocpd_kernel_dispatch_start{{uuid}}" ON "rocpd_kernel_dispatch{{uuid}}" ("start", "end" DESC);
CREATE INDEX IF NOT EXISTS "rocpd_memory_copy_start{{uuid}}" ON "rocpd_memory_copy{{uuid}}" ("start", "end" DESC);
CREATE INDEX IF NOT EXISTS "rocpd_memory_allocate_start{{uuid}}" ON "rocpd_memory_allocate{{uuid}}" ("start", "end" DESC);
CREATE INDEX IF NOT EXISTS "rocpd_sample_timestamp{{uuid}}" ON "rocpd_sample{{uuid}}" ("timestamp");
CREATE INDEX IF NOT EXISTS "rocpd_event_correlation{{uuid}}" ON "rocpd_event{{uuid}}" ("correlation_id");
CREATE INDEX IF NOT EXISTS "rocpd_kernel_dispatch_event{{uuid}}" ON "rocpd_kernel_dispatch{{uuid}}" ("event_id");
CREATE INDEX IF NOT EXISTS "rocpd_memory_copy_event{{uuid}}" ON "rocpd_memory_copy{{uuid}}" ("event_id");
CREATE INDEX IF NOT EXISTS "rocpd_sample_event{{uuid}}" ON "rocpd_sample{{uuid}}" ("event_id");
