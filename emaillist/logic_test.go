package emaillist_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork/emaillist"
)

func TestConditionOperators(t *testing.T) {
	t.Parallel()
	values := map[string]any{
		"name": "Grace Hopper", "blank": "   ", "empty": "", "null": nil, "yes": true, "no": false, "zero": 0.0,
		"age": 42.0, "age_text": "42", "price": "12.50", "topics": []any{"cobol", "navy", 7.0}, "none": []any{},
		"obj": map[string]any{}, "text_num": "1e3", "nan": "NaN", "inf": "Inf", "hex": "0x1A",
	}
	cases := []struct {
		field, op string
		value     any
		want      bool
	}{
		// equals / not_equals after normalisation.
		{"name", "equals", "Grace Hopper", true},
		{"name", "equals", "grace hopper", false},
		{"yes", "equals", "1", true},
		{"yes", "equals", 1.0, true},
		{"yes", "equals", true, true},
		{"no", "equals", "0", true},
		{"null", "equals", "", true},
		{"null", "equals", nil, true},
		{"missing", "equals", nil, true},
		{"age", "equals", "42", true},
		{"age_text", "equals", 42.0, true},
		{"topics", "equals", `["cobol","navy",7]`, true},
		{"name", "not_equals", "Ada", true},
		{"name", "not_equals", "Grace Hopper", false},
		// contains, over arrays too; an empty needle never holds.
		{"name", "contains", "Hop", true},
		{"name", "contains", "hop", false},
		{"name", "contains", "", false},
		{"name", "contains", nil, false},
		{"name", "not_contains", "", true},
		{"name", "not_contains", "Ada", true},
		{"topics", "contains", "navy", true},
		{"topics", "contains", "av", true},
		{"topics", "contains", 7.0, true},
		{"topics", "contains", "army", false},
		{"topics", "not_contains", "army", true},
		{"missing", "contains", "x", false},
		// starts_with / ends_with.
		{"name", "starts_with", "Grace", true},
		{"name", "starts_with", "Hopper", false},
		{"name", "ends_with", "Hopper", true},
		{"name", "ends_with", "", false},
		{"topics", "starts_with", "co", true},
		// is_empty / is_not_empty.
		{"blank", "is_empty", nil, true},
		{"empty", "is_empty", nil, true},
		{"null", "is_empty", nil, true},
		{"missing", "is_empty", nil, true},
		{"none", "is_empty", nil, true},
		{"obj", "is_empty", nil, true},
		{"zero", "is_empty", nil, false},
		{"no", "is_empty", nil, false},
		{"name", "is_not_empty", nil, true},
		{"blank", "is_not_empty", nil, false},
		// greater_than / less_than: numbers only.
		{"age", "greater_than", 41.0, true},
		{"age", "greater_than", "41.5", true},
		{"age_text", "greater_than", 42.0, false},
		{"price", "less_than", "12.6", true},
		{"price", "greater_than", "9", true /* numeric, not text, comparison */},
		{"text_num", "greater_than", 999.0, true},
		{"name", "greater_than", 1.0, false},
		{"age", "greater_than", "abc", false},
		{"null", "less_than", 1.0, false},
		{"yes", "greater_than", 0.0, false},
		{"nan", "less_than", 1.0, false},
		{"nan", "greater_than", 1.0, false},
		{"inf", "greater_than", 1.0, false},
		{"hex", "greater_than", 1.0, false},
		{"topics", "greater_than", 0.0, false},
		// Unknown or empty operators and fields.
		{"name", "matches", "Grace", false},
		{"", "equals", "", false},
		{"name", "", "Grace Hopper", false},
	}
	for _, c := range cases {
		got := emaillist.Condition{Field: c.field, Operator: emaillist.Operator(c.op), Value: c.value}.Holds(values)
		require.Equal(t, c.want, got, "%s %s %v", c.field, c.op, c.value)
	}
}

