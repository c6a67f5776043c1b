package reporting

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/reply"
)

// AbilityManage is what a bearer token needs to make and remove goals;
// CapabilityManage what a signed-in user needs.
const (
	AbilityManage    = "reporting:manage"
	CapabilityManage = "manage_reporting"
)

var goalShape = &api.Shape{Name: "a goal", Keys: []string{"name", "page", "event", "property", "value", "owner"},
	ReadOnly: []string{"id", "created_at"}}

// goalRoutes adds the goal routes:
//
//	GET    /analytics-goals       the goals                (AbilityView)
//	POST   /analytics-goals       make one → 201           (AbilityManage)
//	DELETE /analytics-goals/{id}  remove one and its counts (AbilityManage)
func (h *Handler) goalRoutes(b *api.Base) {
	b.Handle("/analytics-goals", api.Methods{http.MethodGet: b.Func(h.listGoals), http.MethodPost: b.Func(h.addGoal)})
	b.Handle("/analytics-goals/{id}", api.Methods{http.MethodDelete: b.Func(h.deleteGoal)})
}

// allow is nil when r may do what ability allows, else the 401 (with
// fam's words) or the 403 (saying forbidden) to answer.
func (h *Handler) allow(r *http.Request, fam family, ability, forbidden string) error {
	switch h.auth.AuthorizeRequest(r, ability, nil) {
	case groundwork.Unauthenticated:
		return reportError(http.StatusUnauthorized, "unauthenticated", fam.signIn, nil)
	case groundwork.Forbidden:
		return reportError(http.StatusForbidden, "forbidden", forbidden, nil)
	}
	return nil
}

// goals is the source's goal keeping, or the error to answer.
func (h *Handler) goals(r *http.Request, ability string) (GoalStore, error) {
	forbidden := "You may not view these reports."
	if ability == AbilityManage {
		forbidden = "You may not change the goals."
	}
	if err := h.allow(r, analyticsFamily, ability, forbidden); err != nil {
		return nil, err
	}
	gs, ok := h.svc.o.Analytics.(GoalStore)
	if !ok {
		return nil, reportError(http.StatusNotImplemented, "base_not_installed", "The analytics source keeps no goals.", ErrNoGoals)
	}
	return gs, nil
}

func goalError(err error) error {
	switch {
	case errors.Is(err, ErrBadGoal):
		msg := strings.TrimPrefix(err.Error(), ErrBadGoal.Error()+": ")
		return reportError(http.StatusUnprocessableEntity, "bad_goal", msg, err)
	case errors.Is(err, ErrGoalNotFound):
		return reportError(http.StatusNotFound, "not_found", "There is no such goal.", err)
	case errors.Is(err, ErrNoGoals):
		return reportError(http.StatusNotImplemented, "base_not_installed", "The analytics source keeps no goals.", err)
	}
	return reportError(http.StatusBadGateway, "reporting_error", "The goals could not be read or changed. Try again in a moment.", err)
}

// writeData answers v as {"data": v}, as every resource is answered.
func writeData(w http.ResponseWriter, status int, v any) error {
	reply.WriteData(w, status, v)
	return nil
}

func (h *Handler) listGoals(w http.ResponseWriter, r *http.Request) error {
	gs, err := h.goals(r, AbilityView)
	if err != nil {
		return err
	}
	list, err := gs.Goals(r.Context())
	if err != nil {
		return goalError(err)
	}
	if list == nil {
		list = []Goal{}
	}
	return writeData(w, http.StatusOK, list)
}

func (h *Handler) addGoal(w http.ResponseWriter, r *http.Request) error {
	gs, err := h.goals(r, AbilityManage)
	if err != nil {
		return err
	}
	var in Goal
	if err := api.DecodeShaped(w, r, &in, goalShape); err != nil {
		return err
	}
	g, err := gs.AddGoal(r.Context(), in)
	if err != nil {
		return goalError(err)
	}
	return writeData(w, http.StatusCreated, g)
}

