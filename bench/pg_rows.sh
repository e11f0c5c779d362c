#!/usr/bin/env bash
# What a stored cycle costs PostgreSQL itself, part by part (issue "Edge agent", the
# ingestion target): one session inserts 100,000 cycle rows (the columns and indexes of
# `cycles`, as the migrations make them) into a throwaway database, a table at a time:
# the heap alone; with the primary key; with ON CONFLICT (id) DO NOTHING, as ingestion
# writes; with the secondary indexes as well; and, last, the rows unpacked from JSON
# arrays by json_to_recordset, as ingestion sends them. One session on an idle server:
# its time per row is about PostgreSQL's CPU time per row. Prints µs per row. Not part
# of scripts/test.
source "$(dirname "$0")/../scripts/lib.sh"
ensure_postgres
PG_URL="${GEMBA_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/test}"
db="gemba_pg_rows_$$"
psql -q "$PG_URL" -c "CREATE DATABASE $db" >/dev/null
trap 'psql -q "$PG_URL" -c "DROP DATABASE IF EXISTS $db" >/dev/null' EXIT
url="${PG_URL%/*}/$db"
cols="id, organization_id, device_id, task_id, camera, start_ms, end_ms, idle_ms, good, reasons, segments, metadata, received_at"
rows="SELECT gen_random_uuid()::text, 1, 1 + g % 20, 1, 'cam0', g::bigint * 60000, g::bigint * 60000 + 45000, 0, 1, '[]',
  '[{\"step\":0,\"start_ms\":0,\"end_ms\":15000},{\"step\":1,\"start_ms\":15000,\"end_ms\":30000},{\"step\":2,\"start_ms\":30000,\"end_ms\":45000}]',
  '{\"barcode\":\"A-0001\"}', 0 FROM generate_series(1, 100000) g"
table() {
  echo "DROP TABLE IF EXISTS t; CREATE TABLE t (id TEXT $1, organization_id BIGINT NOT NULL, device_id BIGINT,
    task_id BIGINT NOT NULL, camera TEXT NOT NULL, start_ms BIGINT NOT NULL, end_ms BIGINT NOT NULL,
    idle_ms BIGINT NOT NULL, good BIGINT NOT NULL, reasons TEXT NOT NULL, segments TEXT NOT NULL,
    metadata TEXT NOT NULL, received_at BIGINT NOT NULL, archived_at BIGINT, archived_by BIGINT,
    reviewed_at BIGINT, reviewed_by BIGINT);"
}
indexes="CREATE INDEX ON t (organization_id, task_id, start_ms); CREATE INDEX ON t (device_id, start_ms);
  CREATE INDEX ON t (organization_id, start_ms);
  CREATE INDEX ON t (organization_id, archived_at) WHERE archived_at IS NOT NULL;"
# $1: label, $2: set-up SQL, $3: the timed SQL (one psql run, its wall time).
measure() {
  psql -q "$url" -c "$2" >/dev/null
  psql -q "$url" -c "CHECKPOINT" >/dev/null
  local t0 t1
  t0=$(date +%s%N)
  psql -q "$url" -v ON_ERROR_STOP=1 -f <(echo "$3") >/dev/null
  t1=$(date +%s%N)
  printf '%-58s %6.1f µs/row\n' "$1" "$(echo "($t1 - $t0) / 1000 / 100000" | bc -l)"
}
say "PostgreSQL's time per cycle row (100,000 rows, one session)"
measure "heap only" "$(table "NOT NULL")" "INSERT INTO t ($cols) $rows;"
measure "+ primary key" "$(table "PRIMARY KEY")" "INSERT INTO t ($cols) $rows;"
measure "+ ON CONFLICT (id) DO NOTHING" "$(table "PRIMARY KEY")" \
  "INSERT INTO t ($cols) $rows ON CONFLICT (id) DO NOTHING;"
measure "+ the secondary indexes (cycles' own)" "$(table "PRIMARY KEY") $indexes" \
  "INSERT INTO t ($cols) $rows ON CONFLICT (id) DO NOTHING;"
# As ingestion sends them: a JSON array of rows unpacked by json_to_recordset (the
# batches made beforehand, 100 of about 1,000 rows: only their unpacking is timed).
measure "+ the rows unpacked from JSON batches (json_to_recordset)" \
  "$(table "PRIMARY KEY") $indexes DROP TABLE IF EXISTS b; CREATE TABLE b AS SELECT json_agg(x) AS j
    FROM ($rows) x($cols) GROUP BY ('x' || right(id, 4))::bit(16)::int % 100" \
  "INSERT INTO t ($cols) SELECT $cols FROM b, json_to_recordset(b.j) AS x(id TEXT,
    organization_id BIGINT, device_id BIGINT, task_id BIGINT, camera TEXT, start_ms BIGINT,
    end_ms BIGINT, idle_ms BIGINT, good BIGINT, reasons TEXT, segments TEXT, metadata TEXT,
    received_at BIGINT) ON CONFLICT (id) DO NOTHING;"
