package forms

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/riverqueue/river"
	"golang.org/x/oauth2"

	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/egress"
	"github.com/groundwork-go/groundwork/internal/oauthflow"
	"github.com/groundwork-go/groundwork/internal/outbound"
	"github.com/groundwork-go/groundwork/internal/seal"
)

// Two notification types send a submission elsewhere than to a mailbox,
// from the same queued job, with the same conditions:
//
//   - NotificationSlack posts it to a Slack incoming webhook (Recipients
//     is the webhook's address; Subject the message's heading; Message
//     an optional line above the answers): each answer a field of the
//     message, its label in bold.
//   - NotificationGoogleSheets appends it as a row to a Google Sheet
//     (Recipients is the spreadsheet's id, Subject the sheet's name,
//     "Sheet1" when empty), through the Sheets API's values.append, as
//     the Google account connected to it allows: the connection is made
//     as a Google calendar's is, by the account's consent (see
//     Handler's connect route), and its refresh token kept sealed.
const (
	sheetsScope          = "https://www.googleapis.com/auth/spreadsheets"
	sheetsBaseURLDefault = "https://sheets.googleapis.com"
	sheetDefault         = "Sheet1"
	// slackFieldMax is the longest text of a Slack message's field, and
	// slackFieldsMax the most fields one section holds (Slack's limits).
	slackFieldMax  = 2000
	slackFieldsMax = 10
	// integrationTimeout bounds one call to Slack or Google.
	integrationTimeout = 30 * time.Second
)

var spreadsheetID = regexp.MustCompile(`^[A-Za-z0-9_-]{10,200}$`)

// integrationDefaults are the outside services' subject and message when
// a notification gives none.
var integrationDefaults = map[NotificationType][2]string{
	NotificationSlack:        {"New submission: {{form_name}}", ""},
	NotificationGoogleSheets: {sheetDefault, ""},
}

// isIntegration reports whether a notification type sends to an outside
// service rather than by mail.
func isIntegration(t NotificationType) bool {
	_, ok := integrationDefaults[t]
	return ok
}

// validateIntegration checks a Slack or Google Sheets notification's
// settings.
func (s *Service) validateIntegration(v *api.Validator, n *Notification) {
	switch n.Type {
	case NotificationSlack:
		u, err := url.Parse(strings.TrimSpace(n.Recipients))
		if err != nil || u.Host == "" || (u.Scheme != "https" && (u.Scheme != "http" || !s.insecureURLs)) {
			v.Add("recipients", "The recipients field must be the https address of a Slack incoming webhook.")
		}
	case NotificationGoogleSheets:
		if !spreadsheetID.MatchString(strings.TrimSpace(n.Recipients)) {
			v.Add("recipients", "The recipients field must be a spreadsheet's id, the part of its address after /d/.")
		}
		maxChars(v, "subject", n.Subject, 100)
		if s.google == nil {
			v.Add("type", "This server has no Google connection: give Options.GoogleClientID and GoogleClientSecret.")
		}
	}
}

// secretSealer seals the secrets notifications keep (a refresh token),
// with a key of its own drawn from the FormTokenKey.
func (s *Service) secretSealer() *seal.Sealer {
	m := hmac.New(sha256.New, s.tokenKey)
	m.Write([]byte("groundwork forms: notification secrets v1"))
	sealer, _ := seal.New(m.Sum(nil))
	return sealer
}

// sendIntegration sends sub to the outside service n names. A refusal
// that trying again would not mend (a webhook gone, a sheet not shared)
// cancels the job; the rest are tried again.
func (s *Service) sendIntegration(ctx context.Context, form *Form, n *Notification, sub *Submission) error {
	var err error
	switch n.Type {
	case NotificationSlack:
		err = s.postSlack(ctx, form, n, sub)
	case NotificationGoogleSheets:
		err = s.appendRows(ctx, n, [][]string{sheetRow(sub, s.fieldsOf(ctx, form))})
	}
	if errors.Is(err, outbound.ErrNotFound) || errors.Is(err, outbound.ErrValidation) || errors.Is(err, outbound.ErrAuth) ||
		errors.Is(err, errNotConnected) {
		return river.JobCancel(fmt.Errorf("forms: send notification %d: %w", n.ID, err))
	}
	if err != nil {
		return fmt.Errorf("forms: send notification %d: %w", n.ID, err)
	}
	return nil
}

// fieldsOf is form's fields, or none when they cannot be read (the row
// then keeps the submission's own order).
func (s *Service) fieldsOf(ctx context.Context, form *Form) []Field {
	fields, err := s.store.Fields(ctx, form.ID)
	if err != nil {
		return nil
	}
	return fields
}

