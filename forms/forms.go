package forms

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
)

// Form is a form and its display settings. JSON names are the wire names.
type Form struct {
	ID                  int64   `json:"id"`
	Name                string  `json:"name"`
	Slug                string  `json:"slug"`
	Description         string  `json:"description"`
	SubmitButtonText    string  `json:"submit_button_text"`
	SuccessMessage      string  `json:"success_message"`
	RedirectURL         *string `json:"redirect_url"`
	IsActive            bool    `json:"is_active"`
	IsMultiStep         bool    `json:"is_multi_step"`
	ShowProgressBar     bool    `json:"show_progress_bar"`
	AllowStepNavigation bool    `json:"allow_step_navigation"`
	// MinFillSeconds is how long, at least, a person takes to fill the
	// form in: one sent back sooner after its form-load token was issued
	// is kept as spam. Nil when saved means MinFillSecondsDefault; zero
	// turns the check off; at most 60.
	MinFillSeconds *int64 `json:"min_fill_seconds"`
	// MaxResponses, when set, is the most accepted submissions the form
	// takes (spam does not count); the next is refused (ErrFull), counted
	// in the submission's transaction, so racing submissions on several
	// instances never pass it.
	MaxResponses *int64 `json:"max_responses"`
	// OpensAt and ClosesAt, when set, bound when the form takes
	// submissions (ErrClosed outside them).
	OpensAt  *time.Time `json:"opens_at"`
	ClosesAt *time.Time `json:"closes_at"`
	// ClosedMessage is what a person reads instead of the form when it is
	// closed or full (what to do instead); a default when empty.
	ClosedMessage string `json:"closed_message"`
	// OnePerPerson takes one accepted submission from each signed-in
	// person (SubmitRequest.Respondent, the host's identity); without one
	// the form is ErrSignInRequired, a second is ErrResponded.
	OnePerPerson bool `json:"one_per_person"`
	// FormSettings are the settings kept together with the form (how a
	// person is known, and what came after the first ones).
	FormSettings
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// TotalSubmissions and UnreadSubmissions are counted where the API
	// shows them (lists and single reads), and zero elsewhere.
	TotalSubmissions  int `json:"total_submissions_count"`
	UnreadSubmissions int `json:"unread_submissions_count"`
	// Version is incremented by every change to the form, its fields,
	// steps or notifications. A submission validated against a cached definition
	// carries it (Submission.FormVersion), and the store refuses it with
	// ErrStale when the form has changed since.
	Version int64 `json:"-"`
	// Tenant is the key of the tenant the form belongs to (see package
	// tenant): the one the request that made it acted for. A request
	// acting for another tenant does not find it. Not on the wire.
	Tenant string `json:"-"`
}

// FormSettings are the settings of a Form the store keeps as one value:
// their JSON names are the form's own wire names.
type FormSettings struct {
	// IdentifyBy is how a form that takes one response a person
	// (OnePerPerson) knows the person: IdentifyBySignIn (the default, when
	// empty), IdentifyByEmail (an address proved by a link mailed to it)
	// or IdentifyByInvitation (a single-use link the admin API mints).
	IdentifyBy Identify `json:"identify_by"`
	// SaveAndResume lets a person save their answers so far and come
	// back to them from a resume link, good for ResumeHours
	// (ResumeHoursDefault when zero, at most ResumeHoursMax).
	SaveAndResume bool  `json:"save_and_resume"`
	ResumeHours   int64 `json:"resume_hours"`
	// Captcha asks the service's CAPTCHA Verifier (Options.Captcha)
	// about each submission before it is stored.
	Captcha bool `json:"captcha"`
	// Language is the form's own language (a BCP 47 tag; English when
	// empty); Translations hold its texts in others, by language.
	Language     string                 `json:"language"`
	Translations map[string]Translation `json:"translations"`
	// Routing, when set, sends each respondent on to book (see Routing).
	Routing *Routing `json:"routing"`
}

// Identify is how a form knows a person.
type Identify string

// Ways a form knows a person (FormSettings.IdentifyBy).
const (
	IdentifyBySignIn     Identify = "sign_in"
	IdentifyByEmail      Identify = "email"
	IdentifyByInvitation Identify = "invitation"
)

