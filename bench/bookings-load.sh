#!/usr/bin/env bash
# A loopback load run of POST /api/bookings through the reference server:
# wrk (apt-get install wrk) books a different free slot with every request,
# spread over 20 providers (bench/book.lua).
#
#   bench/bookings-load.sh                   # a fresh SQLite database
#   bench/bookings-load.sh postgres://...    # a Postgres database (emptied first)
#
# DURATION (20s), CONNECTIONS (16) and THREADS (2) tune wrk. The server
# runs with its throttles lifted and no per-request log line.
set -euo pipefail
cd "$(dirname "$0")/.."

dsn=${1:-}
duration=${DURATION:-20s}
connections=${CONNECTIONS:-16}
threads=${THREADS:-2}
addr=127.0.0.1:18081
work=$(mktemp -d)
server=
trap 'if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi; rm -rf "$work"' EXIT
if [ -z "$dsn" ]; then
	dsn="sqlite:$work/load.db"
else
	psql "$dsn" -qc 'DROP SCHEMA public CASCADE; CREATE SCHEMA public;' >/dev/null
	export GROUNDWORK_SECRET_KEY=${GROUNDWORK_SECRET_KEY:-$(head -c 32 /dev/urandom | base64)}
fi
command -v wrk >/dev/null || { echo "bookings-load.sh: wrk is not installed (apt-get install wrk)" >&2; exit 1; }

go build -o "$work/reference" ./cmd/reference
"$work/reference" --db "$dsn" --addr "$addr" --trusted-proxies 127.0.0.1/32 --uploads "$work/uploads" \
	--bookings-post-limit off --bookings-read-limit off --api-rate-limit off --request-log none >"$work/server.log" 2>&1 &
server=$!
up=
for _ in $(seq 100); do
	curl -fs "http://$addr/healthz" >/dev/null && { up=1; break; }
	kill -0 "$server" 2>/dev/null || break
	sleep 0.1
done
if [ -z "$up" ]; then
	echo "bookings-load.sh: the server did not start:" >&2
	cat "$work/server.log" >&2
	exit 1
fi
token=$("$work/reference" token create --name load --ability 'bookings:*' --db "$dsn" | grep -o '[0-9]*|gw_[A-Za-z0-9]*')
api() { curl -fsS -H "Authorization: Bearer $token" -H 'Content-Type: application/json' "$@" >/dev/null; }
api -X POST "http://$addr/api/bookings/admin/services" \
	-d '{"name":"Load","slug":"load","duration":15,"timezone":"UTC","min_advance_minutes":0,"max_advance_minutes":525600}'
for p in $(seq 1 20); do
	api -X POST "http://$addr/api/bookings/admin/providers" -d "{\"name\":\"Provider $p\",\"timezone\":\"UTC\"}"
	api -X PUT "http://$addr/api/bookings/admin/services/load/providers/$p" -d '{}'
	for d in 0 1 2 3 4 5 6; do
		api -X POST "http://$addr/api/bookings/admin/providers/$p/hours" -d "{\"day_of_week\":$d,\"start_time\":\"00:00\",\"end_time\":\"24:00\"}"
	done
done

# Midnight UTC today; the script books from tomorrow on.
BASE_EPOCH=$(date -u -d "$(date -u +%F)" +%s) wrk -t "$threads" -c "$connections" -d "$duration" -s bench/book.lua "http://$addr/api/bookings"
if grep -q '"level":"ERROR"\|level=ERROR' "$work/server.log"; then
	echo "bookings-load.sh: the server logged errors:" >&2
	grep '"level":"ERROR"\|level=ERROR' "$work/server.log" | head -5 >&2
fi
curl -fsS -H "Authorization: Bearer $token" "http://$addr/api/bookings/admin/bookings?per_page=1" | grep -o '"total":[0-9]*' | sed 's/^/stored bookings: /'
