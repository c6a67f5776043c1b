package bookings

import (
	"context"
	"fmt"
	"net/http"

	"github.com/groundwork-go/groundwork/internal/api"
)

// AbilityManage covers the catalog: services, providers, their links,
// hours, overrides and blackouts.
const AbilityManage = "bookings:manage"

type adminService struct {
	Offering
	DefaultProviderID  *int64 `json:"default_provider_id"`
	SlotInterval       *int   `json:"slot_interval"`
	MinAdvance         *int   `json:"min_advance_minutes"`
	MaxAdvance         *int   `json:"max_advance_minutes"`
	MaxBookingsPerSlot int    `json:"max_bookings_per_slot"`
	IsActive           bool   `json:"is_active"`
}

func toAdminService(s Offering) adminService {
	return adminService{Offering: s, DefaultProviderID: s.DefaultProviderID, SlotInterval: s.SlotInterval, MinAdvance: s.MinAdvance,
		MaxAdvance: s.MaxAdvance, MaxBookingsPerSlot: s.MaxBookingsPerSlot, IsActive: s.IsActive}
}

type adminProvider struct {
	Provider
	Email            string `json:"email"`
	Phone            string `json:"phone"`
	RoundRobinWeight int    `json:"round_robin_weight"`
	SortOrder        int    `json:"sort_order"`
	IsActive         bool   `json:"is_active"`
	ProviderRules
}

func toAdminProvider(p Provider) adminProvider {
	return adminProvider{Provider: p, Email: p.Email, Phone: p.Phone, RoundRobinWeight: p.RoundRobinWeight, SortOrder: p.SortOrder, IsActive: p.IsActive,
		ProviderRules: p.Rules}
}

func clockText(m int) string { return fmt.Sprintf("%02d:%02d", m/60, m%60) }

func dateText(d *Date) *string {
	if d == nil {
		return nil
	}
	s := d.String()
	return &s
}

type hoursJSON struct {
	ID             int64   `json:"id"`
	ProviderID     int64   `json:"provider_id"`
	DayOfWeek      int     `json:"day_of_week"`
	Start          string  `json:"start_time"`
	End            string  `json:"end_time"`
	EffectiveFrom  *string `json:"effective_from"`
	EffectiveUntil *string `json:"effective_until"`
	IsAvailable    bool    `json:"is_available"`
}

func toHours(h WeeklyHours) hoursJSON {
	return hoursJSON{ID: h.ID, ProviderID: h.ProviderID, DayOfWeek: int(h.Weekday), Start: clockText(h.Start), End: clockText(h.End),
		EffectiveFrom: dateText(h.EffectiveFrom), EffectiveUntil: dateText(h.EffectiveUntil), IsAvailable: h.IsAvailable}
}

type overrideJSON struct {
	ID         int64        `json:"id"`
	ProviderID int64        `json:"provider_id"`
	Date       string       `json:"date"`
	Type       OverrideKind `json:"type"`
	Start      *string      `json:"start_time"`
	End        *string      `json:"end_time"`
	Reason     string       `json:"reason"`
}

func toOverride(o Override) overrideJSON {
	out := overrideJSON{ID: o.ID, ProviderID: o.ProviderID, Date: o.Date.String(), Type: o.Type, Reason: o.Reason}
	if o.Start != nil && o.End != nil {
		s, e := clockText(*o.Start), clockText(*o.End)
		out.Start, out.End = &s, &e
	}
	return out
}

type blackoutJSON struct {
	ID        int64  `json:"id"`
	ServiceID *int64 `json:"service_id"`
	StartsOn  string `json:"starts_on"`
	EndsOn    string `json:"ends_on"`
	Reason    string `json:"reason"`
}

func toBlackout(b Blackout) blackoutJSON {
	return blackoutJSON{ID: b.ID, ServiceID: b.ServiceID, StartsOn: b.From.String(), EndsOn: b.To.String(), Reason: b.Reason}
}

func mapSlice[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// errNoProvider answers a {provider} that is not a positive number.
var errNoProvider = api.Errorf(http.StatusNotFound, "Provider not found.")

// providerParam reads {provider}.
func providerParam(r *http.Request) (int64, error) {
	id, ok := api.PathID(r, "provider")
	if !ok {
		return 0, errNoProvider
	}
	return id, nil
}

// decoded runs do with the request's JSON body decoded into a new In
// (for a route whose path names nothing to check first).
func decoded[In any](do func(w http.ResponseWriter, r *http.Request, in In) error) api.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var in In
		if err := api.DecodeJSON(w, r, &in, 0); err != nil {
			return err
		}
		return do(w, r, in)
	}
}

