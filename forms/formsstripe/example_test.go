package formsstripe_test

import (
	"fmt"

	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/forms/formsstripe"
)

// Paid forms through Stripe Checkout: the payments given to the forms
// service, whose total fields with field_config.payment then take payment.
// Stripe's events settle them once link.Join joins forms to webhooks with
// the Stripe gateway registered.
func ExampleNew() {
	pay, err := formsstripe.New(formsstripe.Options{APIKey: "sk_test_example"})
	if err != nil {
		panic(err)
	}
	opts := forms.Options{Payments: pay}
	fmt.Println(opts.Payments.Provider())
	// Output: stripe
}
