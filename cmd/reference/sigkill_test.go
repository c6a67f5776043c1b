package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// A submission answered 201 survives a SIGKILL of the server mid-burst:
// after a restart every acknowledged one is stored, once, and nothing is
// stored that was not sent; and the form.submitted webhook of every stored
// submission reaches its receiver (at least once, as documented: one sent
// just before the kill may come again).
func TestSIGKILLLosesNoSubmission(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildReference(t)
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		dir := t.TempDir()
		environ := append(binaryEnv(t, d), "GROUNDWORK_FORMS_SUBMIT_LIMIT=off", "GROUNDWORK_API_RATE_LIMIT=off",
			"GROUNDWORK_FORM_TOKENS=optional")
		srv := startBinary(t, bin, dir, environ)
		create := exec.Command(bin, "token", "create", "--name", "me", "--ability", "*")
		create.Dir, create.Env = dir, environ
		out, err := create.Output()
		require.NoError(t, err)
		token := strings.TrimSpace(string(out))
		code, body := postJSON(t, srv.base+"/api/v1/forms", token, `{"name":"Kill","min_fill_seconds":0}`)
		require.Equal(t, 201, code, body)
		code, body = postJSON(t, srv.base+"/api/v1/forms/kill/fields", token, `{"type":"text","label":"N","name":"n"}`)
		require.Equal(t, 201, code, body)
		var hooksMu sync.Mutex
		delivered := map[string]int{}
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var event struct {
				Data struct {
					Values map[string]string `json:"values"`
				} `json:"data"`
			}
			if err := json.NewDecoder(r.Body).Decode(&event); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			hooksMu.Lock()
			delivered[event.Data.Values["n"]]++
			hooksMu.Unlock()
		}))
		defer receiver.Close()
		code, body = postJSON(t, srv.base+"/api/ecommerce/v1/admin/webhook-subscriptions", token,
			`{"name":"local","url":"`+receiver.URL+`/hook","events":["form.submitted"]}`)
		require.Equal(t, 201, code, body)

		// Eight clients submit n = "c-i" as fast as they can; the server is
		// killed once a few hundred are acknowledged.
		var mu sync.Mutex
		sent, acked := map[string]bool{}, map[string]bool{}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		client := &http.Client{Timeout: 5 * time.Second}
		for c := range 8 {
			wg.Go(func() {
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					n := fmt.Sprintf("%d-%d", c, i)
					var buf bytes.Buffer
					w := multipart.NewWriter(&buf)
					_ = w.WriteField("n", n)
					_ = w.Close()
					mu.Lock()
					sent[n] = true
					mu.Unlock()
					res, err := client.Post(srv.base+"/api/v1/forms/kill/submit", w.FormDataContentType(), &buf)
					if err != nil {
						continue // the server is gone: this one may or may not be stored
					}
					_, _ = io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if res.StatusCode == http.StatusCreated {
						mu.Lock()
						acked[n] = true
						mu.Unlock()
					}
				}
			})
		}
		require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) >= 300 }, 60*time.Second, 5*time.Millisecond)
		require.NoError(t, srv.cmd.Process.Kill())
		<-srv.exited
		close(stop)
		wg.Wait()

		again := startBinary(t, bin, dir, environ)
		code, export := get(t, again.base+"/api/v1/forms/kill/submissions/export", token)
		require.Equal(t, 200, code, export)
		rows, err := csv.NewReader(strings.NewReader(export)).ReadAll()
		require.NoError(t, err)
		col := slices.Index(rows[0], "N")
		require.GreaterOrEqual(t, col, 0, rows[0])
		stored := map[string]int{}
		for _, r := range rows[1:] {
			stored[r[col]]++
		}
		for n := range acked {
			require.Equal(t, 1, stored[n], "acknowledged submission %s stored once", n)
		}
		for n, times := range stored {
			require.True(t, sent[n], "stored %s was sent", n)
			require.Equal(t, 1, times, "%s stored once", n)
		}
		require.Eventually(t, func() bool {
			hooksMu.Lock()
			defer hooksMu.Unlock()
			for n := range stored {
				if delivered[n] == 0 {
					return false
				}
			}
			return true
		}, 60*time.Second, 50*time.Millisecond, "every stored submission's webhook arrives")
		hooksMu.Lock()
		defer hooksMu.Unlock()
		repeated := 0
		for n, times := range delivered {
			require.True(t, stored[n] == 1, "a webhook for %s, which is not stored", n)
			repeated += times - 1
		}
		t.Logf("%s: %d acknowledged, %d stored, %d sent; %d webhooks, %d of them again", d, len(acked), len(stored), len(sent), len(delivered)+repeated, repeated)
	})
}
