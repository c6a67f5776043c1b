// Package traffic makes the varied analytics traffic the benchmarks and
// bench/reports record: a day of page views and events as
// bench/varied.lua sends them to a server.
package traffic

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/groundwork-go/groundwork/reporting"
)

// Day is a day of varied traffic: n hits (a tenth of them custom events
// with a property) from visitors visitors, over 20,000 paths (a few
// popular, a long tail), 500 referrers (two visitors in three come from
// one), a tenth of visitors with a campaign, 12 browsers, 5 systems, 3
// devices and 30 countries, in time order through the day. Another seed
// makes another day of the same shape, with other visitors; seed 1 is
// the day the reportingsql benchmarks record.
func Day(day time.Time, n, visitors int, seed uint64) []reporting.Hit {
	r := rand.New(rand.NewPCG(50, seed))
	zipf := rand.NewZipf(r, 1.1, 1, 19_999)
	browsers := []string{"Chrome", "Safari", "Firefox", "Edge", "Samsung Internet", "Opera", "Chrome Mobile", "Safari Mobile",
		"Firefox Mobile", "Brave", "Vivaldi", "UC Browser"}
	systems := []string{"Windows", "macOS", "Android", "iOS", "Linux"}
	devices := []string{"desktop", "mobile", "tablet"}
	date := day.Format(time.DateOnly)
	hits := make([]reporting.Hit, n)
	for i := range hits {
		v := r.IntN(visitors)
		h := reporting.Hit{At: day.Add(time.Duration(i) * 24 * time.Hour / time.Duration(n)), Day: date,
			Visitor: fmt.Sprintf("%016x", (uint64(v)+(seed-1)<<32)*0x9e3779b97f4a7c15), Path: fmt.Sprintf("/p/%d", zipf.Uint64()),
			Device: devices[v%3], Browser: browsers[v%12], OS: systems[v%5], Country: fmt.Sprintf("C%d", v%30)}
		h.Title = "Page " + h.Path
		if v%3 != 0 {
			h.Source = fmt.Sprintf("ref%d.example", v%500)
		}
		if v%10 == 0 {
			h.Campaign = [4]string{"email", fmt.Sprintf("spring-%d", v%7), "", ""}
		}
		if i%10 == 9 {
			h.Event, h.Path, h.Title, h.Props = "signup", "", "", []reporting.Prop{{Name: "plan", Value: []string{"free", "pro"}[v%2]}}
		}
		hits[i] = h
	}
	return hits
}
