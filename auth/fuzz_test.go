package auth_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/internal/apitest"
	"github.com/groundwork-go/groundwork/store"
)

// No Authorization header makes the token route or a guarded route panic
// or answer 5xx: a header is a known token (200) or refused (401, 403),
// and only the token made verifies.
func FuzzBearer(f *testing.F) {
	b := setupHTTP(f, store.SQLite)
	plain, _, err := b.svc.CreateToken(context.Background(), auth.NewToken{Name: "me", Abilities: []string{"forms:create"}, ExpiresAt: b.clock.Now().Add(time.Hour)})
	if err != nil {
		f.Fatal(err)
	}
	for _, h := range []string{"Bearer " + plain, "Bearer " + plain + "x", "bearer " + plain, "Bearer", "Bearer  " + plain, "Basic YTpi",
		"Bearer 1|", "Bearer 99999999999999999999|gw_x", "Bearer |gw_" + strings.Repeat("a", 40), "Bearer 1|gw_" + strings.Repeat("a", 4000)} {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, header string) {
		for _, path := range []string{auth.PrefixDefault + "/token", "/guarded"} {
			req, err := http.NewRequest(http.MethodGet, b.server.URL+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header["Authorization"] = []string{header}
			res, err := http.DefaultClient.Do(req)
			if err != nil && strings.Contains(err.Error(), "invalid header field value") {
				t.Skip("no client sends that header")
			}
			if err != nil {
				t.Fatal(err)
			}
			out, _ := io.ReadAll(res.Body)
			res.Body.Close()
			switch {
			case res.StatusCode == 200 && !strings.Contains(header, plain):
				t.Fatalf("%s %q: let in", path, header)
			case res.StatusCode != 200 && res.StatusCode != 401 && res.StatusCode != 403 || !json.Valid(out):
				t.Fatalf("%s %q: %d %s", path, header, res.StatusCode, out)
			}
			if held := apitest.Held(); len(held) > 0 {
				t.Fatalf("%s %q: %v", path, header, held)
			}
		}
	})
}
