// Package a11y is colour accessibility for web applications: WCAG contrast
// ratios, accessible text colours, palette audits, HTTP endpoints for all
// three, and AI-assisted reviews of content, ARIA and contrast failures.
//
// # Contrast
//
// The WCAG 2.x contrast ratio of two colours is
//
//	(L1 + 0.05) / (L2 + 0.05)
//
// where L1 is the relative luminance of the lighter colour and L2 of the
// darker, and a colour's luminance is
//
//	L = 0.2126·R + 0.7152·G + 0.0722·B
//
// with each channel c = v/255 linearised: c/12.92 when c ≤ 0.03928, else
// ((c + 0.055)/1.055)^2.4. Ratios run from 1 (identical) to 21 (black on
// white) and are never rounded. They match the original PHP package to the
// last bit on every platform: the 256 linearised values are a table of the
// correctly rounded results, and the sum is taken in a fixed order.
//
// The levels and their thresholds: [AA] 4.5:1, [AALarge] 3:1, [AAA] 7:1,
// [AAALarge] 4.5:1, [NonText] 3:1.
//
// # Text colours
//
// [GetContrastColor] answers "#000000" or "#FFFFFF", whichever contrasts
// more with a background (white on a tie; no 8-bit colour ties). With tint,
// [GenerateAccessibleTextColor] answers the nearest shade of the background
// itself that reaches 4.5:1: the smallest uniform shift of the three
// channels, lighter first on dark backgrounds. Backgrounds may be hex,
// rgb(), hsl() or Tailwind v3.4 palette names ("blue-500"); anything else
// answers "#000000". Answers are cached, up to [CacheSizeDefault] of them.
//
// # Hooks
//
// A [Service] takes Go callbacks at three points:
//
//   - [Service.OnContrastThreshold]: inside every contrast check, just before
//     the comparison (each probe of a tint search included);
//   - [Service.OnContrastColorMap]: when the palette of names loads;
//   - [Service.OnTextColorGenerated]: on every answer of the text-colour
//     functions, cached ones included.
//
// The package-level functions use [Default]; hooks registered on it apply
// to them.
//
// # HTTP
//
// [NewHandler] serves POST contrast-check, generate-text-color and
// audit-palette under /api/a11y (public by default, behind the "api"
// throttle of 60 requests a minute), and, given an [AI], the three AI
// endpoints under ai/, which need a bearer token with the ability
// "a11y:ai". Bad input is a 422 with the field-by-field envelope; AI
// failures answer {"error": ...} with 403 (feature off), 503 (no
// credentials), 502 (provider unavailable, never named) or 422.
//
// # AI
//
// [NewAI] answers through a [Completer], one method that turns a prompt
// into text. Package a11y/a11yai makes one for Anthropic, OpenAI or Ollama
// through langchaingo; it is a package of its own so that importing a11y
// for its colour functions links none of that. A host may write its own
// Completer for any other model. Model output is cleaned field by field;
// contrast alternatives are re-resolved and re-checked here, failing ones
// dropped, their distance from the original computed here (CIEDE2000),
// and, when fewer than two survive, made up with local shades that keep
// the hue.
package a11y
