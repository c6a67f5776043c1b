package forms

import (
	"encoding/json"

	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/stripecheckout"
	"github.com/groundwork-go/groundwork/internal/web"
)

// totalPrices is what the page's script adds up: by field name, each
// option's price, or under "" a number field's price for each one.
type totalPrices struct {
	Currency string                       `json:"currency"`
	Decimals int                          `json:"decimals"`
	Prices   map[string]map[string]string `json:"prices"`
}

// totalItem is the page's item of a total field f: the total of the
// answers the page holds, and the prices for the script to follow them.
func (s *Service) totalItem(f *Field, fields []Field, values map[string][]string, sp *speaker) pageItem {
	currency := currencyOf(f)
	spec := totalPrices{Currency: currency, Decimals: stripecheckout.Decimals(currency), Prices: map[string]map[string]string{}}
	var given []Value
	for i := range fields {
		g := &fields[i]
		prices := map[string]string{}
		if p, ok := price(g.FieldConfig["price"]); ok && g.Type == TypeNumber {
			prices[""] = p.FloatString(4)
		}
		if isChoice(g.Type) && g.Type != TypeMatrix && g.Type != TypeRanking {
			list, _ := g.FieldConfig["options"].([]any)
			for _, it := range list {
				o, _ := it.(map[string]any)
				if p, ok := price(o["price"]); ok {
					prices[scalarString(o["value"])] = p.FloatString(4)
				}
			}
		}
		if len(prices) == 0 {
			continue
		}
		spec.Prices[g.Name] = prices
		if raw, ok := values[g.Name]; ok {
			v := &api.Validator{}
			if val, fine := s.checkAnswer(v, nil, g, raw, nil); fine && v.Err() == nil {
				given = append(given, val)
			}
		}
	}
	data, _ := json.Marshal(spec)
	figure := amount(totalOf(fields, given), currency) + " " + currency
	return pageItem{Kind: string(TypeTotal), Text: figure, Note: sp.say("Work out the total"), Data: string(data),
		Input: web.Field{ID: web.FieldID(f.Name), Label: f.Label, Name: ActionField, Value: actionTotal}}
}

// paymentWords is what the page says to a person back from pay's page
// (paid says the provider sent them back as paid): the thanks, and the
// page to pay on while it is still open.
func paymentWords(pay *Payment, paid bool, sp *speaker) (thanks, payURL string) {
	owed := pay.Amount + " " + pay.Currency
	switch {
	case pay.Status == paymentPaid:
		return sp.say("Thank you: your payment of %s is received.", owed), ""
	case pay.Status == paymentAwaiting && paid:
		return sp.say("Thank you: your payment of %s is being confirmed.", owed), ""
	case pay.Status == paymentAwaiting && pay.CheckoutURL != "":
		return sp.say("Your answers are kept, but the payment of %s is not made yet.", owed), pay.CheckoutURL
	}
	return sp.say("The payment of %s was not made in time: please fill the form in again.", owed), ""
}
