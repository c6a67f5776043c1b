package forms

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/forms/formsstore"
	"github.com/groundwork-go/groundwork/internal/api"
)

// summaryLatest is how many latest answers a text field's summary shows.
const summaryLatest = 5

// Summary is a form's answers at a glance over a date range: per field,
// how many answered and what (counts per option, number statistics, the
// latest answers), and the funnel of its page.
type Summary struct {
	From        time.Time      `json:"from"`
	To          time.Time      `json:"to"`
	Submissions int64          `json:"submissions"`
	Fields      []FieldSummary `json:"fields"`
	Funnel      Funnel         `json:"funnel"`
}

// FieldSummary is one field's answers at a glance: Options for a choice
// (every option, in order, with its count; answers no option holds any
// more last), Number for a number, Latest (newest first) for the rest;
// files are counted only.
type FieldSummary struct {
	Name     string         `json:"name"`
	Label    string         `json:"label"`
	Type     FieldType      `json:"type"`
	Answered int64          `json:"answered"`
	Options  []OptionCount  `json:"options,omitempty"`
	Number   *NumberStats   `json:"number,omitempty"`
	Latest   []LatestAnswer `json:"latest,omitempty"`
	// NPS splits an NPS field's answers; nil for other types.
	NPS *NPSScore `json:"nps,omitempty"`
	// Rows are a matrix's rows, each with its columns' counts.
	Rows []FieldSummary `json:"rows,omitempty"`
}

// NPSScore splits an NPS field's answers: promoters (9 and 10), passives
// (7 and 8) and detractors (0 to 6), and Score, the Net Promoter Score:
// the promoters' share of the answers less the detractors', in points
// (-100 to 100; 0 without answers).
type NPSScore struct {
	Promoters  int64   `json:"promoters"`
	Passives   int64   `json:"passives"`
	Detractors int64   `json:"detractors"`
	Score      float64 `json:"score"`
}

// npsOf is the split of an NPS field's counts by score.
func npsOf(counts map[string]int64) *NPSScore {
	out := &NPSScore{}
	for v, n := range counts {
		score, err := strconv.Atoi(v)
		switch {
		case err != nil:
		case score >= 9:
			out.Promoters += n
		case score >= 7:
			out.Passives += n
		default:
			out.Detractors += n
		}
	}
	if all := out.Promoters + out.Passives + out.Detractors; all > 0 {
		out.Score = math.Round(float64(out.Promoters-out.Detractors)*1000/float64(all)) / 10
	}
	return out
}

// OptionCount is how many answers chose one option; for a ranking, how
// many put it first, and its AverageRank (1 is first; nil before any
// answer).
type OptionCount struct {
	Value       string   `json:"value"`
	Label       string   `json:"label"`
	Count       int64    `json:"count"`
	AverageRank *float64 `json:"average_rank,omitempty"`
}

// Funnel is how far people go: Views of the page (from the first-party
// analytics, when linked: see Service.CountViewsWith; nil otherwise),
// Starts (responses begun: sent, or saved to finish later), Completions
// (accepted submissions), and per step how many reached it and how many
// stopped there (saved, never sent).
type Funnel struct {
	Views       *int64       `json:"views"`
	Starts      int64        `json:"starts"`
	Completions int64        `json:"completions"`
	Steps       []FunnelStep `json:"steps"`
}

// FunnelStep is one step of the funnel (1-based; a form without steps
// has one).
type FunnelStep struct {
	Step    int    `json:"step"`
	Title   string `json:"title"`
	Reached int64  `json:"reached"`
	Stopped int64  `json:"stopped"`
}

// ViewCounter counts the views of form's page in [from, to): what a link
// to the analytics registers (Service.CountViewsWith).
type ViewCounter func(ctx context.Context, form *Form, from, to time.Time) (int64, error)

// CountViewsWith makes count the source of the funnel's views; a link
// registers it (link.AnalyticsToForms). Register before serving.
func (s *Service) CountViewsWith(count ViewCounter) { s.views = count }

// summaryDaysDefault and summaryDaysMax are the days a summary covers
// when none are named, and the most it may.
const (
	summaryDaysDefault = 30
	summaryDaysMax     = 366
)

