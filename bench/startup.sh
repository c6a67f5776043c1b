#!/bin/bash
# Start-up to the first 200 from /healthz of the reference built from two
# checkouts, interleaved: bench/startup.sh BEFORE_DIR AFTER_DIR [N]. Each
# run starts on a fresh SQLite file (which it migrates), then again on the
# migrated file; it prints each run's milliseconds.
set -euo pipefail
before=$1 after=$2 n=${3:-7}
out=$(mktemp -d)
for label in before after; do
	dir=$before
	[ "$label" = after ] && dir=$after
	(cd "$dir" && go build -o "$out/ref-$label" ./cmd/reference)
done
start_ms() { date +%s%N; }
until_healthy() {
	until curl -sf "http://127.0.0.1:$1/healthz" >/dev/null 2>&1; do sleep 0.005; done
}
for _ in $(seq 1 "$n"); do
	for label in before after; do
		d=$(mktemp -d) port=$((19000 + RANDOM % 1000))
		t0=$(start_ms)
		GROUNDWORK_LOG_LEVEL=error "$out/ref-$label" --addr 127.0.0.1:$port --db "sqlite:$d/x.db" --uploads "$d/up" >/dev/null 2>&1 &
		pid=$!
		until_healthy $port
		t1=$(start_ms)
		kill -INT $pid
		wait $pid 2>/dev/null || true
		t2=$(start_ms)
		GROUNDWORK_LOG_LEVEL=error "$out/ref-$label" --addr 127.0.0.1:$port --db "sqlite:$d/x.db" --uploads "$d/up" >/dev/null 2>&1 &
		pid=$!
		until_healthy $port
		t3=$(start_ms)
		kill -INT $pid
		wait $pid 2>/dev/null || true
		echo "$label fresh $(((t1 - t0) / 1000000)) ms, migrated $(((t3 - t2) / 1000000)) ms"
		rm -rf "$d"
	done
done
rm -rf "$out"
