package forms

import (
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/paging"
	"github.com/groundwork-go/groundwork/internal/reply"
)

// submissionResource is a submission as the API shows it: with its
// number, its uploads' sizes, and its IP address and user agent only when
// the handler's privacy options allow.
type submissionResource struct {
	*Submission
	SubmissionNumber string           `json:"submission_number"`
	IPAddress        *string          `json:"ip_address,omitempty"`
	UserAgent        *string          `json:"user_agent,omitempty"`
	Uploads          []uploadResource `json:"uploads"`
}

type uploadResource struct {
	*Upload
	HumanSize string `json:"human_size"`
	IsImage   bool   `json:"is_image"`
}

func (h *Handler) resource(s *Submission) submissionResource {
	res := submissionResource{Submission: s, SubmissionNumber: s.Number(), Uploads: make([]uploadResource, len(s.Uploads))}
	if h.opts.IncludeIPAddress {
		res.IPAddress = &s.IPAddress
	}
	if h.opts.IncludeUserAgent {
		res.UserAgent = &s.UserAgent
	}
	for i := range s.Uploads {
		u := &s.Uploads[i]
		res.Uploads[i] = uploadResource{Upload: u, HumanSize: u.HumanSize(), IsImage: u.IsImage()}
	}
	return res
}

// queryBool reads an optional boolean filter.
func queryBool(v *api.Validator, r *http.Request, key string) *bool {
	s := r.URL.Query().Get(key)
	if s == "" {
		return nil
	}
	b, ok := api.Bool(s)
	if !ok {
		v.Add(key, api.MsgBoolean(key))
		return nil
	}
	return &b
}

// checkSearch refuses a search longer than searchMaxLength.
func checkSearch(v *api.Validator, search string) {
	if utf8.RuneCountInString(search) > searchMaxLength {
		v.Add("search", fmt.Sprintf("The search field must not be greater than %d characters.", searchMaxLength))
	}
}

func (h *Handler) listSubmissions(w http.ResponseWriter, r *http.Request) error {
	form, err := h.form(r)
	if err != nil {
		return err
	}
	v := &api.Validator{}
	p := paging.ParsePage(r, h.opts.PerPage, v)
	q := SubmissionQuery{FormID: form.ID, IsRead: queryBool(v, r, "is_read"), IsSpam: queryBool(v, r, "is_spam"),
		IsStarred: queryBool(v, r, "is_starred"), Search: strings.TrimSpace(r.URL.Query().Get("search")), Offset: p.Offset(), Limit: p.PerPage}
	checkSearch(v, q.Search)
	if q.Payment = r.URL.Query().Get("payment"); q.Payment != "" && q.Payment != paymentAwaiting && q.Payment != paymentPaid && q.Payment != paymentUnpaid {
		v.Add("payment", api.MsgSelected("payment"))
	}
	if err := v.Err(); err != nil {
		return err
	}
	if q.Answers, err = h.svc.AnswerFilters(r.Context(), form, r.URL.Query()); err != nil {
		return err
	}
	subs, total, err := h.svc.ListSubmissions(r.Context(), q)
	if err != nil {
		return err
	}
	out := make([]submissionResource, len(subs))
	for i := range subs {
		out[i] = h.resource(&subs[i])
	}
	reply.WriteJSON(w, http.StatusOK, paging.NewPage(out, p, total, paging.AbsoluteURL(r, h.opts.BaseURL)))
	return nil
}

// submission resolves {form} and {submission}.
func (h *Handler) submission(r *http.Request) (*Submission, error) {
	form, err := h.form(r)
	if err != nil {
		return nil, err
	}
	id, err := h.id(r, "submission", "Submission")
	if err != nil {
		return nil, err
	}
	sub, err := h.svc.Submission(r.Context(), form.ID, id)
	if err != nil {
		return nil, err
	}
	return sub, nil
}

func (h *Handler) showSubmission(w http.ResponseWriter, r *http.Request) error {
	sub, err := h.submission(r)
	if err != nil {
		return err
	}
	reply.WriteData(w, http.StatusOK, h.resource(sub))
	return nil
}

func (h *Handler) updateSubmission(w http.ResponseWriter, r *http.Request) error {
	sub, err := h.submission(r)
	if err != nil {
		return err
	}
	in, err := h.input(w, r)
	if err != nil {
		return err
	}
	v := &api.Validator{}
	v.SetBool(in, "is_read", &sub.IsRead)
	v.SetBool(in, "is_starred", &sub.IsStarred)
	v.SetBool(in, "is_spam", &sub.IsSpam)
	v.SetString(in, "admin_notes", &sub.AdminNotes)
	if err := v.Err(); err != nil {
		return err
	}
	if err := h.svc.UpdateSubmission(r.Context(), sub); err != nil {
		return err
	}
	reply.WriteData(w, http.StatusOK, h.resource(sub))
	return nil
}

func (h *Handler) deleteSubmission(w http.ResponseWriter, r *http.Request) error {
	form, err := h.form(r)
	if err != nil {
		return err
	}
	id, err := h.id(r, "submission", "Submission")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteSubmission(r.Context(), form.ID, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h *Handler) bulkSubmissions(w http.ResponseWriter, r *http.Request) error {
	form, err := h.form(r)
	if err != nil {
		return err
	}
	in, err := h.input(w, r)
	if err != nil {
		return err
	}
	v := &api.Validator{}
	var action string
	v.SetString(in, "action", &action)
	ids := intItems(v, in, "ids")
	if err := v.Err(); err != nil {
		return err
	}
	n, err := h.svc.Bulk(r.Context(), form.ID, BulkAction(action), ids)
	if err != nil {
		return err
	}
	noun := "submissions"
	if n == 1 {
		noun = "submission"
	}
	reply.WriteJSON(w, http.StatusOK, map[string]any{"message": fmt.Sprintf("%d %s updated.", n, noun), "affected": n})
	return nil
}

func (h *Handler) exportSubmissions(w http.ResponseWriter, r *http.Request) error {
	form, err := h.form(r)
	if err != nil {
		return err
	}
	name := fmt.Sprintf("%s-submissions-%s.csv", form.Slug, h.svc.now().UTC().Format(time.DateOnly))
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	rc := http.NewResponseController(w)
	err = h.svc.ExportCSV(r.Context(), form, w, CSVOptions{IncludeIPAddress: h.opts.IncludeIPAddress, Flush: func() { _ = rc.Flush() }})
	if err != nil && r.Context().Err() == nil {
		// The status is out; all that is left is to log and cut the stream.
		h.base.Logger.ErrorContext(r.Context(), "forms: export failed", "form", form.Slug, "error", err)
		panic(http.ErrAbortHandler)
	}
	return nil
}

func (h *Handler) downloadUpload(w http.ResponseWriter, r *http.Request) error {
	subID, err := h.id(r, "submission", "Submission")
	if err != nil {
		return err
	}
	uploadID, err := h.id(r, "upload", "Upload")
	if err != nil {
		return err
	}
	u, body, err := h.svc.OpenUpload(r.Context(), subID, uploadID)
	if err != nil {
		return err
	}
	defer body.Close()
	hdr := w.Header()
	hdr.Set("Content-Type", u.MimeType)
	hdr.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": u.OriginalName}))
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	hdr.Set("Content-Length", strconv.FormatInt(u.Size, 10))
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, body); err != nil && r.Context().Err() == nil {
		h.base.Logger.WarnContext(r.Context(), "forms: download cut short", "upload", u.ID, "error", err)
	}
	return nil
}
