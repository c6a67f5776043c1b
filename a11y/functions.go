package a11y

// The package-level functions call Default(); hooks registered on it
// apply to them.

// ContrastRatio is [Service.ContrastRatio] on [Default].
func ContrastRatio(fg, bg string) (float64, error) { return defaultService.ContrastRatio(fg, bg) }

// CheckContrastColor is [Service.CheckContrastColor] on [Default]: true
// when fg and bg reach 4.5:1.
func CheckContrastColor(fg, bg string) bool { return defaultService.CheckContrastColor(fg, bg) }

// CheckContrast is [Service.CheckContrast] on [Default].
func CheckContrast(fg, bg string, level Level) bool {
	return defaultService.CheckContrast(fg, bg, level)
}

// GetContrastColor is [Service.GetContrastColor] on [Default]: "#000000"
// or "#FFFFFF".
func GetContrastColor(bg string) string { return defaultService.GetContrastColor(bg) }

// CSSVarBlackOrWhite is [Service.CSSVarBlackOrWhite] on [Default]:
// "black" or "white".
func CSSVarBlackOrWhite(bg string) string { return defaultService.CSSVarBlackOrWhite(bg) }

// GenerateAccessibleTextColor is [Service.GenerateAccessibleTextColor] on
// [Default].
func GenerateAccessibleTextColor(bg string, tint bool) string {
	return defaultService.GenerateAccessibleTextColor(bg, tint)
}

// ResolveColor is [Service.ResolveColor] on [Default].
func ResolveColor(s string) (hex string, ok bool) { return defaultService.ResolveColor(s) }

// AuditPalette is [Service.AuditPalette] on [Default].
func AuditPalette(colors []string) []PaletteAuditRow { return defaultService.AuditPalette(colors) }
