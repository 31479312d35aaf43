-- rocpd schema version 3, as rocprofv3 writes it (see schema/README.md).
-- {{uuid}} is "_" + the database UUID with '-' replaced by '_';
-- {{guid}} is the dashed UUID. Both are substituted by common/hub_writer.c.
CREATE TABLE "rocpd_metadata{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "tag" TEXT NOT NULL,
  "value" TEXT NOT NULL);
CREATE TABLE "rocpd_string{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "string" TEXT NOT NULL UNIQUE ON CONFLICT ABORT);
CREATE TABLE "rocpd_info_node{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "hash" BIGINT NOT NULL UNIQUE,
  "machine_id" TEXT NOT NULL UNIQUE,
  "system_name" TEXT,
  "hostname" TEXT,
  "release" TEXT,
  "version" TEXT,
  "hardware_name" TEXT,
  "domain_name" TEXT);
CREATE TABLE "rocpd_info_process{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL,
  "ppid" INTEGER,
  "pid" INTEGER NOT NULL,
  "init" BIGINT,
  "fini" BIGINT,
  "start" BIGINT,
  "end" BIGINT,
  "command" TEXT,
  "environment" JSONB DEFAULT '{}' NOT NULL,
  "extdata" JSONB DEFAULT '{}' NOT NULL);
CREATE TABLE "rocpd_info_thread{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL,
  "ppid" INTEGER,
  "pid" INTEGER NOT NULL,
  "tid" INTEGER NOT NULL,
  "name" TEXT,
  "start" BIGINT,
  "end" BIGINT,
  "extdata" JSONB DEFAULT '{}' NOT NULL);
CREATE TABLE "rocpd_info_agent{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL,
  "pid" INTEGER NOT NULL,
  "type" TEXT CHECK ("type" IN ('CPU', 'GPU')),
  "absolute_index" INTEGER,
  "logical_index" INTEGER,
  "type_index" INTEGER,
  "uuid" INTEGER,
  "name" TEXT,
  "model_name" TEXT,
  "vendor_name" TEXT,
  "product_name" TEXT,
  "user_name" TEXT,
  "extdata" JSONB DEFAULT '{}' NOT NULL);
CREATE TABLE "rocpd_info_queue{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL,
  "pid" INTEGER NOT NULL,
  "name" TEXT,
  "extdata" JSONB DEFAULT '{}' NOT NULL);
CREATE TABLE "rocpd_info_stream{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL,
  "pid" INTEGER NOT NULL,
  "name" TEXT,
  "extdata" JSONB DEFAULT '{}' NOT NULL);
CREATE TABLE "rocpd_info_pmc{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL,
  "pid" INTEGER NOT NULL,
  "agent_id" INTEGER,
  "target_arch" TEXT,
  "event_code" INTEGER,
  "instance_id" INTEGER,
  "name" TEXT NOT NULL,
  "symbol" TEXT,
  "description" TEXT,
  "long_description" TEXT,
  "component" TEXT,
  "units" TEXT,
  "value_type" TEXT,
  "block" TEXT,
  "expression" TEXT,
  "is_constant" INTEGER,
  "is_derived" INTEGER,
  "extdata" JSONB DEFAULT '{}' NOT NULL);
CREATE TABLE "rocpd_info_code_object{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL,
  "pid" INTEGER NOT NULL,
  "agent_id" INTEGER,
  "uri" TEXT,
  "load_base" BIGINT,
  "load_size" BIGINT,
  "load_delta" BIGINT,
  "storage_type" TEXT,
  "extdata" JSONB DEFAULT '{}' NOT NULL);
CREATE TABLE "rocpd_info_kernel_symbol{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL,
  "pid" INTEGER NOT NULL,
  "code_object_id" INTEGER,
  "kernel_name" TEXT,
  "display_name" TEXT,
  "kernel_object" INTEGER,
  "kernarg_segment_size" INTEGER,
  "kernarg_segment_alignment" INTEGER,
  "group_segment_size" INTEGER,
  "private_segment_size" INTEGER,
  "sgpr_count" INTEGER,
  "arch_vgpr_count" INTEGER,
  "accum_vgpr_count" INTEGER,
  "extdata" JSONB DEFAULT '{}' NOT NULL);
CREATE TABLE "rocpd_track{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL,
  "pid" INTEGER,
  "tid" INTEGER,
  "name_id" INTEGER,
  "extdata" JSONB DEFAULT '{}' NOT NULL);
CREATE TABLE "rocpd_event{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "category_id" INTEGER,
  "stack_id" INTEGER,
  "parent_stack_id" INTEGER,
  "correlation_id" INTEGER,
  "call_stack" JSONB DEFAULT '{}' NOT NULL,
  "line_info" JSONB DEFAULT '{}' NOT NULL,
  "extdata" JSONB DEFAULT '{}' NOT NULL);
CREATE TABLE "rocpd_arg{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "event_id" INTEGER NOT NULL,
  "position" INTEGER NOT NULL,
  "type" TEXT NOT NULL,
  "name" TEXT NOT NULL,
  "value" TEXT,
  "extdata" JSONB DEFAULT '{}' NOT NULL);
CREATE TABLE "rocpd_pmc_event{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "event_id" INTEGER,
  "pmc_id" INTEGER NOT NULL,
  "value" REAL DEFAULT 0.0,
  "extdata" JSONB DEFAULT '{}' NOT NULL);