// identifyBy is form's way of knowing a person, the default filled in.
func identifyBy(form *Form) Identify {
	if form.IdentifyBy == "" {
		return IdentifyBySignIn
	}
	return form.IdentifyBy
}

// FieldType is the sort of a field: a built-in type below, or one a host
// registered.
type FieldType string

// Field types.
const (
	TypeText           FieldType = "text"
	TypeEmail          FieldType = "email"
	TypePhone          FieldType = "phone"
	TypeNumber         FieldType = "number"
	TypeURL            FieldType = "url"
	TypeTextarea       FieldType = "textarea"
	TypeHidden         FieldType = "hidden"
	TypeSelect         FieldType = "select"
	TypeRadio          FieldType = "radio"
	TypeCheckbox       FieldType = "checkbox"
	TypeCheckboxGroup  FieldType = "checkbox_group"
	TypeSelectMultiple FieldType = "select_multiple"
	TypeFile           FieldType = "file"
	TypeDate           FieldType = "date"
	TypeTime           FieldType = "time"
	TypeHeading        FieldType = "heading"
	TypeParagraph      FieldType = "paragraph"
	TypeDivider        FieldType = "divider"
	TypeHTML           FieldType = "html"
	// TypeRating is a score from 1 to field_config.scale (3 to 10, 5
	// when unset), drawn as stars or numbers (field_config.style).
	TypeRating FieldType = "rating"
	// TypeNPS is the Net Promoter question's score, 0 to 10: its summary
	// splits promoters (9, 10), passives (7, 8) and detractors (0 to 6)
	// and gives the score (promoters' share less detractors', in points).
	TypeNPS FieldType = "nps"
	// TypeDateRange is a start date and an end date, sent as two values
	// (start, end) or one "2026-12-01/2026-12-05", kept as the latter;
	// validation_rules.min_date and max_date bound both.
	TypeDateRange FieldType = "date_range"
	// TypeDateTime is a date and a time of day as the person gave it,
	// "2026-12-01T14:30" (no zone); validation_rules.min_date and
	// max_date bound its date, min_time and max_time its time of day.
	TypeDateTime FieldType = "datetime"
	// TypeMatrix asks field_config.rows (statements) one question each,
	// answered by one of field_config.options (the columns). It is sent
	// as an object of row to column ({"speed": "good"}), as inputs named
	// name.row, or as "row=column" values, and kept as a list of the
	// latter in the rows' order.
	TypeMatrix FieldType = "matrix"
	// TypeRanking puts field_config.options in order: sent as the list
	// of every option's value, first choice first, or as inputs named
	// name.option holding each option's place (1 is first); kept as the
	// ordered list.
	TypeRanking FieldType = "ranking"
	// TypeStatement is a statement with no answer: its label as a title,
	// its help text below.
	TypeStatement FieldType = "statement"
	// TypeTotal adds up the prices of the answers (options' price, a
	// number field's price times the number) in field_config.currency;
	// the server works it out and keeps it with the answers, and with
	// field_config.payment the submission is paid for (see Payments).
	TypeTotal FieldType = "total"
)

// fieldTypes are the built-in types with their default labels.
var fieldTypes = map[FieldType]string{
	TypeText: "Text", TypeEmail: "Email", TypePhone: "Phone", TypeNumber: "Number", TypeURL: "URL",
	TypeTextarea: "Message", TypeHidden: "Hidden", TypeSelect: "Select", TypeRadio: "Choice",
	TypeCheckbox: "Checkbox", TypeCheckboxGroup: "Checkboxes", TypeSelectMultiple: "Multiple choice",
	TypeFile: "File", TypeDate: "Date", TypeTime: "Time", TypeHeading: "Heading", TypeParagraph: "Paragraph",
	TypeDivider: "Divider", TypeHTML: "HTML", TypeRating: "Rating", TypeNPS: "NPS", TypeDateRange: "Date range",
	TypeDateTime: "Date and time", TypeMatrix: "Matrix", TypeRanking: "Ranking", TypeStatement: "Statement",
	TypeTotal: "Total",
}

// isLayout reports whether a field type only shapes the page: it carries
// no data and is never validated or stored.
func isLayout(fieldType FieldType) bool {
	return fieldType == TypeHeading || fieldType == TypeParagraph || fieldType == TypeDivider || fieldType == TypeHTML ||
		fieldType == TypeStatement
}

