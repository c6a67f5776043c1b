package link

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/forms"
)

// The person's name is the answer of a field called name (or full_name,
// your_name) wherever it stands, else of the first text field named for a
// name that is not a company's.
func TestPersonName(t *testing.T) {
	t.Parallel()
	text := func(name, value string) forms.Value {
		return forms.Value{FieldName: name, FieldType: forms.TypeText, Value: &value}
	}
	require.Equal(t, "Ann", personName([]forms.Value{text("company_name", "Acme"), text("name", "Ann")}))
	require.Equal(t, "Bo", personName([]forms.Value{text("company_name", "Acme"), text("contact_name", "Bo"), text("first_name", "B")}))
	require.Equal(t, "Cy", personName([]forms.Value{text("Full_Name", "Cy")}))
	require.Empty(t, personName([]forms.Value{text("business_name", "Acme"), {FieldName: "name", FieldType: forms.TypeEmail}}))
}
