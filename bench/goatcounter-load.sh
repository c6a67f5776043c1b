#!/usr/bin/env bash
# The same load as collect-load.sh, on GoatCounter (the peer the issue
# measures against), for an interleaved comparison on one machine:
#
#   GOATCOUNTER=/path/to/goatcounter bench/goatcounter-load.sh                   # SQLite
#   GOATCOUNTER=... bench/goatcounter-load.sh 'postgres://.../gc_load?sslmode=disable'
#   GOATCOUNTER=... PIXEL=1 bench/goatcounter-load.sh                             # a new connection a hit
#   GOATCOUNTER=... LUA=bench/varied.lua bench/goatcounter-load.sh                # varied traffic (see the script)
#   GOATCOUNTER=... LUA=bench/visitors.lua bench/goatcounter-load.sh              # a new visitor every view
#
# GoatCounter (EUPL) is not part of this repository: build it from its module
# (go mod download -json zgo.at/goatcounter/v2@v2.7.0, then go build ./cmd/goatcounter
# in a copy of the directory it names). Its /count is hit as its script and its
# no-JavaScript image do (GET, the page in p=), its per-address count limit
# lifted as ours is; it keeps hits in memory and
# writes them every 10 s and at SIGTERM, so stored views a second count from
# the load's start to its exit. Its site is set to keep each hit as a row
# (the "collect hits" setting; by default it keeps only the counts of first
# visits), and the stored views are those rows.
set -euo pipefail
cd "$(dirname "$0")/.."
gc=${GOATCOUNTER:?set GOATCOUNTER to a goatcounter binary}
dsn=${1:-}
duration=${DURATION:-20s}
connections=${CONNECTIONS:-32}
threads=${THREADS:-2}
addr=127.0.0.1:18081
work=$(mktemp -d)
server=
trap 'if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi; rm -rf "$work"' EXIT
if [ -z "$dsn" ]; then
	db="sqlite+$work/gc.sqlite3"
	count() { sqlite3 "$work/gc.sqlite3" 'SELECT COUNT(*) FROM hits'; }
	keep_hits() { sqlite3 "$work/gc.sqlite3" "UPDATE sites SET settings = json_set(settings, '\$.collect', json_extract(settings, '\$.collect') | 256)"; }
else
	psql "$dsn" -qc 'DROP SCHEMA public CASCADE; CREATE SCHEMA public;' >/dev/null
	db="postgresql+$dsn"
	count() { psql "$dsn" -tAc 'SELECT COUNT(*) FROM hits'; }
	keep_hits() { psql "$dsn" -qc "UPDATE sites SET settings = jsonb_set(settings::jsonb, '{collect}', to_jsonb((settings::jsonb->>'collect')::int | 256))" >/dev/null; }
fi
"$gc" db create site -vhost 127.0.0.1 -user.email load@example.com -user.password 'load password' -db "$db" -createdb >"$work/create.log" 2>&1
keep_hits # every hit kept as a row (its setting "collect hits"), as we keep every view
"$gc" serve -listen "$addr" -tls http -db "$db" -ratelimit count:100000000/1 >"$work/server.log" 2>&1 &
server=$!
. bench/cpu.sh
watch_cpu "$server" "$work/cpu" &
for _ in $(seq 100); do curl -fs -o /dev/null "http://$addr/count?p=/warm-up" && break; sleep 0.1; done
sleep 11 # the warm-up hit is written
base=$(count)
cat >"$work/count.lua" <<LUA
wrk.method = "GET"
wrk.path = "/count?p=%2Fshoes&t=Shoes&r=https%3A%2F%2Fsearch.example%2F"
wrk.headers["User-Agent"] = "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0"
${PIXEL:+wrk.headers["Connection"] = "close"}
LUA
started=$(date +%s.%N)
VARIED_TARGET=goatcounter wrk -t "$threads" -c "$connections" -d "$duration" -s "${LUA:-$work/count.lua}" "http://$addr" >"$work/wrk.txt"
kill -TERM "$server"
wait "$server" 2>/dev/null || true
stopped=$(date +%s.%N)
server=
cat "$work/wrk.txt"
stored=$(( $(count) - base ))
requests=$(grep -o '^ *[0-9]* requests in' "$work/wrk.txt" | grep -o '[0-9]*' | head -1)
echo "answered: $requests; stored: $stored"
echo "stored a second, counting the final flush: $(echo "$stored / ($stopped - $started)" | bc) ($stored in $(echo "$stopped - $started" | bc) s)"
echo "server CPU a view stored (µs, from its start to its exit): $(cpu_per_view "$work/cpu" "$stored")"