// isChoice reports whether a type picks from field_config.options.
func isChoice(fieldType FieldType) bool {
	return fieldType == TypeSelect || fieldType == TypeRadio || fieldType == TypeCheckboxGroup || fieldType == TypeSelectMultiple ||
		fieldType == TypeMatrix || fieldType == TypeRanking
}

// isList reports whether a type's answer is kept as a list: several
// choices, a matrix's row=column pairs, a ranking's order.
func isList(fieldType FieldType) bool {
	return isMulti(fieldType) || fieldType == TypeMatrix || fieldType == TypeRanking
}

// isMulti reports whether a type holds a list of values.
func isMulti(fieldType FieldType) bool {
	return fieldType == TypeCheckboxGroup || fieldType == TypeSelectMultiple
}

// Widths a field may take.
var widths = []string{"full", "half", "third", "two-thirds", "quarter", "three-quarters"}

// Field is one input (or layout element) of a form.
type Field struct {
	ID     int64  `json:"id"`
	FormID int64  `json:"form_id"`
	StepID *int64 `json:"step_id"`
	// UUID identifies the field when reordering.
	UUID string `json:"uuid"`
	// Name is the key of its value in submissions.
	Name        string    `json:"name"`
	Type        FieldType `json:"type"`
	Label       string    `json:"label"`
	Placeholder string    `json:"placeholder"`
	HelpText    string    `json:"help_text"`
	IsRequired  bool      `json:"is_required"`
	// ValidationRules narrow what the field accepts.
	ValidationRules ValidationRules `json:"validation_rules"`
	// FieldConfig is the type's settings: "options" for choices (a
	// matrix's columns, a ranking's items), "rows" for a matrix's
	// statements (a textarea's height in lines), "max_size" (KB) and
	// "allowed_types" for files, and whatever a front end keeps there.
	FieldConfig      map[string]any `json:"field_config"`
	DefaultValue     string         `json:"default_value"`
	ConditionalLogic *Logic         `json:"conditional_logic"`
	Width            string         `json:"width"`
	CSSClasses       string         `json:"css_classes"`
	SortOrder        int            `json:"sort_order"`
	CreatedAt        time.Time      `json:"created_at"`
	UpdatedAt        time.Time      `json:"updated_at"`
}

// ValidationRules are a field's optional limits. Min and Max mean length
// for text, value for numbers, item count for lists and KB for files.
type ValidationRules struct {
	Min     *float64 `json:"min,omitempty"`
	Max     *float64 `json:"max,omitempty"`
	Pattern string   `json:"pattern,omitempty"`
	MinDate string   `json:"min_date,omitempty"`
	MaxDate string   `json:"max_date,omitempty"`
	MinTime string   `json:"min_time,omitempty"`
	MaxTime string   `json:"max_time,omitempty"`
}

// Option is one choice of a select, radio, checkbox group or multi-select.
type Option struct {
	Value string `json:"value"`
	Label string `json:"label"`
	// Quota, when above zero, is how many accepted submissions may
	// choose it (a select or radio's "20 places per workshop"); the next
	// is refused at the field.
	Quota int64 `json:"quota,omitempty"`
}

// Options returns the field's choices from field_config.options: a list of
// {value, label} objects, or of plain strings used as both.
func (f *Field) Options() []Option {
	list, _ := f.FieldConfig["options"].([]any)
	return optionList(list)
}

// matrixRows are a matrix's rows (field_config.rows), read as options
// are: a string, or an object with a value and a label.
func (f *Field) matrixRows() []Option {
	if f.Type != TypeMatrix {
		return nil
	}
	list, _ := f.FieldConfig["rows"].([]any)
	return optionList(list)
}

// optionList reads a list of options: strings, or objects with a value,
// a label and a quota.
func optionList(list []any) []Option {
	out := make([]Option, 0, len(list))
	for _, it := range list {
		switch o := it.(type) {
		case string:
			out = append(out, Option{Value: o, Label: o})
		case map[string]any:
			v := scalarString(o["value"])
			l := scalarString(o["label"])
			if l == "" {
				l = v
			}
			q, _ := o["quota"].(float64)
			out = append(out, Option{Value: v, Label: l, Quota: int64(q)})
		}
	}
	return out
}

// scalarString writes a JSON scalar as text; anything else is "".
func scalarString(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	case bool:
		if t {
			return "1"
		}
		return "0"
	}
	return ""
}

