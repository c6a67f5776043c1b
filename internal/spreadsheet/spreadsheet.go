// Package spreadsheet keeps the CSV exports safe to open in a
// spreadsheet.
package spreadsheet

// Cell is a CSV cell a spreadsheet will not read as a formula: one that
// starts with =, +, -, @, a tab or a carriage return gets a leading "'".
func Cell(v string) string {
	if v != "" {
		switch v[0] {
		case '=', '+', '-', '@', '\t', '\r':
			return "'" + v
		}
	}
	return v
}
