package bookings

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/groundwork-go/groundwork/bookings/slots"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/tenant"
)

// OfferingInput creates or changes a service; a nil field is left as it is
// (or takes its default on create).
type OfferingInput struct {
	Slug               *string       `json:"slug"`
	Name               *string       `json:"name"`
	Description        *string       `json:"description"`
	Duration           *int          `json:"duration"`
	BufferBefore       *int          `json:"buffer_before"`
	BufferAfter        *int          `json:"buffer_after"`
	Price              *string       `json:"price"`
	IsFree             *bool         `json:"is_free"`
	TimeZone           *string       `json:"timezone"`
	AssignmentStrategy *Assignment   `json:"assignment_strategy"`
	DefaultProviderID  *int64        `json:"default_provider_id"`
	SlotInterval       *int          `json:"slot_interval"`
	MinAdvance         *int          `json:"min_advance_minutes"`
	MaxAdvance         *int          `json:"max_advance_minutes"`
	MaxBookingsPerSlot *int          `json:"max_bookings_per_slot"`
	IntakeSchema       *IntakeSchema `json:"intake_schema"`
	IsActive           *bool         `json:"is_active"`
	// The rules (see ServiceRules). A Location of kind "" removes it.
	RequiresConfirmation *bool           `json:"requires_confirmation"`
	ConfirmWithinHours   *int            `json:"confirm_within_hours"`
	Limits               *[]Limit        `json:"limits"`
	Lengths              *[]LengthChoice `json:"lengths"`
	Location             *Location       `json:"location"`
	Currency             *string         `json:"currency"`
	// Series: a rule with max_count 0 removes it.
	Series            *SeriesRule `json:"series"`
	RequiresPayment   *bool       `json:"requires_payment"`
	RefundCutoffHours *int        `json:"refund_cutoff_hours"`
}

// ProviderInput creates or changes a provider, as OfferingInput.
type ProviderInput struct {
	Slug             *string `json:"slug"`
	Name             *string `json:"name"`
	Bio              *string `json:"bio"`
	Email            *string `json:"email"`
	Phone            *string `json:"phone"`
	TimeZone         *string `json:"timezone"`
	RoundRobinWeight *int    `json:"round_robin_weight"`
	SortOrder        *int    `json:"sort_order"`
	IsActive         *bool   `json:"is_active"`
	// Limits and Location are the provider's rules (ProviderRules); a
	// Location of kind "" removes it.
	Limits   *[]Limit  `json:"limits"`
	Location *Location `json:"location"`
}

var (
	slugPattern  = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	pricePattern = regexp.MustCompile(`^\d{1,8}(\.\d{1,2})?$`)
	fieldPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
	clockPattern = regexp.MustCompile(`^([01]\d|2[0-3]):[0-5]\d$|^24:00$`)
	nonSlug      = regexp.MustCompile(`[^a-z0-9]+`)
)

// slugify makes a slug of a name: lower case, words joined by "-".
func slugify(name string) string {
	return strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(name), "-"), "-")
}

// intake field types the validator knows.
var intakeTypes = []string{"text", "textarea", "email", "url", "number", "integer", "date", "datetime", "time", "checkbox", "boolean",
	"select", "radio", "multiselect", "checkboxes"}

func validZone(z string) bool {
	if z == "" || z == "Local" {
		return false
	}
	_, err := time.LoadLocation(z)
	return err == nil
}

func between(v *api.Validator, field string, n *int, lo, hi int) {
	if n != nil && (*n < lo || *n > hi) {
		v.Add(field, api.MsgBetween(field, lo, hi))
	}
}

func text(v *api.Validator, field string, s *string, max int, required bool) {
	switch {
	case s == nil:
		if required {
			v.Add(field, api.MsgRequired(field))
		}
	case strings.TrimSpace(*s) == "" && required:
		v.Add(field, api.MsgRequired(field))
	case utf8.RuneCountInString(*s) > max:
		v.Add(field, api.MsgMaxChars(field, max))
	}
}