// Logic is conditional logic: Action ("show"/"hide" for fields,
// "send"/"skip" for notifications) applies when all or any (Logic) of the
// rules hold.
type Logic struct {
	Action string `json:"action"`
	Logic  string `json:"logic"`
	Rules  []Rule `json:"rules"`
	// ToStepID is where a step's jump with action "go_to" goes: a later
	// step of the form (action "end" goes to the end).
	ToStepID *int64 `json:"to_step_id,omitempty"`
}

// Rule compares a submitted value with Value.
type Rule struct {
	// Field is the name or UUID of the field the rule reads.
	Field    string `json:"field"`
	Operator string `json:"operator"`
	Value    any    `json:"value"`
}

// Step is a page of a multi-step form.
type Step struct {
	ID             int64  `json:"id"`
	FormID         int64  `json:"form_id"`
	Title          string `json:"title"`
	Description    string `json:"description"`
	NextButtonText string `json:"next_button_text"`
	PrevButtonText string `json:"prev_button_text"`
	SortOrder      int    `json:"sort_order"`
	// Jumps are where a person goes after the step, the first whose
	// conditions hold on the answers so far (action "go_to" a later step,
	// or "end"); the next step when none holds. Fields on the steps a
	// person skips are neither asked nor kept.
	Jumps     []Logic   `json:"jumps"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Submission is one filled-in form.
type Submission struct {
	ID          int64  `json:"id"`
	FormID      int64  `json:"form_id"`
	PageURL     string `json:"page_url"`
	ReferrerURL string `json:"referrer_url"`
	// IPAddress and UserAgent are kept, but shown only when the handler's
	// privacy options allow.
	IPAddress  string    `json:"-"`
	UserAgent  string    `json:"-"`
	IsRead     bool      `json:"is_read"`
	IsSpam     bool      `json:"is_spam"`
	IsStarred  bool      `json:"is_starred"`
	AdminNotes string    `json:"admin_notes"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
	Values     []Value   `json:"values"`
	Uploads    []Upload  `json:"uploads"`
	// FormVersion, when not zero, is the Form.Version the submission was
	// validated against; the store stores it only if the form still has
	// that version.
	FormVersion int64 `json:"-"`
	// Quotas are the options with a quota this submission chooses: the
	// store counts each option's accepted submissions in the submission's
	// transaction and refuses this one with a *QuotaError when one is
	// taken up.
	Quotas []Quota `json:"-"`
	// Respondent, for a form that takes one response a person, is who
	// sent it: the store keeps one accepted submission a form and
	// respondent (ErrResponded for a second), apart from the submission.
	Respondent string `json:"-"`
	// Language is the language it was sent in, for its notifications;
	// not stored.
	Language string `json:"-"`
	// ResumeHash, when set, names the partial (by its token's hash) this
	// submission finishes: the store deletes it in the submission's
	// transaction.
	ResumeHash string `json:"-"`
	// Routed is where a routing form sent it to book, and what came of it
	// (nil for none).
	Routed *Routed `json:"routed,omitempty"`
	// Payment is what a submission of a paid form owes and how it
	// stands (nil for one that owes nothing); the store writes it with
	// SetPayment, not CreateSubmission.
	Payment *Payment `json:"payment,omitempty"`
	// Visit is where the visit the submission was sent in came from, as
	// the site's analytics counted it (groundwork.VisitOf, read when it is
	// sent); nil when the analytics had not seen the visitor.
	Visit *groundwork.Visit `json:"visit,omitempty"`
	// Limit, when not zero, is the most accepted (not spam) submissions
	// the form takes: the store counts them in the submission's
	// transaction, the form's row locked, and refuses this one with
	// ErrFull when they are already as many.
	Limit int64 `json:"-"`
}

// Number is the submission's number: "FORM-<year>-<id>", the id padded
// to five digits. It is derived, never stored.
func (s *Submission) Number() string {
	return fmt.Sprintf("FORM-%d-%05d", s.CreatedAt.Year(), s.ID)
}

