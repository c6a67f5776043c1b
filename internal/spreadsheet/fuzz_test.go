package spreadsheet

import (
	"bytes"
	"encoding/csv"
	"testing"
)

func TestCell(t *testing.T) {
	for in, want := range map[string]string{"": "", "Ann": "Ann", "=SUM(A1)": "'=SUM(A1)", "+1 555": "'+1 555", "-2": "'-2",
		"@x": "'@x", "\tx": "'\tx", "\rx": "'\rx", "a=b": "a=b"} {
		if got := Cell(in); got != want {
			t.Errorf("Cell(%q) = %q, want %q", in, got, want)
		}
	}
}

// Any answer written as a CSV cell reads back as itself (behind the "'"
// a formula-looking one gets), on one row of one cell, and never starts
// with what a spreadsheet would run as a formula.
func FuzzCSVCell(f *testing.F) {
	for _, s := range []string{"Ann", "=1+1", "+33 1 23", "-2", "@SUM(A1)", "\t=x", "\r=x", "a,b", "say \"hi\"", "two\nlines", "", "'=already", "\uff1d1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		cell := Cell(answer)
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		if err := w.Write([]string{cell, "end"}); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		rows, err := csv.NewReader(&buf).ReadAll()
		if err != nil {
			t.Fatalf("%q: %v", answer, err)
		}
		if len(rows) != 1 || len(rows[0]) != 2 || rows[0][1] != "end" {
			t.Fatalf("%q: read back as %q", answer, rows)
		}
		got := rows[0][0]
		// encoding/csv reads \r\n inside a quoted cell as \n.
		want := bytes.ReplaceAll([]byte(cell), []byte("\r\n"), []byte("\n"))
		if got != string(want) {
			t.Fatalf("%q: read back as %q", answer, got)
		}
		if got != "" && bytes.IndexByte([]byte("=+-@\t\r"), got[0]) >= 0 {
			t.Fatalf("%q: the cell %q starts a formula", answer, got)
		}
		if cell != answer && cell != "'"+answer {
			t.Fatalf("%q: became %q", answer, cell)
		}
	})
}
