package web

import "testing"

func TestVoice(t *testing.T) {
	name := Field{Type: "text", Label: "Name", Autocomplete: "name"}
	email := Field{Type: "email", Label: "Email address", Autocomplete: "email"}
	yours := Field{Type: "text", Label: "Your name"}
	token := Field{Type: "text", Label: "Token name"}
	topic := Field{Type: TypeSelect, Label: "Topic"}
	api := Field{Type: "text", Label: "API key"}
	for _, c := range []struct {
		f        Field
		msg, say string
	}{
		{name, "The name field is required.", "Enter your name"},
		{yours, "The Your name field is required.", "Enter your name"},
		{token, "The name field is required.", "Enter a token name"},
		{api, "The key field is required.", "Enter an API key"},
		{topic, "The topic field is required.", "Select a topic"},
		{email, "The email field must be a valid email address.", "Enter an email address in the correct format, like name@example.com"},
		{email, "The email has already been taken.", "That email address is already in use"},
		{name, "The name field must not be greater than 255 characters.", "Name must be 255 characters or fewer"},
		{Field{Label: "Password", Type: "password", Autocomplete: "new-password"}, "The password field must be at least 8 characters.", "Password must be 8 characters or more"},
		{Field{Label: "Guests", Type: "number"}, "The guests field must be at least 1.", "Guests must be 1 or more"},
		{name, "Something the API never says.", "Something the API never says."},
	} {
		if got := Voice(c.f, c.msg); got != c.say {
			t.Errorf("Voice(%q, %q) = %q, want %q", c.f.Label, c.msg, got, c.say)
		}
	}
}
