package reporting

import (
	"errors"
	"net/http"
	"strings"

	"github.com/groundwork-go/groundwork/internal/api"
)

var hostsShape = &api.Shape{Name: "a site's addresses", Keys: []string{"hosts"}}

// siteHostsBody is the hosts routes' answer and what PUT takes.
type siteHostsBody struct {
	Hosts []string `json:"hosts"`
}

// hostRoutes adds the routes of the site's hosts (the addresses whose
// pages count for the site of the request's tenant):
//
//	GET /analytics-hosts  the hosts                          (AbilityView)
//	PUT /analytics-hosts  replace them → 200, 409 when taken (AbilityManage)
func (h *Handler) hostRoutes(b *api.Base) {
	b.Handle("/analytics-hosts", api.Methods{http.MethodGet: b.Func(h.listHosts), http.MethodPut: b.Func(h.setHosts)})
}

// hostsOf is the first-party analytics that keep hosts, or the error to
// answer when r may not do what ability allows or none are kept.
func (h *Handler) hostsOf(r *http.Request, ability string) (*Analytics, error) {
	forbidden := "You may not view these reports."
	if ability == AbilityManage {
		forbidden = "You may not change the site's addresses."
	}
	if err := h.allow(r, analyticsFamily, ability, forbidden); err != nil {
		return nil, err
	}
	a, ok := h.svc.o.Analytics.(*Analytics)
	if !ok {
		return nil, hostsError(errNoHosts)
	}
	return a, nil
}

func hostsError(err error) error {
	switch {
	case errors.Is(err, errBadHosts):
		return reportError(http.StatusUnprocessableEntity, "bad_hosts", strings.TrimPrefix(err.Error(), errBadHosts.Error()+": "), err)
	case errors.Is(err, errNoHosts):
		return reportError(http.StatusNotImplemented, "base_not_installed", "The analytics source keeps no addresses of sites.", err)
	}
	return reportError(http.StatusBadGateway, "reporting_error", "The site's addresses could not be read or changed. Try again in a moment.", err)
}

// takenMessage says which hosts another site has.
func takenMessage(taken []string) string {
	if len(taken) == 1 {
		return taken[0] + " is another site's address; nothing was changed."
	}
	return strings.Join(taken, ", ") + " are another site's addresses; nothing was changed."
}

func (h *Handler) listHosts(w http.ResponseWriter, r *http.Request) error {
	a, err := h.hostsOf(r, AbilityView)
	if err != nil {
		return err
	}
	hosts, err := a.siteHosts(r.Context())
	if err != nil {
		return hostsError(err)
	}
	return writeData(w, http.StatusOK, siteHostsBody{Hosts: hosts})
}

func (h *Handler) setHosts(w http.ResponseWriter, r *http.Request) error {
	a, err := h.hostsOf(r, AbilityManage)
	if err != nil {
		return err
	}
	var in siteHostsBody
	if err := api.DecodeShaped(w, r, &in, hostsShape); err != nil {
		return err
	}
	if in.Hosts == nil {
		return reportError(http.StatusUnprocessableEntity, "bad_hosts", "Give the site's addresses as {\"hosts\": [\"shop.example.com\"]} ([] for none).", nil)
	}
	kept, taken, err := a.setSiteHosts(r.Context(), in.Hosts)
	switch {
	case err != nil:
		return hostsError(err)
	case len(taken) > 0:
		return reportError(http.StatusConflict, "host_taken", takenMessage(taken), nil)
	}
	if kept == nil {
		kept = []string{}
	}
	return writeData(w, http.StatusOK, siteHostsBody{Hosts: kept})
}