func checkIntakeSchema(v *api.Validator, schema *IntakeSchema) {
	if schema == nil {
		return
	}
	seen := map[string]bool{}
	for i, f := range schema.Fields {
		at := "intake_schema.fields." + strconv.Itoa(i)
		switch {
		case !fieldPattern.MatchString(f.Name):
			v.Add(at+".name", api.MsgFormat(at+".name"))
		case seen[f.Name]:
			v.Add(at+".name", "The "+at+".name has already been taken.")
		}
		seen[f.Name] = true
		if f.Type == "" {
			f.Type = "text"
		}
		if !slices.Contains(intakeTypes, f.Type) {
			v.Add(at+".type", api.MsgSelected(at+".type"))
		}
		if slices.Contains([]string{"select", "radio", "multiselect", "checkboxes"}, f.Type) && len(f.Options) == 0 {
			v.Add(at+".options", api.MsgRequired(at+".options"))
		}
	}
}

// apply writes in over svc and checks the result.
func (s *Service) applyService(ctx context.Context, svc *Offering, in OfferingInput, creating bool) error {
	v := &api.Validator{}
	text(v, "name", in.Name, 255, creating)
	text(v, "description", in.Description, 5000, false)
	if in.Slug != nil && !slugPattern.MatchString(*in.Slug) {
		v.Add("slug", "The slug field must be lower-case letters, digits and dashes.")
	}
	if creating && in.Duration == nil {
		v.Add("duration", api.MsgRequired("duration"))
	}
	between(v, "duration", in.Duration, 1, 1440)
	between(v, "buffer_before", in.BufferBefore, 0, 1440)
	between(v, "buffer_after", in.BufferAfter, 0, 1440)
	between(v, "slot_interval", in.SlotInterval, 1, 1440)
	between(v, "min_advance_minutes", in.MinAdvance, 0, 525600)
	between(v, "max_advance_minutes", in.MaxAdvance, 0, 525600)
	between(v, "max_bookings_per_slot", in.MaxBookingsPerSlot, 1, 1000)
	if in.Price != nil && *in.Price != "" && !pricePattern.MatchString(*in.Price) {
		v.Add("price", "The price field must be a decimal number with at most two decimals.")
	}
	if in.TimeZone != nil && !validZone(*in.TimeZone) {
		v.Add("timezone", "The timezone field must be a valid timezone.")
	}
	if in.AssignmentStrategy != nil && !slices.Contains([]Assignment{AssignAny, AssignRoundRobin, AssignDefaultProvider, AssignCollective}, *in.AssignmentStrategy) {
		v.Add("assignment_strategy", api.MsgSelected("assignment_strategy"))
	}
	if in.DefaultProviderID != nil {
		if _, err := s.Provider(ctx, *in.DefaultProviderID); errors.Is(err, ErrNotFound) {
			v.Add("default_provider_id", api.MsgSelected("default_provider_id"))
		} else if err != nil {
			return err
		}
	}
	checkIntakeSchema(v, in.IntakeSchema)
	rules := mergeRules(svc.ServiceRules, in)
	checkServiceRules(v, &rules)
	if rules.RequiresPayment && !payable(*svc, in, rules.Currency) {
		v.Add("requires_payment", msgPaymentNeedsPrice)
	}
	if err := v.Err(); err != nil {
		return err
	}
	svc.ServiceRules = rules
	setService(svc, in, creating)
	if svc.Slug == "" {
		svc.Slug = slugify(svc.Name)
	}
	if svc.Slug == "" {
		return invalid("slug", api.MsgRequired("slug"))
	}
	return nil
}

// payable reports whether svc, with in written over it, has a price
// above zero in currency, as a service that takes payment must.
func payable(svc Offering, in OfferingInput, currency string) bool {
	price, free := svc.Price, svc.IsFree
	if in.Price != nil {
		p := strings.TrimSpace(*in.Price)
		price = &p
	}
	if in.IsFree != nil {
		free = *in.IsFree
	}
	return currency != "" && !free && price != nil && pricePattern.MatchString(*price) && strings.Trim(*price, "0.") != ""
}

