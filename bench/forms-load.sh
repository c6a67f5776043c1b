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
name=forms-load.sh
addr=127.0.0.1:18080
. "$(dirname "$0")/lib.sh"
start_server --forms-submit-limit off --api-rate-limit off --form-tokens optional ${SERVER_FLAGS:-}
token=$("$work/reference" token create --name load --ability 'forms:*' --db "$dsn" | grep -o '[0-9]*|gw_[A-Za-z0-9]*')

api() { curl -fsS -H "Authorization: Bearer $token" -H 'Content-Type: application/json' "$@"; }
api -X POST "http://$addr/api/v1/forms" -d '{"name":"Contact","is_active":true}' >/dev/null
for f in '{"type":"text","label":"Name","is_required":true}' '{"type":"email","label":"Email","is_required":true}' \
	'{"type":"phone","label":"Phone"}' '{"type":"select","label":"Topic","field_config":{"options":["sales","support"]}}' \
	'{"type":"textarea","label":"Message"}'; do
	api -X POST "http://$addr/api/v1/forms/contact/fields" -d "$f" >/dev/null
done

wrk -t "$threads" -c "$connections" -d "$duration" -s bench/submit.lua "http://$addr/api/v1/forms/contact/submit"
server_errors
echo "stored: $(api "http://$addr/api/v1/forms/contact/submissions?per_page=1" | grep -o '"total":[0-9]*')"