// client is the outbound client of an outside service at base; secrets
// are cut out of its errors and logs.
func (s *Service) client(provider, base string, secrets ...string) (*outbound.Client, error) {
	hc := s.integrations
	if hc == nil {
		hc = egress.Client(integrationTimeout, false) // no private addresses
	}
	return outbound.New(outbound.Options{Provider: provider, BaseURL: base, HTTPClient: hc, Timeout: integrationTimeout, MaxAttempts: 2,
		Logger: s.logger, Secrets: secrets})
}

// postSlack posts sub to n's incoming webhook: the heading, the line
// above, each answer as a field, and the submission's number. The
// webhook's path is its secret, kept out of errors and logs.
func (s *Service) postSlack(ctx context.Context, form *Form, n *Notification, sub *Submission) error {
	hook, err := url.Parse(strings.TrimSpace(n.Recipients))
	if err != nil {
		return fmt.Errorf("%w: its address", outbound.ErrValidation)
	}
	c, err := s.client("slack", hook.Scheme+"://"+hook.Host, hook.EscapedPath())
	if err != nil {
		return err
	}
	body, _ := json.Marshal(slackMessage(form, n, sub))
	_, err = c.Do(ctx, &outbound.Request{Method: http.MethodPost, Path: hook.EscapedPath(), Query: hook.Query(), Body: body,
		Header: http.Header{"Content-Type": {"application/json"}}})
	return err
}

// slackEscaper escapes what Slack's mrkdwn reads as markup.
var slackEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// clip is text cut to n characters, with an ellipsis when cut.
func clip(text string, n int) string {
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	return string([]rune(text)[:n-1]) + "…"
}

// slackMessage is the Block Kit message of sub: a header, the line
// above the answers, the answers in sections of ten fields, and a
// context line naming the submission.
func slackMessage(form *Form, n *Notification, sub *Submission) map[string]any {
	heading := clip(render(n.Subject, form, sub, true), 150)
	blocks := []any{map[string]any{"type": "header", "text": map[string]any{"type": "plain_text", "text": heading}}}
	if intro := strings.TrimSpace(render(n.Message, form, sub, false)); intro != "" {
		blocks = append(blocks, map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn", "text": clip(slackEscaper.Replace(intro), 3000)}})
	}
	answer := submittedAnswers(sub)
	var fields []any
	for _, v := range sub.Values {
		name := recall(v.FieldLabel, answer)
		if name == "" {
			name = v.FieldName
		}
		text := "*" + slackEscaper.Replace(name) + "*\n" + slackEscaper.Replace(v.DisplayValue)
		fields = append(fields, map[string]any{"type": "mrkdwn", "text": clip(text, slackFieldMax)})
	}
	for len(fields) > 0 {
		k := min(len(fields), slackFieldsMax)
		blocks = append(blocks, map[string]any{"type": "section", "fields": fields[:k]})
		fields = fields[k:]
	}
	blocks = append(blocks, map[string]any{"type": "context", "elements": []any{map[string]any{"type": "mrkdwn",
		"text": slackEscaper.Replace(form.Name) + " · " + sub.Number() + " · " + sub.CreatedAt.UTC().Format("2 Jan 2006 15:04 UTC")}}})
	return map[string]any{"text": heading + "\n" + render("{{all_fields}}", form, sub, false), "blocks": blocks}
}

// sheetColumns are a sheet's first two columns, before one a field.
var sheetColumns = []string{"Submitted at", "Submission"}

// sheetHeader is the header row of form's sheet: the first columns, then
// each field that takes an answer, by its label.
func sheetHeader(fields []Field) []string {
	row := append([]string(nil), sheetColumns...)
	for i := range fields {
		if !isLayout(fields[i].Type) {
			row = append(row, label(&fields[i]))
		}
	}
	return row
}

// sheetRow is sub's row: when, its number, then each field's answer as
// shown, in the header's order ("" for none).
func sheetRow(sub *Submission, fields []Field) []string {
	row := []string{sub.CreatedAt.UTC().Format(time.RFC3339), sub.Number()}
	shown := map[string]string{}
	for _, v := range sub.Values {
		shown[v.FieldName] = v.DisplayValue
	}
	if fields == nil {
		for _, v := range sub.Values {
			row = append(row, v.DisplayValue)
		}
		return row
	}
	for i := range fields {
		if !isLayout(fields[i].Type) {
			row = append(row, shown[fields[i].Name])
		}
	}
	return row
}

// errNotConnected is a Google Sheets notification no account is
// connected to.
var errNotConnected = errors.New("forms: the notification has no Google account connected")

// appendRows appends rows to n's sheet, as its connected account.
func (s *Service) appendRows(ctx context.Context, n *Notification, rows [][]string) error {
	if s.google == nil || n.Secret == "" {
		return errNotConnected
	}
	refresh, err := s.secretSealer().Open(n.Secret, notificationContext(n))
	if err != nil {
		return fmt.Errorf("%w: its token cannot be opened (another FormTokenKey?)", errNotConnected)
	}
	tctx := ctx
	if s.integrations != nil {
		tctx = context.WithValue(ctx, oauth2.HTTPClient, s.integrations)
	}
	tok, err := s.google.TokenSource(tctx, &oauth2.Token{RefreshToken: refresh}).Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
			return fmt.Errorf("%w: Google refused its token (%s)", errNotConnected, re.ErrorCode)
		}
		return fmt.Errorf("forms: google token: %w", err)
	}
	c, err := s.client("google-sheets", s.sheetsBase)
	if err != nil {
		return err
	}
	sheet := strings.ReplaceAll(n.Subject, "'", "''")
	body, _ := json.Marshal(map[string]any{"majorDimension": "ROWS", "values": rows})
	_, err = c.Do(ctx, &outbound.Request{Method: http.MethodPost,
		Path:  "/v4/spreadsheets/" + url.PathEscape(strings.TrimSpace(n.Recipients)) + "/values/" + url.PathEscape("'"+sheet+"'!A1") + ":append",
		Query: url.Values{"valueInputOption": {"RAW"}, "insertDataOption": {"INSERT_ROWS"}}, Body: body,
		Header: http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + tok.AccessToken}}})
	return err
}