// SummaryRange reads a summary's days from from and to (dates,
// YYYY-MM-DD, both included; the 30 days to today when
// empty) as the times [from, to) in UTC, or a *ValidationError.
func (s *Service) SummaryRange(from, to string) (time.Time, time.Time, error) {
	v := &api.Validator{}
	today := s.now().UTC().Truncate(24 * time.Hour)
	end, start := today, today.AddDate(0, 0, -(summaryDaysDefault-1))
	if to != "" {
		t, err := time.Parse(time.DateOnly, to)
		if err != nil {
			v.Add("to", api.MsgDate("to"))
		}
		end = t
	}
	if from != "" {
		t, err := time.Parse(time.DateOnly, from)
		if err != nil {
			v.Add("from", api.MsgDate("from"))
		}
		start = t
	} else if to != "" {
		start = end.AddDate(0, 0, -(summaryDaysDefault - 1))
	}
	if v.Err() == nil {
		switch days := int(end.Sub(start).Hours()/24) + 1; {
		case days < 1:
			v.Add("to", "The to field must be a date after or equal to from.")
		case days > summaryDaysMax:
			v.Add("from", fmt.Sprintf("The from field must be at most %d days before to.", summaryDaysMax))
		}
	}
	if err := v.Err(); err != nil {
		return time.Time{}, time.Time{}, err
	}
	return start, end.AddDate(0, 0, 1), nil
}

// Summary is form's answers at a glance over the accepted submissions
// made in [from, to), and the funnel of its page then.
func (s *Service) Summary(ctx context.Context, form *Form, from, to time.Time) (*Summary, error) {
	fields, err := s.store.Fields(ctx, form.ID)
	if err != nil {
		return nil, fmt.Errorf("forms: summary: %w", err)
	}
	steps, err := s.store.Steps(ctx, form.ID)
	if err != nil {
		return nil, fmt.Errorf("forms: summary: %w", err)
	}
	q := formsstore.SummaryQuery{FormID: form.ID, From: from, To: to, Latest: summaryLatest}
	for _, f := range fields {
		switch {
		case isLayout(f.Type) || f.Type == TypeFile:
		case isMulti(f.Type) || f.Type == TypeMatrix:
			q.Lists = append(q.Lists, f.Name)
		case f.Type == TypeRanking:
			q.Ranks = append(q.Ranks, f.Name)
		case isChoice(f.Type) || f.Type == TypeCheckbox:
			q.Choices = append(q.Choices, f.Name)
		case f.Type == TypeRating || f.Type == TypeNPS:
			// Each score counted, and the average.
			q.Choices, q.Numbers = append(q.Choices, f.Name), append(q.Numbers, f.Name)
		case f.Type == TypeNumber:
			q.Numbers = append(q.Numbers, f.Name)
		default:
			q.Texts = append(q.Texts, f.Name)
		}
	}
	fields = inPageOrder(fields, steps)
	stats, err := s.store.Summarize(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("forms: summary: %w", err)
	}
	out := &Summary{From: from, To: to, Submissions: stats.Submissions, Fields: []FieldSummary{}}
	for i := range fields {
		f := &fields[i]
		if isLayout(f.Type) {
			continue
		}
		fs := FieldSummary{Name: f.Name, Label: f.Label, Type: f.Type, Answered: stats.Answered[f.Name], Latest: stats.Latest[f.Name]}
		if n, ok := stats.Numbers[f.Name]; ok {
			fs.Number = &n
		}
		switch f.Type {
		case TypeMatrix:
			fs.Rows = matrixCounts(f, stats.Counts[f.Name])
		case TypeRanking:
			fs.Options = rankCounts(f, stats.Counts[f.Name])
		}
		if slices.Contains(q.Choices, f.Name) || slices.Contains(q.Lists, f.Name) && f.Type != TypeMatrix {
			counts := stats.Counts[f.Name]
			if f.Type == TypeCheckbox {
				// A box left unticked sends nothing: every accepted
				// submission answered it, the unticked with No.
				counts = maps.Clone(counts)
				if counts == nil {
					counts = map[string]int64{}
				}
				counts["0"] += max(stats.Submissions-fs.Answered, 0)
				fs.Answered = max(stats.Submissions, fs.Answered)
			}
			fs.Options = optionCounts(f, counts)
			if f.Type == TypeNPS {
				fs.NPS = npsOf(counts)
			}
		}
		out.Fields = append(out.Fields, fs)
	}
	out.Funnel = funnel(steps, stats)
	if s.views != nil {
		n, err := s.views(ctx, form, from, to)
		if err != nil {
			return nil, fmt.Errorf("forms: summary: views: %w", err)
		}
		out.Funnel.Views = &n
	}
	return out, nil
}

