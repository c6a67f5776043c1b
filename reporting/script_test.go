package reporting

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// scriptBudget is the most the analytics script may weigh gzipped, as a
// page loads it: the budget only goes down.
const scriptBudget = 2048

// The analytics script as served: its comments gone, where it posts put
// in, and under its budget gzipped (BENCHMARKS.md records its size).
func TestScriptSize(t *testing.T) {
	t.Parallel()
	js := servedScript("/stats")
	require.Contains(t, js, `"/stats/collect"`)
	require.NotContains(t, js, "%s")
	for line := range strings.SplitSeq(js, "\n") {
		require.False(t, strings.HasPrefix(line, "//"), "a comment is served: %s", line)
		require.Equal(t, strings.TrimSpace(line), line)
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	require.NoError(t, err)
	_, err = zw.Write([]byte(js))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	t.Logf("the analytics script: %d bytes, %d gzipped", len(js), buf.Len())
	require.Less(t, buf.Len(), scriptBudget, "the analytics script outgrew its budget")
}

// An engagement event's props are counted in bands: anything else it
// carries is dropped.
func TestEngagementBands(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		scroll, seconds string
		want            []Prop
	}{
		{"0", "0", []Prop{{"scroll_depth", "Under 25%"}, {"time_on_page", "Under 10 s"}}},
		{"25", "10", []Prop{{"scroll_depth", "25–49%"}, {"time_on_page", "10–29 s"}}},
		{"74", "59", []Prop{{"scroll_depth", "50–74%"}, {"time_on_page", "30–59 s"}}},
		{"99", "179", []Prop{{"scroll_depth", "75–99%"}, {"time_on_page", "1–2 min"}}},
		{"140", "599", []Prop{{"scroll_depth", "100%"}, {"time_on_page", "3–9 min"}}},
		{"x", "3600", []Prop{{"time_on_page", "10 min or more"}}},
		{"-1", "1.5", nil},
	} {
		got := engagementProps([]Prop{{"scroll_depth", c.scroll}, {"seconds", c.seconds}, {"plan", "pro"}})
		require.Equal(t, c.want, got, "%s %s", c.scroll, c.seconds)
	}
}
