package main

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// A client that closes its side of the connection as soon as it has sent
// its request (a half-close, as `nc -N` does, or a client that gives up)
// is the client leaving, not the database going away: on both databases
// no such request is answered 5xx, none is logged as an error or as the
// database unavailable, and /readyz stays ready.
func TestClientThatLeavesIsNotAnOutage(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dsn := storetest.DSN(t, d)
		c, _, stderr := runCmd(t, env{"GROUNDWORK_DB": dsn}, "bookings", "seed")
		require.Equal(t, 0, c, stderr)
		cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--db", dsn, "--log-level", "info", "--uploads", t.TempDir()},
			env{"GROUNDWORK_SECRET_KEY": testSecretKey}.get)
		require.NoError(t, err)
		base := startServeConfig(t, cfg)
		addr := strings.TrimPrefix(base, "http://")
		statuses := map[int]int{}
		for i := range 40 {
			path := []string{"/bookings/consultation", "/bookings/consultation?date=" + nextMonths()[0], "/forms/", "/"}[i%4]
			conn, err := net.Dial("tcp", addr)
			require.NoError(t, err)
			_, err = conn.Write([]byte("GET " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nAccept: text/html\r\n\r\n"))
			require.NoError(t, err)
			require.NoError(t, conn.(*net.TCPConn).CloseWrite())
			require.NoError(t, conn.SetReadDeadline(time.Now().Add(20*time.Second)))
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err == nil {
				statuses[res.StatusCode]++
				res.Body.Close()
			} else {
				statuses[0]++ // closed without an answer
			}
			conn.Close()
		}
		for status := range statuses {
			require.Contains(t, []int{0, 200, 404, 499}, status, "no 5xx to a client that left: %v", statuses)
		}
		code, body := get(t, base+"/readyz", "")
		require.Equal(t, 200, code, body)
		logs, _ := servedLogs.Load(t.Name())
		text := logs.(*syncBuffer).String()
		require.NotContains(t, text, "database unavailable")
		require.NotContains(t, text, "level=ERROR")
		t.Logf("answers to clients that left: %v", statuses)
	})
}