func TestMatch(t *testing.T) {
	t.Parallel()
	values := map[string]any{"a": "1", "b": "2"}
	yes := emaillist.Condition{Field: "a", Operator: "equals", Value: "1"}
	no := emaillist.Condition{Field: "b", Operator: "equals", Value: "1"}
	var nilLogic *emaillist.ConditionalLogic
	require.True(t, nilLogic.Matches(values), "no logic fires")
	require.True(t, (&emaillist.ConditionalLogic{Match: "all"}).Matches(values), "no conditions fire")
	require.True(t, (&emaillist.ConditionalLogic{Match: "all", Conditions: []emaillist.Condition{yes}}).Matches(values))
	require.False(t, (&emaillist.ConditionalLogic{Match: "all", Conditions: []emaillist.Condition{yes, no}}).Matches(values))
	require.True(t, (&emaillist.ConditionalLogic{Match: "any", Conditions: []emaillist.Condition{no, yes}}).Matches(values))
	require.True(t, (&emaillist.ConditionalLogic{Match: " ANY ", Conditions: []emaillist.Condition{no, yes}}).Matches(values), "case-insensitive")
	require.False(t, (&emaillist.ConditionalLogic{Match: "any", Conditions: []emaillist.Condition{no}}).Matches(values))
	require.False(t, (&emaillist.ConditionalLogic{Match: "whatever", Conditions: []emaillist.Condition{yes, no}}).Matches(values), "anything else is all")
}

func TestMapFields(t *testing.T) {
	t.Parallel()
	values := map[string]any{"mail": "  grace@example.com ", "first": "Grace", "company": "Navy", "count": 3.0, "nothing": nil}
	p, err := emaillist.MapFields(map[string]string{"email_address": "mail", "first_name": "first", "org": "company", "n": "count",
		"gone": "missing"}, values)
	require.NoError(t, err)
	out, _ := json.Marshal(p)
	require.JSONEq(t, `{"email_address":"grace@example.com","first_name":"Grace","fields":{"org":"Navy","n":3}}`, string(out))
	p, err = emaillist.MapFields(map[string]string{"email_address": "mail", "first_name": "nothing"}, values)
	require.NoError(t, err)
	require.Nil(t, p.FirstName, "a null first name is left out")
	require.Nil(t, p.Fields, "fields only when some")
	_, err = emaillist.MapFields(map[string]string{"first_name": "first"}, values)
	require.ErrorIs(t, err, emaillist.ErrFieldMap)
	_, err = emaillist.MapFields(map[string]string{"email_address": "nothing"}, values)
	require.ErrorIs(t, err, emaillist.ErrFieldMap)
	_, err = emaillist.MapFields(map[string]string{"email_address": "missing"}, values)
	require.ErrorIs(t, err, emaillist.ErrFieldMap)
}

// The evaluator never panics, whatever the rule and values.
func FuzzConditions(f *testing.F) {
	f.Add(`{"match":"all","conditions":[{"field":"a","operator":"contains","value":"x"}]}`, `{"a":["x",1,{"b":null}]}`)
	f.Add(`{"match":"any","conditions":[{"field":"a","operator":"greater_than","value":"1e400"}]}`, `{"a":"NaN"}`)
	f.Add(`{"conditions":[{"field":"","operator":"","value":[]}]}`, `{}`)
	f.Fuzz(func(t *testing.T, rule, vals string) {
		var logic emaillist.ConditionalLogic
		var values map[string]any
		if json.Unmarshal([]byte(rule), &logic) != nil || json.Unmarshal([]byte(vals), &values) != nil {
			return
		}
		for _, op := range append(emaillist.Operators, "unknown") {
			for i := range logic.Conditions {
				logic.Conditions[i].Operator = op
			}
			_ = logic.Matches(values)
		}
		_, _ = emaillist.MapFields(map[string]string{"email_address": "a", "x": "b"}, values)
	})
}
