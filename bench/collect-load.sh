#!/usr/bin/env bash
# A loopback load run of page-view collection through the reference server,
# then a count of the views stored (page views and custom events), read after
# a restart: every view
# answered 202 must be there.
#
#   bench/collect-load.sh                    # a fresh SQLite database
#   bench/collect-load.sh postgres://...     # a Postgres database (emptied first)
#   KILL_AFTER=8 bench/collect-load.sh       # SIGKILL the server 8 s into the run
#
# DURATION (20s), CONNECTIONS (32) and THREADS (2) tune wrk, LUA names its
# script (bench/view.lua: one visitor; bench/visitors.lua: a new visitor a
# view, bench/pixel.lua: the no-JavaScript pixel, a new connection a hit;
# bench/varied.lua: varied traffic made on the fly, many paths, referrers,
# campaigns, browsers, visitors, countries and events, the headline load);
# SERVER_FLAGS are
# added to the server's. The server runs with the collect throttle lifted
# (--analytics-collect-limit off: wrk posts from one address). Without
# KILL_AFTER the server is stopped with SIGTERM after the run, which writes
# every view still waiting; with it, the views lost are those answered since
# the last write.
name=collect-load.sh
addr=127.0.0.1:18080
. "$(dirname "$0")/lib.sh"
. bench/cpu.sh
start_server --analytics-collect-limit off ${SERVER_FLAGS:-}
watch_cpu "$server" "$work/cpu" &
token=$("$work/reference" token create --name load --ability 'reporting:view' --db "$dsn" | grep -o '[0-9]*|gw_[A-Za-z0-9]*')

started=$(date +%s.%N)
wrk -t "$threads" -c "$connections" -d "$duration" -s "${LUA:-bench/view.lua}" "http://$addr/analytics/collect" >"$work/wrk.txt" &
load=$!
if [ -n "${KILL_AFTER:-}" ]; then
	sleep "$KILL_AFTER"
	kill -KILL "$server"
else
	wait "$load"
	kill -TERM "$server"
fi
wait "$server" 2>/dev/null || true
stopped=$(date +%s.%N) # the last view written: the server exits after its final flush
server=
wait "$load" || true
cat "$work/wrk.txt"
server_errors
requests=$(grep -o '^ *[0-9]* requests in' "$work/wrk.txt" | grep -o '[0-9]*' | head -1)
refused=$(grep -o 'Non-2xx or 3xx responses: *[0-9]*' "$work/wrk.txt" | grep -o '[0-9]*$' || echo 0)
start_server --analytics-collect-limit off ${SERVER_FLAGS:-}
stored=$(curl -fsS -H "Authorization: Bearer $token" "http://$addr/analytics-reporting/overview?days=1" | grep -o '"page_views":[0-9]*' | head -1 | grep -o '[0-9]*$')
# The custom events (bench/varied.lua sends five kinds), each kind's count.
events=$(curl -fsS -H "Authorization: Bearer $token" "http://$addr/analytics-reporting/top-content?days=1&limit=50" |
	grep -o '"top_events":\[[^]]*\]' | grep -o '"count":[0-9]*' | grep -o '[0-9]*$' | paste -sd+ | bc || true) # none: no match
events=${events:-0}
answered=$((requests - ${refused:-0}))
echo "answered 202: $answered (refused ${refused:-0}); stored after a restart: $stored page views and $events events"
if [ $((stored + events)) -lt "$answered" ]; then
	echo "$name: $((answered - stored - events)) views answered 202 were not stored" >&2
fi
echo "stored a second, counting the final flush: $(echo "($stored + $events) / ($stopped - $started)" | bc), page views alone $(echo "$stored / ($stopped - $started)" | bc) ($((stored + events)) in $(echo "$stopped - $started" | bc) s)"
echo "server CPU a view answered 202 (µs, the load and the final flush): $(cpu_per_view "$work/cpu" $((requests - ${refused:-0})))"
