package bookings

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

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
}

func toAdminProvider(p Provider) adminProvider {
	return adminProvider{Provider: p, Email: p.Email, Phone: p.Phone, RoundRobinWeight: p.RoundRobinWeight, SortOrder: p.SortOrder, IsActive: p.IsActive}
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
	ID         int64   `json:"id"`
	ProviderID int64   `json:"provider_id"`
	Date       string  `json:"date"`
	Type       string  `json:"type"`
	Start      *string `json:"start_time"`
	End        *string `json:"end_time"`
	Reason     string  `json:"reason"`
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

// body decodes a JSON request into dst, answering a bad one.
func (h *AdminHandler) body(w http.ResponseWriter, r *http.Request, dst any) bool {
	if err := api.DecodeJSON(w, r, dst, 0); err != nil {
		h.fail(w, r, err)
		return false
	}
	return true
}

func idParam(r *http.Request, name string) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	return id, err == nil && id > 0
}

// catalog registers the routes that manage services, providers and hours.
func (h *AdminHandler) catalog(guard func(string, http.HandlerFunc) http.HandlerFunc) {
	svc, b := h.svc, h.base
	ok := func(w http.ResponseWriter, r *http.Request, status int, v any, err error) {
		if err != nil {
			h.fail(w, r, err)
			return
		}
		if v == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		api.WriteData(w, status, v)
	}
	manage := func(f http.HandlerFunc) http.HandlerFunc { return guard(AbilityManage, f) }
	provider := func(w http.ResponseWriter, r *http.Request) (int64, bool) {
		id, found := idParam(r, "provider")
		if !found {
			h.fail(w, r, api.Errorf(http.StatusNotFound, "Provider not found."))
		}
		return id, found
	}
	b.Handle("/services", api.Methods{
		http.MethodGet: manage(func(w http.ResponseWriter, r *http.Request) {
			list, err := svc.store.ListServices(r.Context(), false)
			ok(w, r, http.StatusOK, mapSlice(list, toAdminService), err)
		}),
		http.MethodPost: manage(func(w http.ResponseWriter, r *http.Request) {
			var in ServiceInput
			if h.body(w, r, &in) {
				s, err := svc.CreateService(r.Context(), in)
				ok(w, r, http.StatusCreated, toAdminService(s), err)
			}
		}),
	})
	update := manage(func(w http.ResponseWriter, r *http.Request) {
		var in ServiceInput
		if h.body(w, r, &in) {
			s, err := svc.UpdateService(r.Context(), r.PathValue("slug"), in)
			ok(w, r, http.StatusOK, toAdminService(s), err)
		}
	})
	b.Handle("/services/{slug}", api.Methods{
		http.MethodGet: manage(func(w http.ResponseWriter, r *http.Request) {
			s, err := svc.store.ServiceBySlug(r.Context(), r.PathValue("slug"))
			ok(w, r, http.StatusOK, toAdminService(s), err)
		}),
		http.MethodPatch: update, http.MethodPut: update,
	})
	b.Handle("/services/{slug}/providers/{provider}", api.Methods{
		http.MethodPut: manage(func(w http.ResponseWriter, r *http.Request) {
			var in LinkInput
			if id, found := provider(w, r); found && h.body(w, r, &in) {
				ok(w, r, 0, nil, svc.Link(r.Context(), r.PathValue("slug"), id, in))
			}
		}),
		http.MethodDelete: manage(func(w http.ResponseWriter, r *http.Request) {
			if id, found := provider(w, r); found {
				ok(w, r, 0, nil, svc.Unlink(r.Context(), r.PathValue("slug"), id))
			}
		}),
	})
	b.Handle("/providers", api.Methods{
		http.MethodGet: manage(func(w http.ResponseWriter, r *http.Request) {
			list, err := svc.store.ListProviders(r.Context())
			ok(w, r, http.StatusOK, mapSlice(list, toAdminProvider), err)
		}),
		http.MethodPost: manage(func(w http.ResponseWriter, r *http.Request) {
			var in ProviderInput
			if h.body(w, r, &in) {
				p, err := svc.CreateProvider(r.Context(), in)
				ok(w, r, http.StatusCreated, toAdminProvider(p), err)
			}
		}),
	})
	updateProvider := manage(func(w http.ResponseWriter, r *http.Request) {
		var in ProviderInput
		if id, found := provider(w, r); found && h.body(w, r, &in) {
			p, err := svc.UpdateProvider(r.Context(), id, in)
			ok(w, r, http.StatusOK, toAdminProvider(p), err)
		}
	})
	b.Handle("/providers/{provider}", api.Methods{
		http.MethodGet: manage(func(w http.ResponseWriter, r *http.Request) {
			if id, found := provider(w, r); found {
				p, err := svc.store.Provider(r.Context(), id)
				ok(w, r, http.StatusOK, toAdminProvider(p), err)
			}
		}),
		http.MethodPatch: updateProvider, http.MethodPut: updateProvider,
	})
	b.Handle("/providers/{provider}/feed-token", api.Methods{
		http.MethodPost: manage(func(w http.ResponseWriter, r *http.Request) {
			if id, found := provider(w, r); found {
				token, err := svc.MintFeedToken(r.Context(), id)
				ok(w, r, http.StatusCreated, feedToken{Token: token}, err)
			}
		}),
		http.MethodDelete: manage(func(w http.ResponseWriter, r *http.Request) {
			if id, found := provider(w, r); found {
				if err := svc.RevokeFeedToken(r.Context(), id); err != nil {
					h.fail(w, r, err)
					return
				}
				w.WriteHeader(http.StatusNoContent)
			}
		}),
	})
	rules := func(path string, list func(context.Context, int64) (any, error), add func(http.ResponseWriter, *http.Request, int64) (any, error),
		del func(context.Context, int64, int64) error) {
		b.Handle("/providers/{provider}/"+path, api.Methods{
			http.MethodGet: manage(func(w http.ResponseWriter, r *http.Request) {
				if id, found := provider(w, r); found {
					if _, err := svc.store.Provider(r.Context(), id); err != nil {
						h.fail(w, r, err)
						return
					}
					v, err := list(r.Context(), id)
					ok(w, r, http.StatusOK, v, err)
				}
			}),
			http.MethodPost: manage(func(w http.ResponseWriter, r *http.Request) {
				if id, found := provider(w, r); found {
					v, err := add(w, r, id)
					ok(w, r, http.StatusCreated, v, err)
				}
			}),
		})
		b.Handle("/providers/{provider}/"+path+"/{id}", api.Methods{
			http.MethodDelete: manage(func(w http.ResponseWriter, r *http.Request) {
				pid, found := provider(w, r)
				id, found2 := idParam(r, "id")
				if found && found2 {
					ok(w, r, 0, nil, del(r.Context(), pid, id))
				} else if found {
					h.fail(w, r, ErrNotFound)
				}
			}),
		})
	}
	rules("hours", func(ctx context.Context, id int64) (any, error) {
		list, err := svc.store.ListWeeklyHours(ctx, id)
		return mapSlice(list, toHours), err
	}, func(w http.ResponseWriter, r *http.Request, id int64) (any, error) {
		var in HoursInput
		if err := api.DecodeJSON(w, r, &in, 0); err != nil {
			return nil, err
		}
		v, err := svc.AddHours(r.Context(), id, in)
		return toHours(v), err
	}, svc.store.DeleteWeeklyHours)
	rules("overrides", func(ctx context.Context, id int64) (any, error) {
		list, err := svc.store.ListOverrides(ctx, id)
		return mapSlice(list, toOverride), err
	}, func(w http.ResponseWriter, r *http.Request, id int64) (any, error) {
		var in OverrideInput
		if err := api.DecodeJSON(w, r, &in, 0); err != nil {
			return nil, err
		}
		v, err := svc.AddOverride(r.Context(), id, in)
		return toOverride(v), err
	}, svc.store.DeleteOverride)
	b.Handle("/blackouts", api.Methods{
		http.MethodGet: manage(func(w http.ResponseWriter, r *http.Request) {
			list, err := svc.store.ListBlackouts(r.Context())
			ok(w, r, http.StatusOK, mapSlice(list, toBlackout), err)
		}),
		http.MethodPost: manage(func(w http.ResponseWriter, r *http.Request) {
			var in BlackoutInput
			if h.body(w, r, &in) {
				v, err := svc.AddBlackout(r.Context(), in)
				ok(w, r, http.StatusCreated, toBlackout(v), err)
			}
		}),
	})
	b.Handle("/blackouts/{id}", api.Methods{
		http.MethodDelete: manage(func(w http.ResponseWriter, r *http.Request) {
			id, found := idParam(r, "id")
			if !found {
				h.fail(w, r, ErrNotFound)
				return
			}
			ok(w, r, 0, nil, svc.store.DeleteBlackout(r.Context(), id))
		}),
	})
}

// feedToken is a provider's new feed token, shown once: the feed is
// {feed prefix}/providers/{token}.ics.
type feedToken struct {
	Token string `json:"token"`
}