// mergeRules is rules with in's rules written over it; a location of no
// kind, or a series of no count, removes it.
func mergeRules(rules ServiceRules, in OfferingInput) ServiceRules {
	if in.RequiresConfirmation != nil {
		rules.RequiresConfirmation = *in.RequiresConfirmation
	}
	if in.ConfirmWithinHours != nil {
		rules.ConfirmWithinHours = *in.ConfirmWithinHours
	}
	if in.Limits != nil {
		rules.Limits = *in.Limits
	}
	if in.Lengths != nil {
		rules.Lengths = *in.Lengths
	}
	if in.Location != nil {
		rules.Location = in.Location
		if in.Location.Kind == "" {
			rules.Location = nil
		}
	}
	if in.Currency != nil {
		rules.Currency = *in.Currency
	}
	if in.RequiresPayment != nil {
		rules.RequiresPayment = *in.RequiresPayment
	}
	if in.RefundCutoffHours != nil {
		rules.RefundCutoffHours = *in.RefundCutoffHours
	}
	if in.Series != nil {
		rules.Series = in.Series
		if in.Series.MaxCount == 0 {
			rules.Series = nil
		}
	}
	return rules
}

// setService writes in's checked fields over svc.
func setService(svc *Offering, in OfferingInput, creating bool) {
	set := func(dst *string, src *string) {
		if src != nil {
			*dst = strings.TrimSpace(*src)
		}
	}
	set(&svc.Name, in.Name)
	set(&svc.Description, in.Description)
	set(&svc.Slug, in.Slug)
	set(&svc.TimeZone, in.TimeZone)
	if in.AssignmentStrategy != nil {
		svc.AssignmentStrategy = *in.AssignmentStrategy
	}
	for _, p := range []struct {
		dst *int
		src *int
	}{{&svc.Duration, in.Duration}, {&svc.BufferBefore, in.BufferBefore}, {&svc.BufferAfter, in.BufferAfter}, {&svc.MaxBookingsPerSlot, in.MaxBookingsPerSlot}} {
		if p.src != nil {
			*p.dst = *p.src
		}
	}
	if in.Price != nil {
		svc.Price = nil
		if *in.Price != "" {
			price, _ := strconv.ParseFloat(*in.Price, 64)
			formatted := strconv.FormatFloat(price, 'f', 2, 64)
			svc.Price = &formatted
		}
	}
	switch {
	case in.IsFree != nil:
		svc.IsFree = *in.IsFree
	case creating || in.Price != nil:
		// Unless told otherwise, a service without a price is free and one
		// with a price is not, so the two never contradict each other.
		svc.IsFree = svc.Price == nil
	}
	if in.IsActive != nil {
		svc.IsActive = *in.IsActive
	}
	if in.DefaultProviderID != nil {
		svc.DefaultProviderID = in.DefaultProviderID
	}
	if in.SlotInterval != nil {
		svc.SlotInterval = in.SlotInterval
	}
	if in.MinAdvance != nil {
		svc.MinAdvance = in.MinAdvance
	}
	if in.MaxAdvance != nil {
		svc.MaxAdvance = in.MaxAdvance
	}
	if in.IntakeSchema != nil {
		svc.IntakeSchema = in.IntakeSchema
		svc.IntakeSchemaVersion++
	}
}

// CreateService adds a service (a *ValidationError for bad input, a
// taken slug included).
func (s *Service) CreateService(ctx context.Context, in OfferingInput) (Offering, error) {
	now := s.o.Now().UTC()
	svc := Offering{TimeZone: TimeZoneDefault, AssignmentStrategy: AssignAny, MaxBookingsPerSlot: 1, IsActive: true, CreatedAt: now, UpdatedAt: now}
	if err := s.applyService(ctx, &svc, in, true); err != nil {
		return Offering{}, err
	}
	if svc.IntakeSchemaVersion == 0 {
		svc.IntakeSchemaVersion = 1
	}
	if t, ok := tenant.Of(ctx); ok {
		svc.Tenant = t
	}
	out, err := s.store.CreateService(ctx, svc)
	if errors.Is(err, ErrSlugTaken) {
		return Offering{}, invalid("slug", api.MsgTakenBy("slug", svc.Slug, "service"))
	}
	if err != nil {
		return Offering{}, fmt.Errorf("bookings: create service: %w", err)
	}
	return out, nil
}

// UpdateService changes the service with this slug (active or not).
func (s *Service) UpdateService(ctx context.Context, slug string, in OfferingInput) (Offering, error) {
	svc, err := s.ServiceBySlug(ctx, slug)
	if err != nil {
		return Offering{}, fmt.Errorf("bookings: update service: %w", err)
	}
	if err := s.applyService(ctx, &svc, in, false); err != nil {
		return Offering{}, err
	}
	svc.UpdatedAt = s.o.Now().UTC()
	out, err := s.store.UpdateService(ctx, svc)
	if errors.Is(err, ErrSlugTaken) {
		return Offering{}, invalid("slug", api.MsgTakenBy("slug", svc.Slug, "service"))
	}
	if err != nil {
		return Offering{}, fmt.Errorf("bookings: update service: %w", err)
	}
	return out, nil
}

