package reply

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestEncodeJSONTimes(t *testing.T) {
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	fine := at.Add(123456789 * time.Nanosecond)
	type row struct {
		At      time.Time            `json:"at"`
		Fine    time.Time            `json:"fine"`
		Ptr     *time.Time           `json:"ptr"`
		Nil     *time.Time           `json:"nil"`
		Omitted *time.Time           `json:"omitted,omitempty"`
		Map     map[string]time.Time `json:"map"`
		HTML    string               `json:"html"`
		Empty   []string             `json:"empty"`
	}
	var buf bytes.Buffer
	require.NoError(t, EncodeJSON(&buf, row{At: at, Fine: fine, Ptr: &fine, Map: map[string]time.Time{"x": at.In(time.FixedZone("", 3600))},
		HTML: "<a&b>"}))
	require.Equal(t, `{"at":"2026-11-22T10:00:00.000000Z","fine":"2026-11-22T10:00:00.123456Z","ptr":"2026-11-22T10:00:00.123456Z",`+
		`"nil":null,"map":{"x":"2026-11-22T11:00:00.000000+01:00"},"html":"\u003ca\u0026b\u003e","empty":null}`+"\n", buf.String(),
		"HTML characters escaped, as encoding/json does: a name like <script> never reaches a page raw")

	// Everything else as encoding/json writes it.
	v := map[string]any{"b": []any{1.5, "é\u2028", nil, true}, "a": json.RawMessage(`{"z":1}`), "n": json.Number("12")}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	buf.Reset()
	require.NoError(t, EncodeJSON(&buf, v))
	require.Equal(t, want.String(), buf.String())

	for _, n := range []string{"", "1e400", "-0.5"} {
		want.Reset()
		require.NoError(t, json.NewEncoder(&want).Encode(json.Number(n)))
		buf.Reset()
		require.NoError(t, EncodeJSON(&buf, json.Number(n)))
		require.Equal(t, want.String(), buf.String(), n)
	}
	require.Error(t, EncodeJSON(&buf, json.Number("12abc")))
	require.Error(t, json.NewEncoder(&want).Encode(json.Number("12abc")))
}
