package forms

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/riverqueue/river"

	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/mail"
)

// notificationDefaults are each type's subject and message when the
// notification gives none.
var notificationDefaults = map[NotificationType][2]string{
	NotificationAdmin:         {"New submission: {{form_name}}", "A new submission to {{form_name}}:\n\n{{all_fields}}"},
	NotificationAutoresponder: {"Thank you for contacting us", "Thank you for your submission to {{form_name}}. We will be in touch.\n\n{{all_fields}}"},
	NotificationCustom:        {"Form submission: {{form_name}}", "{{all_fields}}"},
}

var fieldRecipient = regexp.MustCompile(`^\{\{\s*field:([a-zA-Z][a-zA-Z0-9_]*)\s*\}\}$`)

// Notifications returns a form's notifications.
func (s *Service) Notifications(ctx context.Context, formID int64) ([]Notification, error) {
	list, err := s.notifications(ctx, formID)
	if err != nil {
		return nil, fmt.Errorf("forms: notifications: %w", err)
	}
	return list, nil
}

// Notification returns one notification of a form.
func (s *Service) Notification(ctx context.Context, formID, id int64) (*Notification, error) {
	n, err := s.notification(ctx, formID, id)
	if err != nil {
		return nil, fmt.Errorf("forms: notification: %w", wrapNotFound(err, "Notification"))
	}
	return n, nil
}

// notifications are the form's notifications as stored, each saying
// whether an account is connected to it.
func (s *Service) notifications(ctx context.Context, formID int64) ([]Notification, error) {
	list, err := s.store.Notifications(ctx, formID)
	for i := range list {
		list[i].Connected = list[i].Secret != ""
	}
	return list, err
}

// notification is one of the form's notifications (a form has a few),
// or ErrNotFound.
func (s *Service) notification(ctx context.Context, formID, id int64) (*Notification, error) {
	list, err := s.notifications(ctx, formID)
	if err != nil {
		return nil, err
	}
	for i := range list {
		if list[i].ID == id {
			return &list[i], nil
		}
	}
	return nil, ErrNotFound
}

// validateNotification checks n and fills the defaults of its type: the
// subject and message, admin recipients from Options.AdminRecipients, and
// an autoresponder's recipient from the form's first email field.
func (s *Service) validateNotification(ctx context.Context, n *Notification) (*api.Validator, error) {
	v := &api.Validator{}
	n.Type = NotificationType(strings.TrimSpace(string(n.Type)))
	defaults, ok := notificationDefaults[n.Type]
	if !ok {
		defaults, ok = integrationDefaults[n.Type]
	}
	switch {
	case n.Type == "":
		v.Add("type", api.MsgRequired("type"))
	case !ok:
		v.Add("type", api.MsgSelected("type"))
	}
	if strings.TrimSpace(n.Subject) == "" {
		n.Subject = defaults[0]
	}
	if strings.TrimSpace(n.Message) == "" {
		n.Message = defaults[1]
	}
	maxChars(v, "subject", n.Subject, 500)
	maxChars(v, "message", n.Message, 20_000)
	fields, err := s.store.Fields(ctx, n.FormID)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(n.Recipients) == "" {
		switch n.Type {
		case NotificationAdmin:
			n.Recipients = s.adminTo
		case NotificationAutoresponder:
			if i := slices.IndexFunc(fields, func(f Field) bool { return f.Type == TypeEmail }); i >= 0 {
				n.Recipients = "{{field:" + fields[i].Name + "}}"
			}
		}
	}
	maxChars(v, "recipients", n.Recipients, 1000)
	switch {
	case strings.TrimSpace(n.Recipients) == "" && ok:
		v.Add("recipients", api.MsgRequired("recipients"))
	case isIntegration(n.Type):
		s.validateIntegration(v, n)
		validateLogic(v, "conditional_logic", n.ConditionalLogic, "send", "skip")
		return v, nil
	}
	for _, r := range splitRecipients(n.Recipients) {
		if m := fieldRecipient.FindStringSubmatch(r); m != nil {
			if !slices.ContainsFunc(fields, func(f Field) bool { return f.Name == m[1] }) {
				v.Add("recipients", fmt.Sprintf("The recipients field names %s, which is no field of this form.", r))
			}
			continue
		}
		if !validEmail(r) {
			v.Add("recipients", fmt.Sprintf("The recipients field must list email addresses or {{field:<name>}}; %q is neither.", r))
		}
	}
	validateLogic(v, "conditional_logic", n.ConditionalLogic, "send", "skip")
	return v, nil
}