func (s *Service) applyProvider(p *Provider, in ProviderInput, creating bool) error {
	v := &api.Validator{}
	text(v, "name", in.Name, 255, creating)
	text(v, "bio", in.Bio, 5000, false)
	text(v, "phone", in.Phone, PhoneMaxLength, false)
	if in.Slug != nil && !slugPattern.MatchString(*in.Slug) {
		v.Add("slug", "The slug field must be lower-case letters, digits and dashes.")
	}
	if in.Email != nil && *in.Email != "" && !api.ValidEmail(*in.Email) {
		v.Add("email", api.MsgEmail("email"))
	}
	if in.TimeZone != nil && !validZone(*in.TimeZone) {
		v.Add("timezone", "The timezone field must be a valid timezone.")
	}
	between(v, "round_robin_weight", in.RoundRobinWeight, 1, 1000)
	between(v, "sort_order", in.SortOrder, -1000000, 1000000)
	rules := p.Rules
	if in.Limits != nil {
		rules.Limits = *in.Limits
	}
	if in.Location != nil {
		rules.Location = in.Location
		if in.Location.Kind == "" {
			rules.Location = nil
		}
	}
	checkLimits(v, "limits", rules.Limits)
	checkLocation(v, "location", rules.Location)
	if err := v.Err(); err != nil {
		return err
	}
	p.Rules = rules
	for _, f := range []struct {
		dst *string
		src *string
	}{{&p.Name, in.Name}, {&p.Bio, in.Bio}, {&p.Slug, in.Slug}, {&p.Email, in.Email}, {&p.Phone, in.Phone}, {&p.TimeZone, in.TimeZone}} {
		if f.src != nil {
			*f.dst = strings.TrimSpace(*f.src)
		}
	}
	if in.RoundRobinWeight != nil {
		p.RoundRobinWeight = *in.RoundRobinWeight
	}
	if in.SortOrder != nil {
		p.SortOrder = *in.SortOrder
	}
	if in.IsActive != nil {
		p.IsActive = *in.IsActive
	}
	if p.Slug == "" {
		p.Slug = slugify(p.Name)
	}
	if p.Slug == "" {
		return invalid("slug", api.MsgRequired("slug"))
	}
	return nil
}

// CreateProvider adds a provider.
func (s *Service) CreateProvider(ctx context.Context, in ProviderInput) (Provider, error) {
	now := s.o.Now().UTC()
	p := Provider{TimeZone: TimeZoneDefault, RoundRobinWeight: 1, IsActive: true, CreatedAt: now, UpdatedAt: now}
	if err := s.applyProvider(&p, in, true); err != nil {
		return Provider{}, err
	}
	if t, ok := tenant.Of(ctx); ok {
		p.Tenant = t
	}
	out, err := s.store.CreateProvider(ctx, p)
	if errors.Is(err, ErrSlugTaken) {
		return Provider{}, invalid("slug", api.MsgTakenBy("slug", p.Slug, "provider"))
	}
	if err != nil {
		return Provider{}, fmt.Errorf("bookings: create provider: %w", err)
	}
	return out, nil
}

// UpdateProvider changes a provider.
func (s *Service) UpdateProvider(ctx context.Context, id int64, in ProviderInput) (Provider, error) {
	p, err := s.Provider(ctx, id)
	if err != nil {
		return Provider{}, fmt.Errorf("bookings: update provider: %w", err)
	}
	if err := s.applyProvider(&p, in, false); err != nil {
		return Provider{}, err
	}
	p.UpdatedAt = s.o.Now().UTC()
	out, err := s.store.UpdateProvider(ctx, p)
	if errors.Is(err, ErrSlugTaken) {
		return Provider{}, invalid("slug", api.MsgTakenBy("slug", p.Slug, "provider"))
	}
	if err != nil {
		return Provider{}, fmt.Errorf("bookings: update provider: %w", err)
	}
	return out, nil
}

// LinkInput is a provider's own length and price for a service.
type LinkInput struct {
	CustomDuration *int    `json:"custom_duration"`
	CustomPrice    *string `json:"custom_price"`
}