CREATE TABLE "rocpd_region{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL,
  "pid" INTEGER NOT NULL,
  "tid" INTEGER NOT NULL,
  "start" BIGINT NOT NULL,
  "end" BIGINT NOT NULL,
  "name_id" INTEGER NOT NULL,
  "event_id" INTEGER,
  "extdata" JSONB DEFAULT '{}' NOT NULL);
CREATE TABLE "rocpd_sample{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "track_id" INTEGER NOT NULL,
  "timestamp" BIGINT NOT NULL,
  "event_id" INTEGER,
  "extdata" JSONB DEFAULT '{}' NOT NULL);
CREATE TABLE "rocpd_kernel_dispatch{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL,
  "pid" INTEGER NOT NULL,
  "tid" INTEGER,
  "agent_id" INTEGER NOT NULL,
  "kernel_id" INTEGER NOT NULL,
  "dispatch_id" INTEGER NOT NULL,
  "queue_id" INTEGER,
  "stream_id" INTEGER,
  "start" BIGINT NOT NULL,
  "end" BIGINT NOT NULL,
  "private_segment_size" INTEGER,
  "group_segment_size" INTEGER,
  "workgroup_size_x" INTEGER,
  "workgroup_size_y" INTEGER,
  "workgroup_size_z" INTEGER,
  "grid_size_x" INTEGER,
  "grid_size_y" INTEGER,
  "grid_size_z" INTEGER,
  "region_name_id" INTEGER,
  "event_id" INTEGER,
  "extdata" JSONB DEFAULT '{}' NOT NULL);
CREATE TABLE "rocpd_memory_copy{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL,
  "pid" INTEGER NOT NULL,
  "tid" INTEGER,
  "start" BIGINT NOT NULL,
  "end" BIGINT NOT NULL,
  "name_id" INTEGER NOT NULL,
  "dst_agent_id" INTEGER,
  "dst_address" INTEGER,
  "src_agent_id" INTEGER,
  "src_address" INTEGER,
  "size" INTEGER,
  "queue_id" INTEGER,
  "stream_id" INTEGER,
  "region_name_id" INTEGER,
  "event_id" INTEGER,
  "extdata" JSONB DEFAULT '{}' NOT NULL);
CREATE TABLE "rocpd_memory_allocate{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL,
  "pid" INTEGER NOT NULL,
  "tid" INTEGER,
  "agent_id" INTEGER,
  "type" TEXT CHECK ("type" IN ('ALLOC', 'FREE', 'REALLOC', 'RECLAIM')),
  "level" TEXT CHECK ("level" IN ('REAL', 'VIRTUAL', 'SCRATCH')),
  "start" BIGINT NOT NULL,
  "end" BIGINT NOT NULL,
  "address" INTEGER,
  "size" INTEGER NOT NULL,
  "queue_id" INTEGER,
  "stream_id" INTEGER,
  "event_id" INTEGER,
  "extdata" JSONB DEFAULT '{}' NOT NULL);

CREATE VIEW "rocpd_metadata" AS SELECT * FROM "rocpd_metadata{{uuid}}";
CREATE VIEW "rocpd_string" AS SELECT * FROM "rocpd_string{{uuid}}";
CREATE VIEW "rocpd_info_node" AS SELECT * FROM "rocpd_info_node{{uuid}}";
CREATE VIEW "rocpd_info_process" AS SELECT * FROM "rocpd_info_process{{uuid}}";
CREATE VIEW "rocpd_info_thread" AS SELECT * FROM "rocpd_info_thread{{uuid}}";
CREATE VIEW "rocpd_info_agent" AS SELECT * FROM "rocpd_info_agent{{uuid}}";
CREATE VIEW "rocpd_info_queue" AS SELECT * FROM "rocpd_info_queue{{uuid}}";
CREATE VIEW "rocpd_info_stream" AS SELECT * FROM "rocpd_info_stream{{uuid}}";
CREATE VIEW "rocpd_info_pmc" AS SELECT * FROM "rocpd_info_pmc{{uuid}}";
CREATE VIEW "rocpd_info_code_object" AS SELECT * FROM "rocpd_info_code_object{{uuid}}";
CREATE VIEW "rocpd_info_kernel_symbol" AS SELECT * FROM "rocpd_info_kernel_symbol{{uuid}}";
CREATE VIEW "rocpd_track" AS SELECT * FROM "rocpd_track{{uuid}}";
CREATE VIEW "rocpd_event" AS SELECT * FROM "rocpd_event{{uuid}}";
CREATE VIEW "rocpd_arg" AS SELECT * FROM "rocpd_arg{{uuid}}";
CREATE VIEW "rocpd_pmc_event" AS SELECT * FROM "rocpd_pmc_event{{uuid}}";
CREATE VIEW "rocpd_region" AS SELECT * FROM "rocpd_region{{uuid}}";
CREATE VIEW "rocpd_sample" AS SELECT * FROM "rocpd_sample{{uuid}}";
CREATE VIEW "rocpd_kernel_dispatch" AS SELECT * FROM "rocpd_kernel_dispatch{{uuid}}";
CREATE VIEW "rocpd_memory_copy" AS SELECT * FROM "rocpd_memory_copy{{uuid}}";
CREATE VIEW "rocpd_memory_allocate" AS SELECT * FROM "rocpd_memory_allocate{{uuid}}";
