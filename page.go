package groundwork

// Paging of the list endpoints and of the services' list methods.
const (
	// PerPageDefault is the page size of a list that names none.
	PerPageDefault = 15
	// PerPageMax is the largest page size a list endpoint accepts.
	PerPageMax = 100
)

// APILimitDefault is the "api" throttle's allowance: requests a minute per
// caller (a bearer token, else a client IP) of the handlers that have one.
const APILimitDefault = 60

// PageRequest asks a list for one page: Page counts from 1, PerPage rows
// each.
type PageRequest struct {
	Page    int
	PerPage int
}

// Offset is the number of rows before the page.
func (p PageRequest) Offset() int { return (p.Page - 1) * p.PerPage }