// catalog registers the routes that manage services, providers and hours,
// each behind bookings:manage.
func (h *AdminHandler) catalog(guard func(string, api.HandlerFunc) http.HandlerFunc) {
	m := func(f api.HandlerFunc) http.HandlerFunc { return guard(AbilityManage, f) }
	b := h.base
	b.Handle("/services", api.Methods{http.MethodGet: m(h.listServices), http.MethodPost: m(decoded(h.createService))})
	updateService := m(decoded(h.updateService))
	b.Handle("/services/{slug}", api.Methods{http.MethodGet: m(h.showService), http.MethodPatch: updateService, http.MethodPut: updateService})
	b.Handle("/services/{slug}/providers/{provider}", api.Methods{http.MethodPut: m(h.link), http.MethodDelete: m(h.unlink)})
	b.Handle("/providers", api.Methods{http.MethodGet: m(h.listProviders), http.MethodPost: m(decoded(h.createProvider))})
	updateProvider := m(h.updateProvider)
	b.Handle("/providers/{provider}", api.Methods{http.MethodGet: m(h.showProvider), http.MethodPatch: updateProvider, http.MethodPut: updateProvider})
	b.Handle("/providers/{provider}/feed-token", api.Methods{http.MethodPost: m(h.mintFeedToken), http.MethodDelete: m(h.revokeFeedToken)})
	svc := h.svc
	rules(h, "hours", m, func(ctx context.Context, id int64) (any, error) {
		list, err := svc.WeeklyHours(ctx, id)
		return mapSlice(list, toHours), err
	}, func(ctx context.Context, id int64, in HoursInput) (any, error) {
		v, err := svc.AddHours(ctx, id, in)
		return toHours(v), err
	}, svc.DeleteHours)
	rules(h, "overrides", m, func(ctx context.Context, id int64) (any, error) {
		list, err := svc.Overrides(ctx, id)
		return mapSlice(list, toOverride), err
	}, func(ctx context.Context, id int64, in OverrideInput) (any, error) {
		v, err := svc.AddOverride(ctx, id, in)
		return toOverride(v), err
	}, svc.DeleteOverride)
	b.Handle("/blackouts", api.Methods{http.MethodGet: m(h.listBlackouts), http.MethodPost: m(decoded(h.addBlackout))})
	b.Handle("/blackouts/{id}", api.Methods{http.MethodDelete: m(h.deleteBlackout)})
}

func (h *AdminHandler) listServices(w http.ResponseWriter, r *http.Request) error {
	list, err := h.svc.Services(r.Context())
	return api.Answer(w, http.StatusOK, mapSlice(list, toAdminService), err)
}

func (h *AdminHandler) createService(w http.ResponseWriter, r *http.Request, in OfferingInput) error {
	s, err := h.svc.CreateService(r.Context(), in)
	return api.Answer(w, http.StatusCreated, toAdminService(s), err)
}

func (h *AdminHandler) showService(w http.ResponseWriter, r *http.Request) error {
	s, err := h.svc.ServiceBySlug(r.Context(), r.PathValue("slug"))
	return api.Answer(w, http.StatusOK, toAdminService(s), err)
}

func (h *AdminHandler) updateService(w http.ResponseWriter, r *http.Request, in OfferingInput) error {
	s, err := h.svc.UpdateService(r.Context(), r.PathValue("slug"), in)
	return api.Answer(w, http.StatusOK, toAdminService(s), err)
}

func (h *AdminHandler) link(w http.ResponseWriter, r *http.Request) error {
	id, err := providerParam(r)
	if err != nil {
		return err
	}
	var in LinkInput
	if err := api.DecodeJSON(w, r, &in, 0); err != nil {
		return err
	}
	return api.Answer(w, 0, nil, h.svc.Link(r.Context(), r.PathValue("slug"), id, in))
}

func (h *AdminHandler) unlink(w http.ResponseWriter, r *http.Request) error {
	id, err := providerParam(r)
	if err != nil {
		return err
	}
	return api.Answer(w, 0, nil, h.svc.Unlink(r.Context(), r.PathValue("slug"), id))
}

