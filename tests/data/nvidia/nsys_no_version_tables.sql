-- Turns a copy of the real Nsight Systems 2022.2 export
-- (fixtures/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite) into the
-- layout of the exports nsys wrote before its version tables, as the
-- real export of issue #35 has it:
--   cp pipit....sqlite OUT.sqlite && sqlite3 OUT.sqlite ".read nsys_no_version_tables.sql"
-- no EXPORT_META_DATA / META_DATA_EXPORT, no TARGET_INFO_SESSION_START_TIME
-- (times count from the session start, which the file does not give),
-- TARGET_INFO_GPU's device id named `deviceId` (later `id`) and no
-- `cuDevice`, and a TARGET_INFO_CUDA_GPU table beside it. The event
-- tables keep their rows.
DROP TABLE EXPORT_META_DATA;
DROP TABLE TARGET_INFO_SESSION_START_TIME;
ALTER TABLE TARGET_INFO_GPU RENAME COLUMN id TO deviceId;
ALTER TABLE TARGET_INFO_GPU DROP COLUMN cuDevice;
CREATE TABLE TARGET_INFO_CUDA_GPU (vmId INTEGER NOT NULL, gpuId INTEGER NOT NULL, cudaId INTEGER NOT NULL, pid INTEGER, uuid TEXT);
INSERT INTO TARGET_INFO_CUDA_GPU SELECT vmId, deviceId, deviceId, NULL, uuid FROM TARGET_INFO_GPU;
