package bookings

import (
	"net/http"
	"time"

	"github.com/groundwork-go/groundwork/internal/api"
)

// calendarResource is a calendar connection as the admin API answers it:
// never its secret; whether it has gone unread for a day; and, after a
// change that read it, the calendars it can read.
type calendarResource struct {
	CalendarConnection
	Stale     bool             `json:"stale"`
	Available []RemoteCalendar `json:"available_calendars,omitempty"`
}

// The keys a connection's bodies take; the rest of what the API answers
// is read-only.
var (
	calendarChoiceShape = &api.Shape{Name: "a calendar connection",
		Keys:     []string{"name", "calendars", "destination", "block_when_stale"},
		ReadOnly: []string{"id", "provider_id", "kind", "endpoint", "username", "created_at", "updated_at", "synced_at", "synced_until", "next_sync_at", "last_error", "failures", "stale", "available_calendars"}}
	calendarInputShape = &api.Shape{Name: "a calendar connection",
		Keys:     []string{"kind", "name", "url", "username", "password", "calendars", "destination", "block_when_stale"},
		ReadOnly: []string{"id", "provider_id", "endpoint", "created_at", "updated_at", "synced_at", "synced_until", "next_sync_at", "last_error", "failures", "stale", "available_calendars"}}
)

// errCalendarSyncRunning answers a sync asked for while another runs.
var errCalendarSyncRunning = api.Errorf(http.StatusConflict, "This calendar is being read just now; try again in a moment.")

// calendars registers the routes of providers' calendar connections,
// behind bookings:manage.
func (h *AdminHandler) calendars(m func(api.HandlerFunc) http.HandlerFunc) {
	b := h.base
	b.Handle("/providers/{provider}/calendars", api.Methods{http.MethodGet: m(h.listCalendars), http.MethodPost: m(h.connectCalendar)})
	b.Handle("/calendars/{id}", api.Methods{http.MethodGet: m(h.showCalendar), http.MethodPatch: m(h.chooseCalendars),
		http.MethodDelete: m(h.disconnectCalendar)})
	b.Handle("/calendars/{id}/sync", api.Methods{http.MethodPost: m(h.syncCalendar)})
	b.Handle("/providers/{provider}/calendar-page-link", api.Methods{http.MethodPost: m(h.calendarPageLink)})
}

// CalendarPageLinkTTL is how long a calendar page link the admin API
// makes works.
const CalendarPageLinkTTL = 72 * time.Hour

// calendarPageLink makes the {access} part of the provider's calendar
// page address: the page is at {calendar page prefix}/{link}.
func (h *AdminHandler) calendarPageLink(w http.ResponseWriter, r *http.Request) error {
	id, err := providerParam(r)
	if err != nil {
		return err
	}
	if _, err := h.svc.Provider(r.Context(), id); err != nil {
		return err
	}
	link, err := h.svc.CalendarsPageLink(id, CalendarPageLinkTTL)
	out := map[string]string{"link": link, "path": CalendarsPagePrefixDefault + "/" + link,
		"expires_at": utc(h.svc.o.Now().Add(CalendarPageLinkTTL))}
	return answer(w, http.StatusCreated, out, err)
}

func (h *AdminHandler) resource(c CalendarConnection, available []RemoteCalendar) calendarResource {
	return calendarResource{CalendarConnection: c, Stale: c.Stale(h.svc.o.Now()), Available: available}
}

func (h *AdminHandler) listCalendars(w http.ResponseWriter, r *http.Request) error {
	id, err := providerParam(r)
	if err != nil {
		return err
	}
	if _, err := h.svc.Provider(r.Context(), id); err != nil {
		return err
	}
	list, err := h.svc.CalendarConnections(r.Context(), id)
	return answer(w, http.StatusOK, mapSlice(list, func(c CalendarConnection) calendarResource { return h.resource(c, nil) }), err)
}

func (h *AdminHandler) connectCalendar(w http.ResponseWriter, r *http.Request) error {
	id, err := providerParam(r)
	if err != nil {
		return err
	}
	var in CalendarInput
	if err := api.DecodeShaped(w, r, &in, calendarInputShape); err != nil {
		return err
	}
	in.ProviderID = id
	c, cals, err := h.svc.ConnectCalendar(r.Context(), in)
	return answer(w, http.StatusCreated, h.resource(c, cals), err)
}

func calendarParam(r *http.Request) (int64, error) {
	id, ok := idParam(r, "id")
	if !ok {
		return 0, ErrNotFound
	}
	return id, nil
}

func (h *AdminHandler) showCalendar(w http.ResponseWriter, r *http.Request) error {
	id, err := calendarParam(r)
	if err != nil {
		return err
	}
	c, err := h.svc.CalendarConnection(r.Context(), id)
	return answer(w, http.StatusOK, h.resource(c, nil), err)
}

func (h *AdminHandler) chooseCalendars(w http.ResponseWriter, r *http.Request) error {
	id, err := calendarParam(r)
	if err != nil {
		return err
	}
	var in CalendarChoice
	if err := api.DecodeShaped(w, r, &in, calendarChoiceShape); err != nil {
		return err
	}
	c, err := h.svc.ChooseCalendars(r.Context(), id, in)
	return answer(w, http.StatusOK, h.resource(c, nil), err)
}

func (h *AdminHandler) disconnectCalendar(w http.ResponseWriter, r *http.Request) error {
	id, err := calendarParam(r)
	if err != nil {
		return err
	}
	return answer(w, 0, nil, h.svc.DisconnectCalendar(r.Context(), id))
}

// syncCalendar reads a connection now: 200 with it as read, 422 with the
// reason when it could not be read (the reason is kept on it too), 409
// while another read runs.
func (h *AdminHandler) syncCalendar(w http.ResponseWriter, r *http.Request) error {
	id, err := calendarParam(r)
	if err != nil {
		return err
	}
	if _, err := h.svc.CalendarConnection(r.Context(), id); err != nil {
		return err
	}
	ok, err := h.svc.SyncCalendar(r.Context(), id)
	switch {
	case err != nil && !ok:
		return err
	case !ok:
		return errCalendarSyncRunning
	case err != nil:
		return &api.Error{Status: http.StatusUnprocessableEntity, Message: "The calendar could not be read. " + CalendarReason(err), Err: err}
	}
	c, err := h.svc.CalendarConnection(r.Context(), id)
	return answer(w, http.StatusOK, h.resource(c, nil), err)
}