func (h *AdminHandler) listProviders(w http.ResponseWriter, r *http.Request) error {
	list, err := h.svc.Providers(r.Context())
	return api.Answer(w, http.StatusOK, mapSlice(list, toAdminProvider), err)
}

func (h *AdminHandler) createProvider(w http.ResponseWriter, r *http.Request, in ProviderInput) error {
	p, err := h.svc.CreateProvider(r.Context(), in)
	return api.Answer(w, http.StatusCreated, toAdminProvider(p), err)
}

func (h *AdminHandler) showProvider(w http.ResponseWriter, r *http.Request) error {
	id, err := providerParam(r)
	if err != nil {
		return err
	}
	p, err := h.svc.Provider(r.Context(), id)
	return api.Answer(w, http.StatusOK, toAdminProvider(p), err)
}

func (h *AdminHandler) updateProvider(w http.ResponseWriter, r *http.Request) error {
	id, err := providerParam(r)
	if err != nil {
		return err
	}
	var in ProviderInput
	if err := api.DecodeJSON(w, r, &in, 0); err != nil {
		return err
	}
	p, err := h.svc.UpdateProvider(r.Context(), id, in)
	return api.Answer(w, http.StatusOK, toAdminProvider(p), err)
}

func (h *AdminHandler) mintFeedToken(w http.ResponseWriter, r *http.Request) error {
	id, err := providerParam(r)
	if err != nil {
		return err
	}
	token, err := h.svc.MintFeedToken(r.Context(), id)
	return api.Answer(w, http.StatusCreated, feedToken{Token: token}, err)
}

func (h *AdminHandler) revokeFeedToken(w http.ResponseWriter, r *http.Request) error {
	id, err := providerParam(r)
	if err != nil {
		return err
	}
	return api.Answer(w, 0, nil, h.svc.RevokeFeedToken(r.Context(), id))
}

// rules registers a provider's rules of one kind (hours, overrides): list
// them, add one from In, delete one.
func rules[In any](h *AdminHandler, path string, m func(api.HandlerFunc) http.HandlerFunc, list func(context.Context, int64) (any, error),
	add func(context.Context, int64, In) (any, error), del func(context.Context, int64, int64) error) {
	h.base.Handle("/providers/{provider}/"+path, api.Methods{
		http.MethodGet: m(func(w http.ResponseWriter, r *http.Request) error {
			id, err := providerParam(r)
			if err != nil {
				return err
			}
			if _, err := h.svc.Provider(r.Context(), id); err != nil {
				return err
			}
			v, err := list(r.Context(), id)
			return api.Answer(w, http.StatusOK, v, err)
		}),
		http.MethodPost: m(func(w http.ResponseWriter, r *http.Request) error {
			id, err := providerParam(r)
			if err != nil {
				return err
			}
			var in In
			if err := api.DecodeJSON(w, r, &in, 0); err != nil {
				return err
			}
			v, err := add(r.Context(), id, in)
			return api.Answer(w, http.StatusCreated, v, err)
		}),
	})
	h.base.Handle("/providers/{provider}/"+path+"/{id}", api.Methods{
		http.MethodDelete: m(func(w http.ResponseWriter, r *http.Request) error {
			pid, err := providerParam(r)
			if err != nil {
				return err
			}
			id, ok := api.PathID(r, "id")
			if !ok {
				return ErrNotFound
			}
			return api.Answer(w, 0, nil, del(r.Context(), pid, id))
		}),
	})
}

func (h *AdminHandler) listBlackouts(w http.ResponseWriter, r *http.Request) error {
	list, err := h.svc.Blackouts(r.Context())
	return api.Answer(w, http.StatusOK, mapSlice(list, toBlackout), err)
}

func (h *AdminHandler) addBlackout(w http.ResponseWriter, r *http.Request, in BlackoutInput) error {
	v, err := h.svc.AddBlackout(r.Context(), in)
	return api.Answer(w, http.StatusCreated, toBlackout(v), err)
}

func (h *AdminHandler) deleteBlackout(w http.ResponseWriter, r *http.Request) error {
	id, ok := api.PathID(r, "id")
	if !ok {
		return ErrNotFound
	}
	return api.Answer(w, 0, nil, h.svc.DeleteBlackout(r.Context(), id))
}

// feedToken is a provider's new feed token, shown once: the feed is
// {feed prefix}/providers/{token}.ics.
type feedToken struct {
	Token string `json:"token"`
}
