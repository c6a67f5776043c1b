package forms

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/internal/web"
)

// Connecting a Google Sheets notification takes an admin's browser to
// Google's consent page and back: the admin API gives a link good once
// for ten minutes (POST {form}/notifications/{notification}/connect);
// the pages' {prefix}/_google/connect begins the consent there (its state
// in a sealed cookie), and {prefix}/_google/callback, the address
// registered with Google, keeps the account's refresh token and writes
// the sheet's header row.
const (
	googleConnectPath  = "/_google/connect"
	googleCallbackPath = "/_google/callback"
)

// connectResponse is the connect route's answer.
type connectResponse struct {
	ConnectURL string `json:"connect_url"`
	ExpiresIn  int    `json:"expires_in"`
}

// connectNotification answers the link that connects a Google account to
// a Google Sheets notification.
func (h *Handler) connectNotification(w http.ResponseWriter, r *http.Request) error {
	form, err := h.form(r)
	if err != nil {
		return err
	}
	id, err := h.id(r, "notification", "Notification")
	if err != nil {
		return err
	}
	n, err := h.svc.Notification(r.Context(), form.ID, id)
	if err != nil {
		return err
	}
	switch {
	case n.Type != NotificationGoogleSheets:
		return api.Invalid("type", "Only a Google Sheets notification connects an account.")
	case h.svc.google == nil:
		return api.Invalid("type", "This server has no Google connection: give Options.GoogleClientID and GoogleClientSecret.")
	}
	pages := h.svc.pagesURL
	if pages == "" {
		pages = h.pages(r)
	}
	link := pages + googleConnectPath + "?ticket=" + url.QueryEscape(h.svc.connectTicket(form.ID, id))
	reply.WriteJSON(w, http.StatusCreated, reply.Data(connectResponse{ConnectURL: link, ExpiresIn: int(connectTicketAge.Seconds())}))
	return nil
}

// notConnected is the page of a connection that did not happen.
func notConnected(status int, why string, err error) error {
	return &web.Problem{Status: status, ErrorPage: web.ErrorPage{Heading: "Google Sheets not connected", Message: why}, Err: err}
}

// callbackURL is where Google sends the admin back to.
func (p *PageHandler) callbackURL(r *http.Request) string {
	pages := p.svc.pagesURL
	if pages == "" {
		pages = p.pages(r)
	}
	return pages + googleCallbackPath
}

// beginGoogle takes a good ticket to Google's consent page.
func (p *PageHandler) beginGoogle(w http.ResponseWriter, r *http.Request) error {
	if p.svc.google == nil {
		return notConnected(http.StatusNotFound, "This server has no Google connection.", nil)
	}
	formID, id, err := p.svc.readTicket(r.Context(), r.URL.Query().Get("ticket"))
	if errors.Is(err, errBadTicket) {
		return notConnected(http.StatusBadRequest, "This link is no longer good (it works once, for ten minutes): ask for a new one.", err)
	}
	if err != nil {
		return err
	}
	flow := p.svc.googleFlow(p.callbackURL(r))
	flow.Path = p.base.Prefix + "/_google"
	flow.Begin(w, r, fmt.Sprintf("%d.%d", formID, id))
	return nil
}

// finishGoogle keeps the account's consent on the notification and says
// so.
func (p *PageHandler) finishGoogle(w http.ResponseWriter, r *http.Request) error {
	if p.svc.google == nil {
		return notConnected(http.StatusNotFound, "This server has no Google connection.", nil)
	}
	flow := p.svc.googleFlow(p.callbackURL(r))
	flow.Path = p.base.Prefix + "/_google"
	tok, subject, err := flow.Finish(w, r)
	if err != nil {
		return notConnected(http.StatusBadRequest, "Google did not give its consent, or this answer is not to a connection begun here: "+
			"ask for a new link and try again.", err)
	}
	var formID, id int64
	if _, err := fmt.Sscanf(subject, "%d.%d", &formID, &id); err != nil {
		return notConnected(http.StatusBadRequest, "This answer is not to a connection begun here.", err)
	}
	form, n, err := p.svc.connectSheets(r.Context(), formID, id, tok)
	switch {
	case errors.Is(err, ErrNotFound):
		return notConnected(http.StatusNotFound, "The notification was deleted meanwhile.", err)
	case errors.Is(err, errNotConnected):
		return notConnected(http.StatusBadRequest, "Google gave no lasting access: try again, and allow access to Google Sheets.", err)
	case n != nil && err != nil:
		return notConnected(http.StatusBadGateway, fmt.Sprintf("The account is connected, but the sheet “%s” of the spreadsheet could not be written: "+
			"check that the account may edit it, then send a test submission.", n.Subject), err)
	case err != nil:
		return err
	}
	msg := fmt.Sprintf("Google Sheets is connected: each answer to %s is added as a row of the sheet “%s”.", strings.TrimSpace(form.Name), n.Subject)
	data := &pageData{Form: form, Closed: msg, PageURL: web.InFrame(r, r.URL.Path)}
	p.base.Render.Render(w, r, http.StatusOK, PageTemplate, &web.Page{Title: "Google Sheets connected", Data: data})
	return nil
}
