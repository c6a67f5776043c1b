#!/usr/bin/env bash
# A loopback load run of POST /api/bookings through the reference server:
# wrk (apt-get install wrk) books a different free slot with every request,
# spread over 20 providers (bench/book.lua).
#
#   bench/bookings-load.sh                   # a fresh SQLite database
#   bench/bookings-load.sh postgres://...    # a Postgres database (emptied first)
#
# DURATION (30s), CONNECTIONS (32) and THREADS (2) tune wrk. The server
# runs with its throttles lifted and no per-request log line.
name=bookings-load.sh
addr=127.0.0.1:18081
. "$(dirname "$0")/lib.sh"
start_server --bookings-post-limit off --bookings-read-limit off --api-rate-limit off
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
server_errors
curl -fsS -H "Authorization: Bearer $token" "http://$addr/api/bookings/admin/bookings?per_page=1" | grep -o '"total":[0-9]*' | sed 's/^/stored bookings: /'
