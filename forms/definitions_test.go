package forms_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formssql"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/store/driverless"
	"github.com/groundwork-go/groundwork/store/storetest"
)

// countingStore counts the definition reads of the submit endpoint.
type countingStore struct {
	forms.Store
	reads atomic.Int64
}

func (c *countingStore) FormWithFields(ctx context.Context, id int64, slug string) (*forms.Form, []forms.Field, error) {
	c.reads.Add(1)
	return c.Store.FormWithFields(ctx, id, slug)
}

// instance is a second server on the same database: its own service, so
// its own cache of form definitions, as another replica would have.
type instance struct {
	store  *countingStore
	server *httptest.Server
	clock  *clock
}

// secondInstance is another server on b's database; with a submitLimit,
// it counts the limit in the database too.
func secondInstance(t *testing.T, b *bundle, submitLimit ...int) *instance {
	t.Helper()
	blobs, err := forms.NewDirBlobStore(b.blobDir)
	require.NoError(t, err)
	t.Cleanup(func() { blobs.Close() })
	in := &instance{store: &countingStore{Store: formssql.New(b.db)}, clock: b.clock}
	svc, err := forms.NewService(in.store, &forms.Options{Now: b.clock.Now, FormTokenKey: testFormKey, Blobs: blobs, Enqueuer: b.queue})
	require.NoError(t, err)
	ho := &forms.HandlerOptions{Tokens: testTokens, SubmitLimit: -1}
	if len(submitLimit) > 0 {
		ho.SubmitLimit = submitLimit[0]
		ho.RateLimiter = store.NewSQLRateLimiter(b.db, &driverless.RateLimiterOptions{Now: b.clock.Now})
	}
	h, err := forms.NewHandler(svc, ho)
	require.NoError(t, err)
	in.server = httptest.NewServer(h)
	t.Cleanup(in.server.Close)
	return in
}

func (in *instance) submit(t *testing.T, form string, parts ...part) reply {
	t.Helper()
	parts = withFormToken(t, in.clock, func(path string) reply {
		res, err := http.Get(in.server.URL + path)
		require.NoError(t, err)
		defer res.Body.Close()
		out, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return reply{status: res.StatusCode, header: res.Header, body: string(out)}
	}, form, parts)
	ct, body := multipartBody(t, parts...)
	req, err := http.NewRequest("POST", in.server.URL+forms.PrefixDefault+"/"+form+"/submit", body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Accept", "application/json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return reply{status: res.StatusCode, header: res.Header, body: string(out)}
}

// The submit endpoint keeps form definitions in memory, so another
// instance's changes reach it only through the version check when a
// submission is stored. Every kind of change made on one instance must
// hold on the other at once.
func TestSubmitSeesChangesMadeElsewhere(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, withQueue, func(o *setupOptions) { o.dialect = d })
		form := b.contactForm(t)
		other := secondInstance(t, b)

		// Unchanged definitions are read once.
		for range 3 {
			r := other.submit(t, form, valid()...)
			require.Equal(t, 201, r.status, r.body)
		}
		require.Equal(t, int64(1), other.store.reads.Load(), "the definition is cached")

		// A field made required elsewhere is required here.
		fields := b.api(t, "GET", "/"+form+"/fields", nil)
		require.Equal(t, 200, fields.status, fields.body)
		ids := map[string]any{}
		for _, f := range fields.json(t)["data"].([]any) {
			f := f.(map[string]any)
			ids[f["name"].(string)] = f["id"]
		}
		path := func(name string) string { return fmt.Sprintf("/%s/fields/%v", form, ids[name]) }
		r := b.api(t, "PUT", path("message"), map[string]any{"is_required": true})
		require.Equal(t, 200, r.status, r.body)
		r = other.submit(t, form, part{name: "name", content: "Ann"}, part{name: "email", content: "ann@example.test"})
		require.Equal(t, 422, r.status, r.body)
		require.Equal(t, []string{"The Message field is required."}, r.errors(t).Errors["message"])
		require.Equal(t, int64(2), other.store.reads.Load(), "read again once, when the store found it stale")

		// A file the old definition allowed and the new one does not is
		// refused, and not kept.
		r = b.api(t, "PUT", path("cv"), map[string]any{"field_config": map[string]any{"allowed_types": []any{"txt"}, "max_size": 8}})
		require.Equal(t, 200, r.status, r.body)
		r = other.submit(t, form, valid(part{name: "cv", filename: "cv.pdf", content: "%PDF-1.4 tiny"})...)
		require.Equal(t, 422, r.status, r.body)
		require.Equal(t, []string{"The CV field must be a file of type: txt."}, r.errors(t).Errors["cv"])
		require.Empty(t, b.files(t), "the refused file is deleted")

		// A notification added elsewhere is sent for submissions here.
		r = b.api(t, "POST", "/"+form+"/notifications", map[string]any{"type": "admin", "recipients": "team@example.test"})
		require.Equal(t, 201, r.status, r.body)
		r = other.submit(t, form, valid()...)
		require.Equal(t, 201, r.status, r.body)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		msgs, err := b.outbox.Wait(ctx, 1)
		require.NoError(t, err)
		require.Equal(t, []string{"team@example.test"}, msgs[0].To)

		// A form deactivated elsewhere takes no more submissions here.
		r = b.api(t, "PUT", "/"+form, map[string]any{"is_active": false})
		require.Equal(t, 200, r.status, r.body)
		r = other.submit(t, form, valid()...)
		require.Equal(t, 404, r.status, r.body)
		r = b.api(t, "PUT", "/"+form, map[string]any{"is_active": true})
		require.Equal(t, 200, r.status, r.body)
		r = other.submit(t, form, valid()...)
		require.Equal(t, 201, r.status, r.body)

		// A form deleted and made again under the same slug is the new
		// form here.
		r = b.api(t, "DELETE", "/"+form, nil)
		require.Equal(t, 204, r.status, r.body)
		r = other.submit(t, form, valid()...)
		require.Equal(t, 404, r.status, r.body)
		b.createForm(t, map[string]any{"name": "Contact"})
		b.addField(t, form, map[string]any{"type": "phone", "label": "Phone", "is_required": true})
		r = other.submit(t, form, valid()...)
		require.Equal(t, 422, r.status, r.body)
		require.Equal(t, []string{"The Phone field is required."}, r.errors(t).Errors["phone"])
		r = other.submit(t, form, part{name: "phone", content: "+44 20 7946 0000"})
		require.Equal(t, 201, r.status, r.body)
		list := b.api(t, "GET", "/"+form+"/submissions", nil)
		require.Equal(t, 200, list.status, list.body)
		require.EqualValues(t, 1, list.json(t)["meta"].(map[string]any)["total"], list.body)
	})
}

