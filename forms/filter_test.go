package forms_test

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// Submissions filtered by answer, checked against the answers sent:
// one field, two at once, a list's item, with the flags; values with
// LIKE's wildcards and long ones match only themselves; unknown fields
// refused. Both databases.
func TestFilterByAnswer(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, func(o *setupOptions) { o.dialect = d })
		slug := b.seedSurvey(t)
		long := strings.Repeat("x", 250)
		form, err := b.svc.Form(context.Background(), slug)
		require.NoError(t, err)
		fields, err := b.svc.Fields(context.Background(), form.ID)
		require.NoError(t, err)
		for _, comment := range []string{"50%_off", "50%Xoff", long + "a", long + "b"} {
			b.clock.Advance(forms.MinFillTime)
			_, err := b.svc.Submit(context.Background(), form, fields, &forms.SubmitRequest{Values: map[string][]string{"comment": {comment},
				"days": {"sat"}}, FormToken: b.svc.FormToken(form.ID)})
			require.NoError(t, err)
		}
		ids := func(query string) []string {
			t.Helper()
			r := b.api(t, "GET", "/"+slug+"/submissions?"+query, nil)
			require.Equal(t, 200, r.status, "%s: %s", query, r.body)
			var out []string
			for _, s := range r.json(t)["data"].([]any) {
				var parts []string
				for _, v := range s.(map[string]any)["values"].([]any) {
					v := v.(map[string]any)
					parts = append(parts, v["field_name"].(string)+"="+v["display_value"].(string))
				}
				slices.Sort(parts)
				out = append(out, strings.Join(parts, " "))
			}
			require.EqualValues(t, len(out), r.json(t)["meta"].(map[string]any)["total"], query)
			return out
		}
		q := func(pairs ...string) string {
			v := url.Values{}
			for i := 0; i < len(pairs); i += 2 {
				v.Add(pairs[i], pairs[i+1])
			}
			return v.Encode()
		}
		require.Len(t, ids(q("field[topic]", "food")), 3, "the day before, and two in the range")
		require.Equal(t, []string{"comment=Quiet rooms days=sat rating=5 topic=Rooms"}, ids(q("field[topic]", "rooms")))
		require.Equal(t, []string{"agree=Yes comment=Lovely days=sat, sun rating=4 topic=Food"}, ids(q("field[topic]", "food", "field[rating]", "4")))
		require.Len(t, ids(q("field[days]", "sat")), 6, "a list's item: two seeded, four above")
		require.Len(t, ids(q("field[days]", "sun")), 2)
		require.Empty(t, ids(q("field[days]", "sa")), "a whole item only")
		require.Equal(t, []string{"comment=50%_off days=sat"}, ids(q("field[comment]", "50%_off")), "wildcards are letters")
		require.Equal(t, []string{"comment=" + long + "b days=sat"}, ids(q("field[comment]", long+"b")), "past the index's 200 characters")
		require.Empty(t, ids(q("field[comment]", "BUY PILLS", "is_spam", "false")))
		require.Len(t, ids(q("field[comment]", "BUY PILLS", "is_spam", "true")), 1)
		require.Empty(t, ids(q("field[topic]", "nothing")))

		for query, key := range map[string]string{q("field[nope]", "x"): "field[nope]", q("field[topic]", "a", "field[topic]", "b"): "field[topic]",
			q("field[a]", "1", "field[b]", "1", "field[c]", "1", "field[d]", "1", "field[e]", "1", "field[f]", "1"): "field"} {
			r := b.api(t, "GET", "/"+slug+"/submissions?"+query, nil)
			require.Equal(t, 422, r.status, query)
			require.Contains(t, r.errors(t).Errors, key, query)
		}
	})
}