func splitRecipients(s string) []string {
	var out []string
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// CreateNotification validates and stores a notification.
func (s *Service) CreateNotification(ctx context.Context, n *Notification) error {
	v, err := s.validateNotification(ctx, n)
	if err != nil {
		return fmt.Errorf("forms: create notification: %w", err)
	}
	if !v.Empty() {
		return v.Err()
	}
	now := s.now()
	n.CreatedAt, n.UpdatedAt = now, now
	if err := s.store.CreateNotification(ctx, n); err != nil {
		return fmt.Errorf("forms: create notification: %w", err)
	}
	return nil
}

// UpdateNotification validates and saves a notification.
func (s *Service) UpdateNotification(ctx context.Context, n *Notification) error {
	v, err := s.validateNotification(ctx, n)
	if err != nil {
		return fmt.Errorf("forms: update notification: %w", err)
	}
	if !v.Empty() {
		return v.Err()
	}
	n.UpdatedAt = s.now()
	if err := s.store.UpdateNotification(ctx, n); err != nil {
		return fmt.Errorf("forms: update notification: %w", wrapNotFound(err, "Notification"))
	}
	return nil
}

// DeleteNotification deletes a notification.
func (s *Service) DeleteNotification(ctx context.Context, formID, id int64) error {
	if err := s.store.DeleteNotification(ctx, formID, id); err != nil {
		return fmt.Errorf("forms: delete notification: %w", wrapNotFound(err, "Notification"))
	}
	return nil
}

// sends reports whether an enabled notification goes out for these
// answers: logic "send" sends when its condition holds, "skip" skips then.
func (n *Notification) sends(a answers, names map[string]string) bool {
	if !n.IsEnabled {
		return false
	}
	if n.ConditionalLogic == nil || len(n.ConditionalLogic.Rules) == 0 {
		return true
	}
	holds := n.ConditionalLogic.holds(a, names)
	if n.ConditionalLogic.Action == "skip" {
		return !holds
	}
	return holds
}

// notificationArgs is the job that sends one notification for one
// submission.
type notificationArgs struct {
	FormID         int64 `json:"form_id"`
	NotificationID int64 `json:"notification_id"`
	SubmissionID   int64 `json:"submission_id"`
	// Lang is the language the submission was sent in, when not the
	// form's own: the notification's translation is sent, where it has
	// one.
	Lang string `json:"lang,omitempty"`
}

// Kind implements river.JobArgs.
func (notificationArgs) Kind() string { return "forms_notification" }

// InsertOpts gives the job notificationAttempts tries.
func (notificationArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: notificationAttempts}
}

// queueNotifications queues a job per notification that goes out, inside
// tx when there is one.
func (s *Service) queueNotifications(ctx context.Context, tx *sql.Tx, list []Notification, event SubmissionEvent, a answers, names map[string]string) error {
	sub := event.Submission
	for i := range list {
		n := &list[i]
		if !n.sends(a, names) {
			continue
		}
		args := notificationArgs{FormID: sub.FormID, NotificationID: n.ID, SubmissionID: sub.ID}
		if _, translated := event.Form.Translations[sub.Language]; translated {
			args.Lang = sub.Language
		}
		if err := s.enqueuer.EnqueueTx(ctx, tx, args, nil); err != nil {
			return fmt.Errorf("queue notification %d: %w", n.ID, err)
		}
	}
	return nil
}