// An edit that widens what a form takes (an option added, a field made
// optional, a file type allowed, a field removed) narrows nothing the
// store's version check would catch, so the submission that uses it must
// not be refused by the cached definition: it is seen by the next
// submission on the instance that made it and on every other one.
func TestSubmitSeesEditsThatWiden(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, d store.Dialect) {
		b := setup(t, withQueue, func(o *setupOptions) { o.dialect = d })
		form := b.contactForm(t)
		other := secondInstance(t, b)
		same := func(t *testing.T, form string, parts ...part) reply { return b.submit(t, form, parts...) }
		for _, submit := range []func(*testing.T, string, ...part) reply{same, other.submit} {
			// Both instances have the definition cached.
			r := submit(t, form, valid()...)
			require.Equal(t, 201, r.status, r.body)
		}
		ids := map[string]any{}
		fields := b.api(t, "GET", "/"+form+"/fields", nil)
		require.Equal(t, 200, fields.status, fields.body)
		for _, f := range fields.json(t)["data"].([]any) {
			f := f.(map[string]any)
			ids[f["name"].(string)] = f["id"]
		}
		path := func(name string) string { return fmt.Sprintf("/%s/fields/%v", form, ids[name]) }
		before := other.store.reads.Load()

		// An option added to the select.
		r := b.api(t, "PUT", path("topic"), map[string]any{"field_config": map[string]any{"options": []any{
			map[string]any{"value": "sales", "label": "Sales"}, map[string]any{"value": "support", "label": "Support"},
			map[string]any{"value": "press", "label": "Press"}}}})
		require.Equal(t, 200, r.status, r.body)
		render := b.request(t, "GET", forms.PrefixDefault+"/"+form+"/render", "", "", nil)
		require.Contains(t, render.body, `"press"`)
		press := []part{{name: "name", content: "Ann"}, {name: "email", content: "ann@example.test"}, {name: "topic", content: "press"}}
		for _, submit := range []func(*testing.T, string, ...part) reply{same, other.submit} {
			r = submit(t, form, press...)
			require.Equal(t, 201, r.status, r.body)
		}
		require.Equal(t, before+1, other.store.reads.Load(), "the other instance read the definition again once")

		// A required field made optional.
		r = b.api(t, "PUT", path("name"), map[string]any{"is_required": false})
		require.Equal(t, 200, r.status, r.body)
		for _, submit := range []func(*testing.T, string, ...part) reply{same, other.submit} {
			r = submit(t, form, part{name: "email", content: "ann@example.test"})
			require.Equal(t, 201, r.status, r.body)
		}

		// A file type allowed: the file was refused by the cached
		// definition as it streamed, and the new one takes it.
		r = b.api(t, "PUT", path("cv"), map[string]any{"field_config": map[string]any{"allowed_types": []any{"pdf", "txt", "md"}, "max_size": 8}})
		require.Equal(t, 200, r.status, r.body)
		for _, submit := range []func(*testing.T, string, ...part) reply{same, other.submit} {
			r = submit(t, form, valid(part{name: "cv", filename: "cv.md", content: "# Ann"})...)
			require.Equal(t, 422, r.status, r.body, "the file's bytes were refused as they came: it must be sent again")
			require.Equal(t, []string{"The form changed while you were sending it: choose the CV file again."}, r.errors(t).Errors["cv"])
			r = submit(t, form, valid(part{name: "cv", filename: "cv.md", content: "# Ann"})...)
			require.Equal(t, 201, r.status, r.body)
		}

		// A required field removed.
		r = b.api(t, "PUT", path("email"), map[string]any{"is_required": true})
		require.Equal(t, 200, r.status, r.body)
		for _, submit := range []func(*testing.T, string, ...part) reply{same, other.submit} {
			r = submit(t, form, valid()...)
			require.Equal(t, 201, r.status, r.body)
		}
		r = b.api(t, "DELETE", path("email"), nil)
		require.Equal(t, 204, r.status, r.body)
		for _, submit := range []func(*testing.T, string, ...part) reply{same, other.submit} {
			r = submit(t, form, part{name: "name", content: "Ann"})
			require.Equal(t, 201, r.status, r.body)
		}
	})
}