func (h *Handler) deleteGoal(w http.ResponseWriter, r *http.Request) error {
	gs, err := h.goals(r, AbilityManage)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return goalError(ErrGoalNotFound)
	}
	if err := gs.DeleteGoal(r.Context(), id); err != nil {
		return goalError(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

var sharedLinkShape = &api.Shape{Name: "a shared link", Keys: []string{"name", "password"},
	ReadOnly: []string{"id", "has_password", "created_at", "revoked_at", "token", "path"}}

// sharedLinkRoutes adds, with HandlerOptions.SharedLinks:
//
//	GET    /analytics-shared-links       the links, newest first   (AbilityManage)
//	POST   /analytics-shared-links       make one → 201 with its token, shown once
//	DELETE /analytics-shared-links/{id}  revoke one → 204
func (h *Handler) sharedLinkRoutes(b *api.Base) {
	b.Handle("/analytics-shared-links", api.Methods{http.MethodGet: b.Func(h.listSharedLinks), http.MethodPost: b.Func(h.makeSharedLink)})
	b.Handle("/analytics-shared-links/{id}", api.Methods{http.MethodDelete: b.Func(h.revokeSharedLink)})
}

func (h *Handler) sharedLinks(r *http.Request) error {
	return h.allow(r, analyticsFamily, AbilityManage, "You may not share the reports.")
}

func sharedLinkError(err error) error {
	switch {
	case errors.Is(err, ErrBadSharedLink):
		return reportError(http.StatusUnprocessableEntity, "bad_shared_link", strings.TrimPrefix(err.Error(), ErrBadSharedLink.Error()+": "), err)
	case errors.Is(err, ErrSharedLinkNotFound):
		return reportError(http.StatusNotFound, "not_found", "There is no such shared link.", err)
	}
	return reportError(http.StatusBadGateway, "reporting_error", "The shared links could not be read or changed. Try again in a moment.", err)
}

func (h *Handler) listSharedLinks(w http.ResponseWriter, r *http.Request) error {
	if err := h.sharedLinks(r); err != nil {
		return err
	}
	list, err := h.o.SharedLinks.SharedLinks(r.Context())
	if err != nil {
		return sharedLinkError(err)
	}
	if list == nil {
		list = []SharedLink{}
	}
	return writeData(w, http.StatusOK, list)
}

func (h *Handler) makeSharedLink(w http.ResponseWriter, r *http.Request) error {
	if err := h.sharedLinks(r); err != nil {
		return err
	}
	var in struct {
		Name     string `json:"name"`
		Password string `json:"password"`
	}
	if err := api.DecodeShaped(w, r, &in, sharedLinkShape); err != nil {
		return err
	}
	l, err := MakeSharedLink(r.Context(), h.o.SharedLinks, in.Name, in.Password, h.o.SharedPath)
	if err != nil {
		return sharedLinkError(err)
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeData(w, http.StatusCreated, l)
}

func (h *Handler) revokeSharedLink(w http.ResponseWriter, r *http.Request) error {
	if err := h.sharedLinks(r); err != nil {
		return err
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return sharedLinkError(ErrSharedLinkNotFound)
	}
	if err := h.o.SharedLinks.RevokeSharedLink(r.Context(), id); err != nil {
		return sharedLinkError(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

var emailReportShape = &api.Shape{Name: "an email report", Keys: []string{"email", "period"},
	ReadOnly: []string{"id", "last_sent", "created_at"}}

// emailReportRoutes adds, with HandlerOptions.EmailReports:
//
//	GET    /analytics-email-reports       who gets which report (AbilityManage)
//	POST   /analytics-email-reports       send one to an address → 201
//	DELETE /analytics-email-reports/{id}  stop one → 204
func (h *Handler) emailReportRoutes(b *api.Base) {
	b.Handle("/analytics-email-reports", api.Methods{http.MethodGet: b.Func(h.listEmailReports), http.MethodPost: b.Func(h.addEmailReport)})
	b.Handle("/analytics-email-reports/{id}", api.Methods{http.MethodDelete: b.Func(h.deleteEmailReport)})
}

func (h *Handler) emailReports(r *http.Request) error {
	return h.allow(r, analyticsFamily, AbilityManage, "You may not change who gets the reports.")
}

func emailReportError(err error) error {
	switch {
	case errors.Is(err, ErrBadEmailReport):
		return reportError(http.StatusUnprocessableEntity, "bad_email_report", strings.TrimPrefix(err.Error(), ErrBadEmailReport.Error()+": "), err)
	case errors.Is(err, ErrEmailReportNotFound):
		return reportError(http.StatusNotFound, "not_found", "There is no such email report.", err)
	}
	return reportError(http.StatusBadGateway, "reporting_error", "The email reports could not be read or changed. Try again in a moment.", err)
}

func (h *Handler) listEmailReports(w http.ResponseWriter, r *http.Request) error {
	if err := h.emailReports(r); err != nil {
		return err
	}
	list, err := h.o.EmailReports.o.Store.EmailReports(r.Context())
	if err != nil {
		return emailReportError(err)
	}
	if list == nil {
		list = []EmailReport{}
	}
	return writeData(w, http.StatusOK, list)
}

func (h *Handler) addEmailReport(w http.ResponseWriter, r *http.Request) error {
	if err := h.emailReports(r); err != nil {
		return err
	}
	var in struct {
		Email  string       `json:"email"`
		Period ReportPeriod `json:"period"`
	}
	if err := api.DecodeShaped(w, r, &in, emailReportShape); err != nil {
		return err
	}
	rep, err := h.o.EmailReports.Add(r.Context(), in.Email, in.Period)
	if err != nil {
		return emailReportError(err)
	}
	return writeData(w, http.StatusCreated, rep)
}

func (h *Handler) deleteEmailReport(w http.ResponseWriter, r *http.Request) error {
	if err := h.emailReports(r); err != nil {
		return err
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return emailReportError(ErrEmailReportNotFound)
	}
	if err := h.o.EmailReports.o.Store.DeleteEmailReport(r.Context(), id); err != nil {
		return emailReportError(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
