package flow

// Text is a piece of prose in the two languages kubesim speaks. Scenarios,
// the stages' titles, the evidence's words (Layout), the plain printer
// and the TUI all write theirs with it.
type Text struct {
	En string `json:"en" yaml:"en"`
	Zh string `json:"zh" yaml:"zh"`
}

// In returns the text in lang ("en" or "zh"); any other value, or a missing
// translation, falls back to English.
func (t Text) In(lang string) string {
	if lang == "zh" && t.Zh != "" {
		return t.Zh
	}
	return t.En
}
