// Package formsstore holds types only an implementer of forms.Store
// needs, off forms' page (which is the host's): a field's new place,
// and what a listing of forms and a summary of answers ask of the store.
// The others its methods name (a form, a field, a submission) are the
// host's too and stay in forms.
package formsstore

import "time"

// FieldPlace is where a field goes: its step and sort order.
type FieldPlace struct {
	ID        int64
	StepID    *int64
	SortOrder int
}

// FormQuery selects forms.
type FormQuery struct {
	// Active, when set, keeps active (true) or inactive (false) forms.
	Active *bool
	// Tenant, when set, keeps one tenant's forms.
	Tenant        *string
	Offset, Limit int
}

// SummaryQuery asks Store.Summarize for a form's answers at a glance:
// counts per value of the fields of one choice (Choices) and per item of
// those of several (Lists), count, average, least and most of the number
// fields (Numbers), and the Latest answers of the others (Texts), over
// the accepted submissions made in [From, To). Ranks are fields kept as
// ordered lists (rankings): each item is counted at its place, under
// "item=place" (1 is first).
type SummaryQuery struct {
	FormID                                int64
	From, To                              time.Time
	Choices, Lists, Numbers, Texts, Ranks []string
	Latest                                int
}
