package main

import (
	"context"
	"log"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/reporting"
	"github.com/groundwork-go/groundwork/webhooks"
)

// seed makes, once, what the site offers: a contact form, a consultation
// bookable on weekdays, the subscription that sends every event to the
// receiver, and an API token for the forms, bookings, webhooks and
// reports APIs, printed once.
func (s *site) seed(ctx context.Context) error {
	if _, err := s.forms.Service.Form(ctx, "contact"); err == nil {
		return nil // seeded on an earlier run
	}
	form := &forms.Form{Name: "Contact", IsActive: true}
	err := s.forms.Service.CreateForm(ctx, form)
	if err == nil {
		err = s.forms.Service.CreateField(ctx, &forms.Field{FormID: form.ID, Type: forms.TypeEmail, Label: "Email", IsRequired: true})
	}
	name, slug, minutes, zone, who, whoSlug := "Consultation", "consultation", 30, "UTC", "Sam", "sam"
	b := s.bookings.Service
	if err == nil {
		_, err = b.CreateService(ctx, bookings.OfferingInput{Name: &name, Slug: &slug, Duration: &minutes, TimeZone: &zone})
	}
	var p bookings.Provider
	if err == nil {
		p, err = b.CreateProvider(ctx, bookings.ProviderInput{Name: &who, Slug: &whoSlug, TimeZone: &zone})
	}
	if err == nil {
		err = b.Link(ctx, slug, p.ID, bookings.LinkInput{})
	}
	from, to := "09:00", "17:00"
	for day := 1; day <= 5 && err == nil; day++ {
		_, err = b.AddHours(ctx, p.ID, bookings.HoursInput{DayOfWeek: &day, Start: &from, End: &to})
	}
	hook, secret, url := "receiver", receiverSecret, s.env.Origin()+"/hooks/in"
	if err == nil {
		_, err = s.webhooks.Service.CreateSubscription(ctx, webhooks.SubscriptionInput{Name: &hook, URL: &url, Events: []string{"*"}, Secret: &secret})
	}
	if err == nil {
		s.token, _, err = s.auth.Service.CreateToken(ctx, auth.NewToken{Name: "site",
			Abilities: []string{"forms:*", "bookings:*", "webhookSubscription.*", reporting.AbilityView}})
		log.Printf("API token (shown once): %s", s.token)
	}
	return err
}
