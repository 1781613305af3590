package tui

import (
	"github.com/charmbracelet/lipgloss"
)

// Styles are the looks shared by every component. They come from one
// lipgloss.Renderer, so that NO_COLOR (an ASCII profile) applies to all.
type Styles struct {
	r *lipgloss.Renderer

	Header, HeaderDim, Mode, Held  lipgloss.Style
	Pane, PaneFocused, PaneTitle   lipgloss.Style
	StageDone, StageCurrent        lipgloss.Style
	StagePending, StageSelected    lipgloss.Style
	Narration, Dim, Bold, Key      lipgloss.Style
	Tab, TabActive                 lipgloss.Style
	Add, Del, OK, Fail, Warn, Wire lipgloss.Style
	BarFull, BarEmpty              lipgloss.Style
	Overlay                        lipgloss.Style
	Border, BorderFocused          lipgloss.Style
}

// newStyles builds the styles from r.
func newStyles(r *lipgloss.Renderer) Styles {
	accent := lipgloss.AdaptiveColor{Light: "#5A3FD6", Dark: "#9D8CFF"}
	green := lipgloss.AdaptiveColor{Light: "#1B7F3B", Dark: "#5FD787"}
	red := lipgloss.AdaptiveColor{Light: "#B3261E", Dark: "#FF6B6B"}
	yellow := lipgloss.AdaptiveColor{Light: "#8A6D00", Dark: "#F2C94C"}
	dim := lipgloss.AdaptiveColor{Light: "#6B6B6B", Dark: "#8A8A8A"}
	border := lipgloss.AdaptiveColor{Light: "#BDBDBD", Dark: "#4A4A4A"}
	s := Styles{r: r}
	s.Header = r.NewStyle().Bold(true).Foreground(accent)
	s.HeaderDim = r.NewStyle().Foreground(dim)
	s.Mode = r.NewStyle().Bold(true).Foreground(green)
	s.Held = r.NewStyle().Bold(true).Foreground(yellow)
	s.Pane = r.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(border)
	s.PaneFocused = r.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(accent)
	s.PaneTitle = r.NewStyle().Bold(true)
	s.StageDone = r.NewStyle().Foreground(green)
	s.StageCurrent = r.NewStyle().Bold(true).Foreground(accent)
	s.StagePending = r.NewStyle().Foreground(dim)
	s.StageSelected = r.NewStyle().Reverse(true)
	s.Narration = r.NewStyle()
	s.Dim = r.NewStyle().Foreground(dim)
	s.Bold = r.NewStyle().Bold(true)
	s.Key = r.NewStyle().Bold(true).Foreground(accent)
	s.Tab = r.NewStyle().Foreground(dim)
	s.TabActive = r.NewStyle().Bold(true).Underline(true).Foreground(accent)
	s.Add = r.NewStyle().Foreground(green)
	s.Del = r.NewStyle().Foreground(red)
	s.OK = r.NewStyle().Foreground(green)
	s.Fail = r.NewStyle().Bold(true).Foreground(red)
	s.Warn = r.NewStyle().Foreground(yellow)
	s.Wire = r.NewStyle().Foreground(yellow)
	s.BarFull = r.NewStyle().Foreground(accent)
	s.BarEmpty = r.NewStyle().Foreground(border)
	s.Overlay = r.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(accent).Padding(0, 1)
	s.Border = r.NewStyle().Foreground(border)
	s.BorderFocused = r.NewStyle().Foreground(accent)
	return s
}