// Link offers a service through a provider.
func (s *Service) Link(ctx context.Context, slug string, providerID int64, in LinkInput) error {
	v := &api.Validator{}
	between(v, "custom_duration", in.CustomDuration, 1, 1440)
	if in.CustomPrice != nil && !pricePattern.MatchString(*in.CustomPrice) {
		v.Add("custom_price", "The custom price field must be a decimal number with at most two decimals.")
	}
	if err := v.Err(); err != nil {
		return err
	}
	svc, err := s.ServiceBySlug(ctx, slug)
	if err == nil {
		_, err = s.Provider(ctx, providerID)
	}
	if err == nil {
		err = s.store.LinkProvider(ctx, svc.ID, providerID, in.CustomDuration, in.CustomPrice)
	}
	if err != nil {
		return fmt.Errorf("bookings: link provider: %w", err)
	}
	return nil
}

// Unlink stops offering a service through a provider.
func (s *Service) Unlink(ctx context.Context, slug string, providerID int64) error {
	svc, err := s.ServiceBySlug(ctx, slug)
	if err == nil {
		_, err = s.Provider(ctx, providerID)
	}
	if err == nil {
		err = s.store.UnlinkProvider(ctx, svc.ID, providerID)
	}
	if err != nil {
		return fmt.Errorf("bookings: unlink provider: %w", err)
	}
	return nil
}

// clock reads "HH:MM" (or "24:00") as minutes.
func clock(s string) (int, bool) {
	if !clockPattern.MatchString(s) {
		return 0, false
	}
	h, _ := strconv.Atoi(s[:2])
	m, _ := strconv.Atoi(s[3:])
	return h*60 + m, true
}

// overnight is the refusal of a window that ends at or before it starts:
// hours end on the day they start (a slot never crosses midnight), and a
// window into the next day is written as two, as how says.
func overnight(start, end int, how string) string {
	if end == start {
		return "The end time field must be after the start time."
	}
	s, e := fmt.Sprintf("%02d:%02d", start/60, start%60), fmt.Sprintf("%02d:%02d", end/60, end%60)
	return fmt.Sprintf("The end time field must be after the start time: hours end on the day they start. For %s to %s, "+how+".", s, e, s, e)
}

// HoursInput is one window of a provider's week: "09:00" to "17:00".
type HoursInput struct {
	DayOfWeek      *int    `json:"day_of_week"`
	Start          *string `json:"start_time"`
	End            *string `json:"end_time"`
	EffectiveFrom  *string `json:"effective_from"`
	EffectiveUntil *string `json:"effective_until"`
	IsAvailable    *bool   `json:"is_available"`
}

func optionalDate(v *api.Validator, field string, s *string) *Date {
	if s == nil || *s == "" {
		return nil
	}
	d, ok := slots.ParseDate(*s)
	if !ok {
		v.Add(field, api.MsgDate(field))
		return nil
	}
	return &d
}

// AddHours adds a window to a provider's week. The window must end after
// it starts (an overnight window is two: one to 24:00, one from 00:00).
func (s *Service) AddHours(ctx context.Context, providerID int64, in HoursInput) (WeeklyHours, error) {
	v := &api.Validator{}
	h := WeeklyHours{ProviderID: providerID, IsAvailable: true}
	if in.DayOfWeek == nil {
		v.Add("day_of_week", api.MsgRequired("day_of_week"))
	} else if *in.DayOfWeek < 0 || *in.DayOfWeek > 6 {
		v.Add("day_of_week", api.MsgBetween("day_of_week", 0, 6))
	} else {
		h.Weekday = time.Weekday(*in.DayOfWeek)
	}
	var ok1, ok2 bool
	h.Start, ok1 = clock(deref(in.Start))
	h.End, ok2 = clock(deref(in.End))
	if !ok1 {
		v.Add("start_time", "The start time field must be a time like 09:00.")
	}
	if !ok2 {
		v.Add("end_time", "The end time field must be a time like 17:00.")
	}
	if ok1 && ok2 && h.End <= h.Start {
		v.Add("end_time", overnight(h.Start, h.End, "add %s to 24:00 on this day and 00:00 to %s on the next"))
	}
	h.EffectiveFrom = optionalDate(v, "effective_from", in.EffectiveFrom)
	h.EffectiveUntil = optionalDate(v, "effective_until", in.EffectiveUntil)
	if h.EffectiveFrom != nil && h.EffectiveUntil != nil && h.EffectiveUntil.Before(*h.EffectiveFrom) {
		v.Add("effective_until", "The effective until field must be a date after or equal to effective from.")
	}
	if in.IsAvailable != nil {
		h.IsAvailable = *in.IsAvailable
	}
	if err := v.Err(); err != nil {
		return WeeklyHours{}, err
	}
	if _, err := s.Provider(ctx, providerID); err != nil {
		return WeeklyHours{}, fmt.Errorf("bookings: add hours: %w", err)
	}
	out, err := s.store.AddWeeklyHours(ctx, h)
	if err != nil {
		return WeeklyHours{}, fmt.Errorf("bookings: add hours: %w", err)
	}
	return out, nil
}

