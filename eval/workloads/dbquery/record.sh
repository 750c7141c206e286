#!/usr/bin/env bash
# Record the `dbquery` workload: an application's start against its SQLite
# database, as a catalogue or a mail client does: the sqlite3 shell opens a
# 250,000-row database (about 60 MB: a table and three indexes), runs the
# same start-up queries every run (its settings, the 50 newest items, a
# count by category over an index range) and then looks up what this run's
# user asks for: 300 items by id, 100 by their SKU through an index and the
# 200 cheapest of one category, each a walk down a B-tree to a page of its
# own.  Every page is a pread(2) of the database file (SQLite does not map
# it by default), so a run reads a few pages in many places of one large
# file, and a different few in each run: the keys differ from run to run,
# the start-up does not.
#
#   eval/workloads/dbquery/record.sh [RUNS]          (default 4)
#
# Writes eval/workloads/dbquery/dbquery-I.trace.gz for I = 1..RUNS (the
# experiments train on the first, third and fourth and measure the second).  The
# database is generated, the same on every machine (a linear congruential
# sequence, no random blobs), and so are each run's keys (seeded by the
# run's number).  Installs what is missing from Debian (as root): sqlite3,
# strace.  Recorded by a session as a workload ppf was not tuned on.
#
# Environment: PPF_WORKDIR (default /var/tmp/ppf-work; uses $PPF_WORKDIR/dbquery),
# PPF_TRACE (default <repo>/userspace/trace-replay/ppf-trace).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/../lib.sh"
ppf_record_begin dbquery "${1:-4}"  # say die REPO W SCRATCH PPF_TRACE RUNS, the C locale
ppf_ensure_packages sqlite3 strace
ppf_need_recorder

ROWS=250000
rm -rf "$W"; mkdir -p "$SCRATCH"
DB="$SCRATCH/catalog.db"
say "generating $DB ($ROWS rows)"
sqlite3 "$DB" <<SQL
PRAGMA page_size = 4096;
PRAGMA journal_mode = DELETE;
CREATE TABLE settings(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
INSERT INTO settings VALUES ('theme', 'dark'), ('page', '50'), ('sort', 'price');
CREATE TABLE items(id INTEGER PRIMARY KEY, sku TEXT, category INTEGER,
                   price INTEGER, added INTEGER, title TEXT, body TEXT);
WITH RECURSIVE n(i, r) AS (
  SELECT 1, 12345
  UNION ALL
  SELECT i + 1, (r * 1103515245 + 12345) % 2147483648 FROM n WHERE i < $ROWS)
INSERT INTO items
SELECT i, printf('SKU%09d', (r * 7919) % 1000000000), (r / 65536) % 200,
       (r / 13) % 100000, 1600000000 + i * 60, printf('item %d of %x', i, r),
       printf('%.*c', 60 + r % 120, 'x')
FROM n;
CREATE INDEX items_sku ON items(sku);
CREATE INDEX items_category_price ON items(category, price);
CREATE INDEX items_added ON items(added);
ANALYZE;
SQL
say "$(du -k "$DB" | cut -f1) KiB"

# Each run's queries: the start-up, then the keys of run I, a linear
# congruential sequence (the one that generated the rows) seeded by I.
# Written here, before the recording, so that nothing but sh and sqlite3
# runs in it.
next_key() { r=$(((r * 1103515245 + 12345) % 2147483648)); }
for i in $(seq 1 "$RUNS"); do
  r=$((i * 7777 + 1))
  {
    echo "SELECT value FROM settings WHERE key = 'theme';"
    echo "SELECT value FROM settings WHERE key = 'page';"
    echo "SELECT id, title, price FROM items ORDER BY added DESC LIMIT 50;"
    echo "SELECT category, count(*) FROM items WHERE category < 20 GROUP BY category;"
    for _ in $(seq 1 300); do
      next_key
      echo "SELECT title, price FROM items WHERE id = $((r % ROWS + 1));"
    done
    for _ in $(seq 1 100); do
      next_key
      echo "SELECT id, price FROM items WHERE sku = (SELECT sku FROM items WHERE id = $((r % ROWS + 1)));"
    done
    next_key
    echo "SELECT id, title FROM items WHERE category = $((r % 200)) ORDER BY price LIMIT 200;"
  } > "$SCRATCH/queries-$i.sql"
  echo "sqlite3 -readonly -batch '$DB' < '$SCRATCH/queries-$i.sql' > /dev/null" > "$SCRATCH/work-$i.sh"
done

ppf_record_runs dbquery "$RUNS" sh "$SCRATCH/work-{I}.sh"
