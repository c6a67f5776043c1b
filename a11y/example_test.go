package a11y_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/groundwork-go/groundwork/a11y"
)

func ExampleGetContrastColor() {
	fmt.Println(a11y.GetContrastColor("#3b82f6"))
	fmt.Println(a11y.GetContrastColor("slate-900"))
	fmt.Println(a11y.CSSVarBlackOrWhite("hsl(210, 50%, 40%)"))
	fmt.Println(a11y.GenerateAccessibleTextColor("#3b82f6", true))
	// Output:
	// #000000
	// #FFFFFF
	// white
	// #000074
}

func ExampleContrastRatio() {
	ratio, err := a11y.ContrastRatio("#767676", "#FFFFFF")
	fmt.Println(ratio, err)
	fmt.Println(a11y.CheckContrastColor("#777777", "#ffffff"))
	fmt.Println(a11y.CheckContrast("#777777", "#ffffff", a11y.AALarge))
	// Output:
	// 4.542224959605253 <nil>
	// false
	// true
}

// A threshold hook relaxes or tightens the check. It runs inside every
// contrast check of the service it is registered on.
func ExampleService_OnContrastThreshold() {
	s, _ := a11y.NewService(nil)
	s.OnContrastThreshold(func(threshold float64, level a11y.Level) float64 {
		if level == a11y.AA {
			return 7 // hold normal text to AAA
		}
		return threshold
	})
	fmt.Println(s.CheckContrastColor("#1d4ed8", "#ffffff")) // 6.70:1
	fmt.Println(s.CheckContrastColor("#000000", "#ffffff"))
	// Output:
	// false
	// true
}

// A colour-map hook adds brand names the text-colour functions accept.
func ExampleService_OnContrastColorMap() {
	s, _ := a11y.NewService(nil)
	s.OnContrastColorMap(func(palette map[string]string) map[string]string {
		palette["brand-primary"] = "#7c3aed"
		return palette
	})
	fmt.Println(s.GetContrastColor("brand-primary"))
	// Output: #FFFFFF
}

// Mount the colour endpoints in a host's own mux.
func ExampleNewHandler() {
	h, err := a11y.NewHandler(nil, nil) // the Default service, at /api/a11y
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/a11y/", h)

	req := httptest.NewRequest(http.MethodPost, "/api/a11y/contrast-check",
		strings.NewReader(`{"foreground":"#767676","background":"#FFFFFF"}`))
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, req)
	fmt.Print(w.Code, " ", w.Body.String())
	// Output: 200 {"ratio":4.542224959605253,"is_accessible":true}
}
