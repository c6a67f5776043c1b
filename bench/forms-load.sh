#!/usr/bin/env bash
# A loopback load run of the public submit endpoint through the reference
# server: a contact form of five fields, posted by wrk (apt-get install wrk)
# from many client addresses.
#
#   bench/forms-load.sh                      # a fresh SQLite database
#   bench/forms-load.sh postgres://...       # a Postgres database (emptied first)
#
# DURATION (30s), CONNECTIONS (32) and THREADS (2) tune wrk; SERVER_FLAGS are
# added to the server's. The server runs with its throttles lifted and no
# per-request log line (--forms-submit-limit off --api-rate-limit off
# --request-log none), as any load run of it should be, and takes
# submissions without form-load tokens (--form-tokens optional: wrk sends one
# body over and over, and a token is good once; BenchmarkSubmitHTTP sends a
# token with each submission). On Postgres the
# server needs GROUNDWORK_SECRET_KEY: a fresh one is made when it is unset.
set -euo pipefail
cd "$(dirname "$0")/.."

dsn=${1:-}
duration=${DURATION:-30s}
connections=${CONNECTIONS:-32}
threads=${THREADS:-2}
addr=127.0.0.1:18080
work=$(mktemp -d)
server=
trap 'if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi; rm -rf "$work"' EXIT
if [ -z "$dsn" ]; then
	dsn="sqlite:$work/load.db"
else
	psql "$dsn" -qc 'DROP SCHEMA public CASCADE; CREATE SCHEMA public;' >/dev/null
	export GROUNDWORK_SECRET_KEY=${GROUNDWORK_SECRET_KEY:-$(head -c 32 /dev/urandom | base64)}
fi
command -v wrk >/dev/null || { echo "forms-load.sh: wrk is not installed (apt-get install wrk)" >&2; exit 1; }

go build -o "$work/reference" ./cmd/reference
"$work/reference" --db "$dsn" --addr "$addr" --trusted-proxies 127.0.0.1/32 --uploads "$work/uploads" \
	--forms-submit-limit off --api-rate-limit off --request-log none --form-tokens optional ${SERVER_FLAGS:-} >"$work/server.log" 2>&1 &
server=$!
up=
for _ in $(seq 100); do
	curl -fs "http://$addr/healthz" >/dev/null && { up=1; break; }
	kill -0 "$server" 2>/dev/null || break
	sleep 0.1
done
if [ -z "$up" ]; then
	echo "forms-load.sh: the server did not start:" >&2
	cat "$work/server.log" >&2
	exit 1
fi
token=$("$work/reference" token create --name load --ability 'forms:*' --db "$dsn" | grep -o '[0-9]*|gw_[A-Za-z0-9]*')

api() { curl -fsS -H "Authorization: Bearer $token" -H 'Content-Type: application/json' "$@"; }
api -X POST "http://$addr/api/v1/forms" -d '{"name":"Contact","is_active":true}' >/dev/null
for f in '{"type":"text","label":"Name","is_required":true}' '{"type":"email","label":"Email","is_required":true}' \
	'{"type":"phone","label":"Phone"}' '{"type":"select","label":"Topic","field_config":{"options":["sales","support"]}}' \
	'{"type":"textarea","label":"Message"}'; do
	api -X POST "http://$addr/api/v1/forms/contact/fields" -d "$f" >/dev/null
done

wrk -t "$threads" -c "$connections" -d "$duration" -s bench/submit.lua "http://$addr/api/v1/forms/contact/submit"
if grep -q '"level":"ERROR"\|level=ERROR' "$work/server.log"; then
	echo "forms-load.sh: the server logged errors:" >&2
	grep '"level":"ERROR"\|level=ERROR' "$work/server.log" | head -5 >&2
fi
echo "stored: $(api "http://$addr/api/v1/forms/contact/submissions?per_page=1" | grep -o '"total":[0-9]*')"
