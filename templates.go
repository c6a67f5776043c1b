package groundwork

// The page layer's files a host may replace, by the name a domain's
// Templates option (an fs.FS) gives them; each domain names its own page
// beside these (forms.PageTemplate, bookings.BookTemplate, ...).
const (
	// LayoutTemplate defines "layout": the page around "content".
	LayoutTemplate = "layout.html"
	// FieldsTemplate defines "field", "error-summary" and "flash".
	FieldsTemplate = "fields.html"
	// ErrorTemplate is the "content" of an error page.
	ErrorTemplate = "error.html"
	// Stylesheet is the CSS every page links.
	Stylesheet = "groundwork.css"
	// Script is the optional JavaScript every page loads (deferred): the
	// pages work without it.
	Script = "groundwork.js"
)