// OverrideInput closes a date or gives it other hours.
type OverrideInput struct {
	Date   *string       `json:"date"`
	Type   *OverrideKind `json:"type"`
	Start  *string       `json:"start_time"`
	End    *string       `json:"end_time"`
	Reason *string       `json:"reason"`
}

// AddOverride adds a date override to a provider.
func (s *Service) AddOverride(ctx context.Context, providerID int64, in OverrideInput) (Override, error) {
	v := &api.Validator{}
	o := Override{ProviderID: providerID, Type: deref(in.Type), Reason: strings.TrimSpace(deref(in.Reason))}
	if d, ok := slots.ParseDate(deref(in.Date)); ok {
		o.Date = d
	} else {
		v.Add("date", api.MsgDate("date"))
	}
	switch o.Type {
	case OverrideUnavailable:
	case OverrideCustomHours:
		if in.Start != nil || in.End != nil {
			start, ok1 := clock(deref(in.Start))
			end, ok2 := clock(deref(in.End))
			switch {
			case !ok1:
				v.Add("start_time", "The start time field must be a time like 09:00.")
			case !ok2:
				v.Add("end_time", "The end time field must be a time like 17:00.")
			case end <= start:
				v.Add("end_time", overnight(start, end, "give this date %s to 24:00 and the next date 00:00 to %s"))
			default:
				o.Start, o.End = &start, &end
			}
		}
	default:
		v.Add("type", api.MsgSelected("type"))
	}
	text(v, "reason", in.Reason, 1000, false)
	if err := v.Err(); err != nil {
		return Override{}, err
	}
	if _, err := s.Provider(ctx, providerID); err != nil {
		return Override{}, fmt.Errorf("bookings: add override: %w", err)
	}
	out, err := s.store.AddOverride(ctx, o)
	if err != nil {
		return Override{}, fmt.Errorf("bookings: add override: %w", err)
	}
	return out, nil
}

// BlackoutInput closes one service (or all) over dates.
type BlackoutInput struct {
	ServiceID *int64  `json:"service_id"`
	StartsOn  *string `json:"starts_on"`
	EndsOn    *string `json:"ends_on"`
	Reason    *string `json:"reason"`
}

// AddBlackout adds a blackout.
func (s *Service) AddBlackout(ctx context.Context, in BlackoutInput) (Blackout, error) {
	v := &api.Validator{}
	b := Blackout{ServiceID: in.ServiceID, Reason: strings.TrimSpace(deref(in.Reason))}
	var ok1, ok2 bool
	if b.From, ok1 = slots.ParseDate(deref(in.StartsOn)); !ok1 {
		v.Add("starts_on", api.MsgDate("starts_on"))
	}
	if b.To, ok2 = slots.ParseDate(deref(in.EndsOn)); !ok2 {
		v.Add("ends_on", api.MsgDate("ends_on"))
	}
	if ok1 && ok2 && b.To.Before(b.From) {
		v.Add("ends_on", "The ends on field must be a date after or equal to starts on.")
	}
	text(v, "reason", in.Reason, 1000, false)
	if in.ServiceID != nil {
		if svc, err := s.store.ServiceByID(ctx, *in.ServiceID); errors.Is(err, ErrNotFound) || err == nil && !tenant.Sees(ctx, svc.Tenant) {
			v.Add("service_id", api.MsgSelected("service_id"))
		} else if err != nil {
			return Blackout{}, err
		}
	}
	if err := v.Err(); err != nil {
		return Blackout{}, err
	}
	if t, ok := tenant.Of(ctx); ok {
		b.Tenant = t
	}
	out, err := s.store.AddBlackout(ctx, b)
	if err != nil {
		return Blackout{}, fmt.Errorf("bookings: add blackout: %w", err)
	}
	return out, nil
}

