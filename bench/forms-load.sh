#!/usr/bin/env bash
# A loopback load run of the public submit endpoint through the reference
# server: a contact form of five fields, posted by wrk (apt-get install wrk)
# from many client addresses.
#
#   bench/forms-load.sh                      # a fresh SQLite database
#   bench/forms-load.sh postgres://...       # a Postgres database (emptied first)
#
# DURATION (30s), CONNECTIONS (32) and THREADS (2) tune wrk; SERVER_FLAGS are
# added to the server's (e.g. "--log-level warn").
set -euo pipefail
cd "$(dirname "$0")/.."

dsn=${1:-}
duration=${DURATION:-30s}
connections=${CONNECTIONS:-32}
threads=${THREADS:-2}
addr=127.0.0.1:18080
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
if [ -z "$dsn" ]; then
	dsn="sqlite:$work/load.db"
else
	psql "$dsn" -qc 'DROP SCHEMA public CASCADE; CREATE SCHEMA public;' >/dev/null
fi

go build -o "$work/reference" ./cmd/reference
"$work/reference" --db "$dsn" --addr "$addr" --trusted-proxies 127.0.0.1/32 --uploads "$work/uploads" ${SERVER_FLAGS:-} >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do
	curl -fs "http://$addr/healthz" >/dev/null && break
	sleep 0.1
done
token=$("$work/reference" token create --name load --ability 'forms:*' --db "$dsn" | grep -o '[0-9]*|gw_[A-Za-z0-9]*')

api() { curl -fsS -H "Authorization: Bearer $token" -H 'Content-Type: application/json' "$@"; }
api -X POST "http://$addr/api/v1/forms" -d '{"name":"Contact","is_active":true}' >/dev/null
for f in '{"type":"text","label":"Name","is_required":true}' '{"type":"email","label":"Email","is_required":true}' \
	'{"type":"phone","label":"Phone"}' '{"type":"select","label":"Topic","field_config":{"options":["sales","support"]}}' \
	'{"type":"textarea","label":"Message"}'; do
	api -X POST "http://$addr/api/v1/forms/contact/fields" -d "$f" >/dev/null
done

wrk -t "$threads" -c "$connections" -d "$duration" -s bench/submit.lua "http://$addr/api/v1/forms/contact/submit"
echo "stored: $(api "http://$addr/api/v1/forms/contact/submissions?per_page=1" | grep -o '"total":[0-9]*')"