// notificationContext binds a sealed secret to its notification.
func notificationContext(n *Notification) []byte {
	return fmt.Appendf(nil, "form %d notification %d", n.FormID, n.ID)
}

// googleFlow is the consent flow of a Google Sheets connection, its
// callback at redirect.
func (s *Service) googleFlow(redirect string) *oauthflow.Flow {
	cfg := *s.google
	cfg.RedirectURL = redirect
	return &oauthflow.Flow{Config: &cfg, Sealer: s.secretSealer(), Cookie: "groundwork_forms_google", Path: "/", HTTPClient: s.integrations,
		Now: s.now}
}

// connectSheets keeps tok's refresh token, sealed, on the Google Sheets
// notification id of the form, and writes the sheet's header row.
func (s *Service) connectSheets(ctx context.Context, formID, id int64, tok *oauth2.Token) (*Form, *Notification, error) {
	form, err := s.store.Form(ctx, formID, "")
	if err != nil {
		return nil, nil, err
	}
	n, err := s.notification(ctx, formID, id)
	if err != nil {
		return nil, nil, err
	}
	if n.Type != NotificationGoogleSheets || tok.RefreshToken == "" {
		return nil, nil, errNotConnected
	}
	n.Secret, n.UpdatedAt = s.secretSealer().Seal(tok.RefreshToken, notificationContext(n)), s.now()
	if err := s.store.UpdateNotification(ctx, n); err != nil {
		return nil, nil, err
	}
	fields, err := s.store.Fields(ctx, formID)
	if err != nil {
		return nil, nil, err
	}
	return form, n, s.appendRows(ctx, n, [][]string{sheetHeader(fields)})
}

// connectTicketContext signs the tickets that begin a connection, and
// connectTicketAge is how long one is good.
const (
	connectTicketContext = "groundwork forms: connect google sheets v1\x00"
	connectTicketAge     = 10 * time.Minute
)

// errBadTicket is a connection ticket forged, expired or used already.
var errBadTicket = errors.New("forms: the connection link is not good")

// connectTicket is the signed ticket of the Google Sheets notification
// id of formID: good once, for connectTicketAge, to begin the consent.
func (s *Service) connectTicket(formID, id int64) string {
	payload := fmt.Sprintf("%d.%d.%d", formID, id, s.now().Add(connectTicketAge).Unix())
	return payload + "." + base64.RawURLEncoding.EncodeToString(s.mac(connectTicketContext, payload))
}

// readTicket checks a ticket (its signature, age and first use) and
// returns the form and notification it names.
func (s *Service) readTicket(ctx context.Context, ticket string) (formID, id int64, err error) {
	i := strings.LastIndexByte(ticket, '.')
	if i < 0 {
		return 0, 0, errBadTicket
	}
	payload := ticket[:i]
	mac, derr := base64.RawURLEncoding.DecodeString(ticket[i+1:])
	var expires int64
	if derr != nil || !hmac.Equal(mac, s.mac(connectTicketContext, payload)) {
		return 0, 0, errBadTicket
	}
	if _, err := fmt.Sscanf(payload, "%d.%d.%d", &formID, &id, &expires); err != nil || !s.now().Before(time.Unix(expires, 0)) {
		return 0, 0, errBadTicket
	}
	res, err := s.tokenUses.Hit(ctx, "forms-connect:"+payload, 1, connectTicketAge+time.Minute)
	if err != nil {
		return 0, 0, fmt.Errorf("forms: count the connection link's use: %w", err)
	}
	if !res.Allowed {
		return 0, 0, errBadTicket
	}
	return formID, id, nil
}