// Services returns every service, active or not, in name order: the
// tenant's when ctx acts for one (see package tenant).
func (s *Service) Services(ctx context.Context) ([]Offering, error) {
	list, err := s.store.ListServices(ctx, false)
	return seen(ctx, list, err, func(o Offering) string { return o.Tenant })
}

// ServiceBySlug returns the service with this slug, active or not;
// ErrNotFound when there is none (or it is another tenant's than the one
// ctx acts for).
func (s *Service) ServiceBySlug(ctx context.Context, slug string) (Offering, error) {
	svc, err := s.store.ServiceBySlug(ctx, slug)
	if err == nil && !tenant.Sees(ctx, svc.Tenant) {
		return Offering{}, ErrNotFound
	}
	return svc, err
}

// Providers returns every provider in sort order, then ID: the tenant's
// when ctx acts for one.
func (s *Service) Providers(ctx context.Context) ([]Provider, error) {
	list, err := s.store.ListProviders(ctx)
	return seen(ctx, list, err, func(p Provider) string { return p.Tenant })
}

// Provider returns one provider; ErrNotFound when there is none (or it is
// another tenant's than the one ctx acts for).
func (s *Service) Provider(ctx context.Context, id int64) (Provider, error) {
	p, err := s.store.Provider(ctx, id)
	if err == nil && !tenant.Sees(ctx, p.Tenant) {
		return Provider{}, ErrNotFound
	}
	return p, err
}

// WeeklyHours returns a provider's weekly hours by weekday, then start.
func (s *Service) WeeklyHours(ctx context.Context, providerID int64) ([]WeeklyHours, error) {
	if _, err := s.Provider(ctx, providerID); err != nil {
		return nil, err
	}
	return s.store.ListWeeklyHours(ctx, providerID)
}

// DeleteHours deletes one of a provider's weekly hours; ErrNotFound when
// the provider has none with this ID.
func (s *Service) DeleteHours(ctx context.Context, providerID, id int64) error {
	if _, err := s.Provider(ctx, providerID); err != nil {
		return err
	}
	return s.store.DeleteWeeklyHours(ctx, providerID, id)
}

// Overrides returns a provider's date overrides by date, then start.
func (s *Service) Overrides(ctx context.Context, providerID int64) ([]Override, error) {
	if _, err := s.Provider(ctx, providerID); err != nil {
		return nil, err
	}
	return s.store.ListOverrides(ctx, providerID)
}

// DeleteOverride deletes one of a provider's overrides; ErrNotFound when
// the provider has none with this ID.
func (s *Service) DeleteOverride(ctx context.Context, providerID, id int64) error {
	if _, err := s.Provider(ctx, providerID); err != nil {
		return err
	}
	return s.store.DeleteOverride(ctx, providerID, id)
}

// Blackouts returns every blackout by date: the tenant's when ctx acts
// for one.
func (s *Service) Blackouts(ctx context.Context) ([]Blackout, error) {
	list, err := s.store.ListBlackouts(ctx)
	return seen(ctx, list, err, func(b Blackout) string { return b.Tenant })
}

// DeleteBlackout deletes a blackout; ErrNotFound when there is none (or
// it is another tenant's than the one ctx acts for).
func (s *Service) DeleteBlackout(ctx context.Context, id int64) error {
	if _, scoped := tenant.Of(ctx); scoped {
		list, err := s.Blackouts(ctx)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(list, func(b Blackout) bool { return b.ID == id }) {
			return ErrNotFound
		}
	}
	return s.store.DeleteBlackout(ctx, id)
}

// seen keeps of list what ctx may see, tenantOf naming each one's tenant.
func seen[T any](ctx context.Context, list []T, err error, tenantOf func(T) string) ([]T, error) {
	if _, scoped := tenant.Of(ctx); !scoped || err != nil {
		return list, err
	}
	return slices.DeleteFunc(list, func(v T) bool { return !tenant.Sees(ctx, tenantOf(v)) }), nil
}

// deref is *p, or the zero value for nil.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
