package paging_test

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/paging"
)

func TestPage(t *testing.T) {
	t.Parallel()
	base, _ := url.Parse("https://example.test/api/v1/forms?status=active&page=2")

	p := paging.NewPage([]int{16, 17, 18}, paging.PageRequest{Page: 2, PerPage: 15}, 33, base)
	b, err := json.Marshal(p)
	require.NoError(t, err)
	require.JSONEq(t, `{
		"data": [16, 17, 18],
		"meta": {"current_page": 2, "from": 16, "last_page": 3, "per_page": 15, "to": 18, "total": 33},
		"links": {
			"first": "https://example.test/api/v1/forms?page=1&status=active",
			"last": "https://example.test/api/v1/forms?page=3&status=active",
			"prev": "https://example.test/api/v1/forms?page=1&status=active",
			"next": "https://example.test/api/v1/forms?page=3&status=active"
		}}`, string(b))

	empty := paging.NewPage[int](nil, paging.PageRequest{Page: 1, PerPage: 15}, 0, base)
	b, err = json.Marshal(empty)
	require.NoError(t, err)
	require.JSONEq(t, `{
		"data": [],
		"meta": {"current_page": 1, "from": null, "last_page": 1, "per_page": 15, "to": null, "total": 0},
		"links": {"first": "https://example.test/api/v1/forms?page=1&status=active", "last": "https://example.test/api/v1/forms?page=1&status=active", "prev": null, "next": null}}`, string(b))

	// Past the end: prev points at the last page.
	past := paging.NewPage[int](nil, paging.PageRequest{Page: 9, PerPage: 15}, 20, base)
	require.Equal(t, "https://example.test/api/v1/forms?page=2&status=active", *past.Links.Prev)
	require.Nil(t, past.Links.Next)
}

func TestParsePageAndAbsoluteURL(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest("GET", "http://host.test/api/v1/forms?page=3&per_page=20", nil)
	v := &api.Validator{}
	p := paging.ParsePage(r, 0, v)
	require.NoError(t, v.Err())
	require.Equal(t, paging.PageRequest{Page: 3, PerPage: 20}, p)
	require.Equal(t, 40, p.Offset())

	p = paging.ParsePage(httptest.NewRequest("GET", "/x", nil), 0, v)
	require.NoError(t, v.Err())
	require.Equal(t, paging.PageRequest{Page: 1, PerPage: 15}, p)

	paging.ParsePage(httptest.NewRequest("GET", "/x?page=0&per_page=101", nil), 0, v)
	var ve *groundwork.ValidationError
	require.ErrorAs(t, v.Err(), &ve)
	require.Equal(t, map[string][]string{"page": {"The page field must be at least 1."}, "per_page": {"The per page field must be between 1 and 100."}}, ve.Fields())
	v = &api.Validator{}
	paging.ParsePage(httptest.NewRequest("GET", "/x?page=x", nil), 0, v)
	require.ErrorAs(t, v.Err(), &ve)
	require.Equal(t, "The page field must be an integer.", ve.Message())

	require.Equal(t, "http://host.test/api/v1/forms?page=3&per_page=20", paging.AbsoluteURL(r, nil).String())
	base, _ := url.Parse("https://public.test/prefix/")
	require.Equal(t, "https://public.test/prefix/api/v1/forms?page=3&per_page=20", paging.AbsoluteURL(r, base).String())
}
