package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Component is one pane of the screen. The root model owns the
// components, forwards them the messages meant for them (keys only when
// they have the focus) and lays them out with SetSize.
type Component interface {
	// Update handles msg and returns a command to run, if any.
	Update(msg tea.Msg) tea.Cmd
	// View renders the pane's content, exactly the size set.
	View() string
	// SetSize sets the content size, in cells.
	SetSize(width, height int)
	// KeyHelp returns the keys the pane uses when it has the focus.
	KeyHelp() []key.Binding
}

// shared is what every component reads: the styles, keys and language.
// The root model owns it and each pane embeds a pointer to it; only the
// root model changes it, in Update (the language key).
type shared struct {
	styles Styles
	keys   keyMap
	lang   string // "en" or "zh"
}