var placeholder = regexp.MustCompile(`\{\{\s*([a-zA-Z0-9_:]+)\s*\}\}`)

// render fills {{form_name}}, {{all_fields}} ("Label: value" lines) and
// {{<field name>}}; unknown placeholders stay as written. oneLine keeps
// the result on one line, for subjects.
func render(text string, form *Form, sub *Submission, oneLine bool) string {
	byName := make(map[string]string, len(sub.Values))
	var all strings.Builder
	for _, v := range sub.Values {
		byName[v.FieldName] = v.DisplayValue
	}
	answer := submittedAnswers(sub)
	for _, v := range sub.Values {
		if all.Len() > 0 {
			all.WriteByte('\n')
		}
		name := recall(v.FieldLabel, answer)
		if name == "" {
			name = v.FieldName
		}
		fmt.Fprintf(&all, "%s: %s", name, v.DisplayValue)
	}
	out := placeholder.ReplaceAllStringFunc(text, func(m string) string {
		key := placeholder.FindStringSubmatch(m)[1]
		switch key {
		case "form_name":
			return form.Name
		case "all_fields":
			return all.String()
		case "submission_number":
			return sub.Number()
		}
		if v, ok := byName[key]; ok {
			return v
		}
		return m
	})
	if oneLine {
		out = strings.Join(strings.Fields(out), " ")
	}
	return out
}

// recipients resolves a notification's recipients: listed addresses, and
// the answers of {{field:<name>}} fields that are valid addresses.
func recipients(n *Notification, sub *Submission) []string {
	var out []string
	for _, r := range splitRecipients(n.Recipients) {
		if m := fieldRecipient.FindStringSubmatch(r); m != nil {
			for _, v := range sub.Values {
				if v.FieldName == m[1] && v.Value != nil && validEmail(*v.Value) {
					out = append(out, *v.Value)
				}
			}
			continue
		}
		if validEmail(r) {
			out = append(out, r)
		}
	}
	return slices.Compact(out)
}

// SendNotification sends one notification for one submission; the
// notification job calls it. A notification or submission deleted in the
// meantime, a disabled notification, or no recipient, sends nothing and
// is not an error.
func (s *Service) SendNotification(ctx context.Context, args notificationArgs) error {
	form, err := s.store.Form(ctx, args.FormID, "")
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("forms: send notification: %w", err)
	}
	n, err := s.notification(ctx, args.FormID, args.NotificationID)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("forms: send notification: %w", err)
	}
	sub, err := s.store.Submission(ctx, args.FormID, args.SubmissionID)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("forms: send notification: %w", err)
	}
	if !n.IsEnabled || sub.IsSpam {
		return nil
	}
	if isIntegration(n.Type) {
		return s.sendIntegration(ctx, form, n, sub)
	}
	if s.mailer == nil {
		return errors.New("forms: send notification: no mailer")
	}
	if t, ok := form.Translations[args.Lang].Notifications[strconv.FormatInt(n.ID, 10)]; ok {
		n.Subject, n.Message = or(t.Subject, n.Subject), or(t.Message, n.Message)
	}
	to := recipients(n, sub)
	if len(to) == 0 {
		s.logger.WarnContext(ctx, "forms: notification has no recipient", "form", form.Slug, "notification", n.ID, "submission", sub.ID)
		return nil
	}
	msg := mail.Message{From: s.mailFrom, To: to, Subject: render(n.Subject, form, sub, true), Text: render(n.Message, form, sub, false),
		Headers: map[string]string{"X-Groundwork-Form": form.Slug, "X-Groundwork-Submission": sub.Number()}}
	if err := s.mailer.Send(ctx, msg); err != nil {
		if errors.Is(err, mail.ErrInvalidMessage) {
			return river.JobCancel(fmt.Errorf("forms: send notification %d: %w", n.ID, err))
		}
		return fmt.Errorf("forms: send notification %d: %w", n.ID, err)
	}
	return nil
}