// inPageOrder is fields as the page shows them: those on no step first,
// then each step's, in step order.
func inPageOrder(fields []Field, steps []Step) []Field {
	place := map[int64]int{}
	for i, st := range steps {
		place[st.ID] = i + 1
	}
	out := slices.Clone(fields)
	slices.SortStableFunc(out, func(a, b Field) int {
		pa, pb := 0, 0
		if a.StepID != nil {
			pa = place[*a.StepID]
		}
		if b.StepID != nil {
			pb = place[*b.StepID]
		}
		return cmp.Or(cmp.Compare(pa, pb), cmp.Compare(a.SortOrder, b.SortOrder))
	})
	return out
}

// optionCounts are f's options with their counts, then the answers no
// option holds any more (an option since removed), by count.
func optionCounts(f *Field, counts map[string]int64) []OptionCount {
	out := []OptionCount{}
	seen := map[string]bool{}
	if f.Type == TypeCheckbox {
		out = append(out, OptionCount{Value: "1", Label: "Yes", Count: counts["1"]}, OptionCount{Value: "0", Label: "No", Count: counts["0"]})
		seen["1"], seen["0"] = true, true
	}
	for _, o := range f.Options() {
		out = append(out, OptionCount{Value: o.Value, Label: o.Label, Count: counts[o.Value]})
		seen[o.Value] = true
	}
	if low, high := scaleOf(f); high > 0 {
		for n := low; n <= high; n++ {
			v := strconv.Itoa(n)
			out = append(out, OptionCount{Value: v, Label: v, Count: counts[v]})
			seen[v] = true
		}
	}
	var gone []OptionCount
	for v, n := range counts {
		if !seen[v] {
			gone = append(gone, OptionCount{Value: v, Label: v, Count: n})
		}
	}
	slices.SortFunc(gone, func(a, b OptionCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Value, b.Value))
	})
	return append(out, gone...)
}

// matrixCounts are a matrix's rows, each with its columns' counts
// (counts holds "row=column" answers).
func matrixCounts(f *Field, counts map[string]int64) []FieldSummary {
	byRow := map[string]map[string]int64{}
	for answer, n := range counts {
		if row, col, ok := strings.Cut(answer, "="); ok {
			count := byRow[row]
			if count == nil {
				count = map[string]int64{}
				byRow[row] = count
			}
			count[col] += n
		}
	}
	rows := []FieldSummary{}
	for _, r := range f.matrixRows() {
		row := FieldSummary{Name: r.Value, Label: r.Label, Type: TypeRadio, Options: optionCounts(f, byRow[r.Value])}
		for _, o := range row.Options {
			row.Answered += o.Count
		}
		rows = append(rows, row)
	}
	return rows
}

// rankCounts are a ranking's items, each with how many put it first and
// its average place (counts holds "item=place" tallies).
func rankCounts(f *Field, counts map[string]int64) []OptionCount {
	out := []OptionCount{}
	for _, o := range f.Options() {
		var times, sum int64
		first := counts[o.Value+"=1"]
		for answer, n := range counts {
			i := strings.LastIndexByte(answer, '=')
			if place, err := strconv.Atoi(answer[i+1:]); err == nil && i >= 0 && answer[:i] == o.Value {
				times, sum = times+n, sum+int64(place)*n
			}
		}
		oc := OptionCount{Value: o.Value, Label: o.Label, Count: first}
		if times > 0 {
			avg := math.Round(float64(sum)*100/float64(times)) / 100
			oc.AverageRank = &avg
		}
		out = append(out, oc)
	}
	return out
}

// funnel is how far people went: a sent response reached every step; a
// saved one (kept, or swept unsent) the last it had an answer on.
func funnel(steps []Step, stats *AnswerStats) Funnel {
	n := max(len(steps), 1)
	f := Funnel{Completions: stats.Submissions, Steps: make([]FunnelStep, n)}
	stopped := make([]int64, n+1)
	for _, m := range []map[int]int64{stats.Saved, stats.Abandoned} {
		for step, count := range m {
			stopped[min(max(step, 1), n)] += count
		}
	}
	var beyond int64 = stats.Submissions // those who went past each step
	for i := n; i >= 1; i-- {
		beyond += stopped[i]
		f.Steps[i-1] = FunnelStep{Step: i, Reached: beyond, Stopped: stopped[i]}
		if i <= len(steps) {
			f.Steps[i-1].Title = steps[i-1].Title
		}
	}
	f.Starts = f.Steps[0].Reached
	return f
}