// Answers are s's values by field name: text, a list of texts for a
// field of several choices, nil for none.
func (s *Submission) Answers() map[string]any {
	out := make(map[string]any, len(s.Values))
	for _, v := range s.Values {
		switch {
		case v.ValueArray != nil:
			list := make([]any, len(v.ValueArray))
			for i, item := range v.ValueArray {
				list[i] = item
			}
			out[v.FieldName] = list
		case v.Value != nil:
			out[v.FieldName] = *v.Value
		default:
			out[v.FieldName] = nil
		}
	}
	return out
}

// Value is one field's answer in a submission. Field name, label and type
// are copied, so the answer still reads after the field changes or goes.
type Value struct {
	ID           int64     `json:"id"`
	SubmissionID int64     `json:"submission_id"`
	FieldID      *int64    `json:"field_id"`
	FieldName    string    `json:"field_name"`
	FieldLabel   string    `json:"field_label"`
	FieldType    FieldType `json:"field_type"`
	Value        *string   `json:"value"`
	ValueArray   []string  `json:"value_array"`
	// DisplayValue is the value as a person reads it: lists joined with
	// ", ", a file as its original name.
	DisplayValue string    `json:"display_value"`
	UploadID     *int64    `json:"upload_id"`
	CreatedAt    time.Time `json:"created_at"`
}

// Upload is a file received with a submission.
type Upload struct {
	ID           int64 `json:"id"`
	SubmissionID int64 `json:"submission_id"`
	// FormID is the form of the submission, where the store read it
	// (Store.Upload).
	FormID  int64  `json:"-"`
	FieldID *int64 `json:"field_id"`
	// FieldName links the upload to its value before either has an ID.
	FieldName    string    `json:"-"`
	OriginalName string    `json:"original_name"`
	StoredName   string    `json:"-"`
	Key          string    `json:"-"` // where the BlobStore keeps it
	MimeType     string    `json:"mime_type"`
	Size         int64     `json:"size"`
	CreatedAt    time.Time `json:"created_at"`
}

// HumanSize is the size for people: "1.5 MB".
func (u *Upload) HumanSize() string {
	const unit = 1024
	if u.Size < unit {
		return fmt.Sprintf("%d B", u.Size)
	}
	div, exp := int64(unit), 0
	for n := u.Size / unit; n >= unit; n /= unit {
		div *= unit
		exp++
	}
	s := fmt.Sprintf("%.1f", float64(u.Size)/float64(div))
	return strings.TrimSuffix(s, ".0") + " " + string("KMGTPE"[exp]) + "B"
}

// IsImage reports whether the file is an image.
func (u *Upload) IsImage() bool { return strings.HasPrefix(u.MimeType, "image/") }

// NotificationType is whom a notification is for.
type NotificationType string

// Notification types.
const (
	NotificationAdmin         NotificationType = "admin"
	NotificationAutoresponder NotificationType = "autoresponder"
	NotificationCustom        NotificationType = "custom"
	// NotificationSlack posts each submission to a Slack incoming
	// webhook, NotificationGoogleSheets appends it to a Google Sheet
	// (see Options.GoogleClientID).
	NotificationSlack        NotificationType = "slack"
	NotificationGoogleSheets NotificationType = "google_sheets"
)

// Notification is an email sent for each accepted submission, or a
// message to Slack, or a row of a Google Sheet.
type Notification struct {
	ID     int64            `json:"id"`
	FormID int64            `json:"form_id"`
	Type   NotificationType `json:"type"`
	// Subject and Message may hold placeholders: {{form_name}},
	// {{all_fields}}, {{<field name>}}.
	Subject string `json:"subject"`
	// Recipients are comma-separated addresses, and {{field:<name>}} for
	// an address the submitter gave.
	Recipients       string `json:"recipients"`
	Message          string `json:"message"`
	IsEnabled        bool   `json:"is_enabled"`
	ConditionalLogic *Logic `json:"conditional_logic"`
	// Connected, for a Google Sheets notification, says an account's
	// consent was given; Secret keeps its refresh token, sealed, never
	// shown.
	Connected bool      `json:"connected"`
	Secret    string    `json:"-"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Quota is an option with a quota a submission chooses.
type Quota struct {
	Field, Value, Label string
	Limit               int64
}

// QuotaError is a submission refused because an option it chose has all
// its places taken.
type QuotaError struct{ Quota Quota }

// Error says which option of which field is taken up.
func (e *QuotaError) Error() string {
	return "forms: the option " + e.Quota.Value + " of " + e.Quota.Field + " has no places left"
}
