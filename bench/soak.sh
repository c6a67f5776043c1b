#!/usr/bin/env bash
# A soak: the reference server under a steady mixed load (bench/soak:
# form submissions, bookings, page views, sign-ins, and the webhooks they
# cause, delivered to the soak's own receiver) for DURATION (30m), its
# resident memory, goroutines and open files printed each minute as a
# Markdown table.
#
#   bench/soak.sh                   # a fresh SQLite database
#   bench/soak.sh postgres://...    # a Postgres database (emptied first)
#
# SCALE (1) multiplies the rates: 20 submissions, 5 bookings, 100 views and
# 1 sign-in a second.
name=soak.sh
addr=127.0.0.1:18082
uses_wrk=no
. "$(dirname "$0")/lib.sh"
soak_for=${DURATION:-30m}
export GROUNDWORK_WEBHOOKS_ALLOW_PRIVATE_HOSTS=true GROUNDWORK_WEBHOOKS_ALLOW_INSECURE_URLS=true
start_server --metrics-addr 127.0.0.1:18083 --api-rate-limit off --forms-submit-limit off --form-tokens optional \
	--bookings-post-limit off --bookings-read-limit off --analytics-collect-limit off
token=$("$work/reference" token create --name soak --ability 'forms:*' --ability 'bookings:*' \
	--ability 'webhookSubscription.*' --db "$dsn" | grep -o '[0-9]*|gw_[A-Za-z0-9]*')
password=$(head -c 18 /dev/urandom | base64)
echo "$password" | "$work/reference" user create --email soak@example.test --name Soak --db "$dsn" >/dev/null
go build -o "$work/soak" ./bench/soak
"$work/soak" -base "http://$addr" -metrics http://127.0.0.1:18083/metrics -token "$token" \
	-email soak@example.test -password "$password" -duration "$soak_for" -scale "${SCALE:-1}"
server_errors
