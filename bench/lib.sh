# Shared by the load scripts (source it): the database to use, wrk's
# settings, and a reference server started with its throttles lifted and
# stopped on exit. Set name and addr (and uses_wrk=no for a script that
# does without wrk) before sourcing; the script's first
# argument is an optional Postgres URL (emptied first).
set -euo pipefail
cd "$(dirname "$0")/.."

dsn=${1:-}
duration=${DURATION:-20s}
connections=${CONNECTIONS:-32}
threads=${THREADS:-2}
work=$(mktemp -d)
server=
trap 'if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi; rm -rf "$work"' EXIT
if [ -z "$dsn" ]; then
	dsn="sqlite:$work/load.db"
else
	psql "$dsn" -qc 'DROP SCHEMA public CASCADE; CREATE SCHEMA public;' >/dev/null
	export GROUNDWORK_SECRET_KEY=${GROUNDWORK_SECRET_KEY:-$(head -c 32 /dev/urandom | base64)}
fi
if [ "${uses_wrk:-yes}" = yes ]; then
	command -v wrk >/dev/null || { echo "$name: wrk is not installed (apt-get install wrk)" >&2; exit 1; }
fi

# start_server runs the reference server with the given extra flags and
# waits until it answers.
start_server() {
	go build -o "$work/reference" ./cmd/reference
	"$work/reference" --db "$dsn" --addr "$addr" --trusted-proxies 127.0.0.1/32 --uploads "$work/uploads" \
		--request-log none "$@" >"$work/server.log" 2>&1 &
	server=$!
	local up=
	for _ in $(seq 100); do
		curl -fs "http://$addr/healthz" >/dev/null && { up=1; break; }
		kill -0 "$server" 2>/dev/null || break
		sleep 0.1
	done
	if [ -z "$up" ]; then
		echo "$name: the server did not start:" >&2
		cat "$work/server.log" >&2
		exit 1
	fi
}

# server_errors reports errors the server logged.
server_errors() {
	if grep -q '"level":"ERROR"\|level=ERROR' "$work/server.log"; then
		echo "$name: the server logged errors:" >&2
		grep '"level":"ERROR"\|level=ERROR' "$work/server.log" | head -5 >&2 || true
	fi
}
