package groundwork_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/groundwork-go/groundwork"
)

// A service answers bad input with a *ValidationError; a caller finds it
// with errors.As and reads the messages field by field.
func ExampleValidationError() {
	v := &groundwork.ValidationError{}
	v.Add("email", "The email field must be a valid email address.")
	v.Add("name", "The name field is required.")
	var err error = fmt.Errorf("create: %w", v.Err())

	var ve *groundwork.ValidationError
	if errors.As(err, &ve) {
		fmt.Println(ve.FieldNames())
		fmt.Println(ve.Message())
		body, _ := json.Marshal(ve)
		fmt.Println(string(body))
	}
	// Output:
	// [email name]
	// The email field must be a valid email address. (and 1 more error)
	// {"message":"The email field must be a valid email address. (and 1 more error)","errors":{"email":["The email field must be a valid email address."],"name":["The name field is required."]}}
}

func ExamplePageRequest() {
	p := groundwork.PageRequest{Page: 3, PerPage: groundwork.PerPageDefault}
	fmt.Println(p.Offset())
	// Output: 30
}
