package forms

import (
	"cmp"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/spreadsheet"
)

// CSVOptions shape an export.
type CSVOptions struct {
	// IncludeIPAddress adds an "IP Address" column.
	IncludeIPAddress bool
	// Flush, when set, is called every hundred rows so a streamed response
	// moves on.
	Flush func()
}

// ExportCSV writes every submission of the form, spam included, newest
// first: Submission ID, Submission Number, Submitted At (UTC), one column
// per data field in field order (headed by its label, holding display
// values; a matrix takes a column per row, holding the choice, and a
// ranking a column per item, holding its place), Page URL, optionally IP Address, then Is Read, Is Spam and Is
// Starred as 1 or 0, then where the visit came from (Submission.Visit):
// Source, Medium, Campaign, Landing Page and Country, empty where not
// known.
func (s *Service) ExportCSV(ctx context.Context, form *Form, w io.Writer, opts CSVOptions) error {
	fields, err := s.store.Fields(ctx, form.ID)
	if err != nil {
		return fmt.Errorf("forms: export: %w", err)
	}
	var data []Field
	for _, f := range fields {
		if !isLayout(f.Type) {
			data = append(data, f)
		}
	}
	cw := csv.NewWriter(w)
	header := []string{"Submission ID", "Submission Number", "Submitted At"}
	for _, f := range data {
		if parts := csvParts(&f); parts != nil {
			for _, p := range parts {
				header = append(header, spreadsheet.Cell(label(&f)+": "+p.Label))
			}
			continue
		}
		header = append(header, spreadsheet.Cell(label(&f)))
	}
	header = append(header, "Page URL")
	if opts.IncludeIPAddress {
		header = append(header, "IP Address")
	}
	header = append(header, "Is Read", "Is Spam", "Is Starred", "Source", "Medium", "Campaign", "Landing Page", "Country")
	if err := cw.Write(header); err != nil {
		return err
	}
	flag := func(b bool) string {
		if b {
			return "1"
		}
		return "0"
	}
	rows := 0
	err = s.store.EachSubmission(ctx, form.ID, func(sub *Submission) error {
		byName := make(map[string]*Value, len(sub.Values))
		for i, v := range sub.Values {
			byName[v.FieldName] = &sub.Values[i]
		}
		row := make([]string, 0, len(header))
		row = append(row, strconv.FormatInt(sub.ID, 10), sub.Number(), sub.CreatedAt.UTC().Format(time.DateTime))
		for i := range data {
			row = appendCells(row, &data[i], byName[data[i].Name])
		}
		row = append(row, spreadsheet.Cell(sub.PageURL))
		if opts.IncludeIPAddress {
			row = append(row, spreadsheet.Cell(sub.IPAddress))
		}
		row = append(row, flag(sub.IsRead), flag(sub.IsSpam), flag(sub.IsStarred))
		var visit groundwork.Visit
		if sub.Visit != nil {
			visit = *sub.Visit
		}
		for _, cell := range []string{visit.Source, visit.Medium, visit.Campaign, visit.Landing, visit.Country} {
			row = append(row, spreadsheet.Cell(cell))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
		if rows++; rows%100 == 0 {
			cw.Flush()
			if err := cw.Error(); err != nil {
				return err
			}
			if opts.Flush != nil {
				opts.Flush()
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("forms: export: %w", err)
	}
	cw.Flush()
	return cw.Error()
}

// csvParts are the columns a matrix (a row each) or a ranking (an item
// each) takes in an export; nil for a field of one column.
func csvParts(f *Field) []Option {
	switch f.Type {
	case TypeMatrix:
		return f.matrixRows()
	case TypeRanking:
		return f.Options()
	}
	return nil
}

// appendCells appends f's cells of an export's row: v's display value;
// for a matrix each row's chosen column, for a ranking each item's
// place (1 is first), a number a spreadsheet averages.
func appendCells(row []string, f *Field, v *Value) []string {
	parts := csvParts(f)
	if parts == nil {
		if v == nil {
			return append(row, "")
		}
		return append(row, spreadsheet.Cell(v.DisplayValue))
	}
	for _, p := range parts {
		cell := ""
		if v != nil {
			for i, item := range v.ValueArray {
				if f.Type == TypeRanking && item == p.Value {
					cell = strconv.Itoa(i + 1)
				}
				if col, ok := strings.CutPrefix(item, p.Value+"="); ok && f.Type == TypeMatrix {
					opt, _ := optionOf(f, col)
					cell = cmp.Or(opt.Label, col) // a column since removed: its value
				}
			}
		}
		row = append(row, spreadsheet.Cell(cell))
	}
	return row
}
