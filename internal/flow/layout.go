package flow

import (
	"strings"
	"time"
)

// Form is how much of a piece of evidence a Layout shows.
type Form int

const (
	// Brief is the evidence as a running log writes it, one event after
	// the other: a few lines each, long values cut short (the plain
	// printer).
	Brief Form = iota
	// Full is the evidence as a pane shows it, one stage at a time:
	// whole values, JSON indented, the diff against the previous
	// revision, the bytes on the wire (the TUI and its markdown export).
	Full
)

// Layout lays out evidence: it turns an Event into Lines, in one
// language and one Form. Every output (plain text, markdown, the TUI)
// draws these Lines, adding only its own indentation or styles and
// fitting them to its width. The zero Layout is English and Brief. A
// Layout is a value; it is safe for concurrent use.
type Layout struct {
	// Lang is "en" or "zh"; any other value is English.
	Lang string
	Form Form
	// Width is the width a Full layout fits hex dumps to: rows of 16
	// bytes, or of 8 when that does not fit.
	Width int
}

// Context is what laying out one event needs besides the event.
type Context struct {
	// Prior is the value an etcd write replaced, as far as the reader
	// knows it: the diff is against it.
	Prior Prior
	// Since is when the runtime actions being shown began: a Full
	// layout writes each action's start as an offset from it.
	Since time.Time
}

// Prior is what a reader knows of the revision an etcd write replaced
// (EtcdWrite.PrevRevision).
type Prior struct {
	// Value is that revision's value, when Known.
	Value string
	Known bool
	// Pending says that the reader is still reading it from etcd's
	// history.
	Pending bool
	// Err says why etcd's history could not give it (compacted); Value
	// may still be Known from a write the reader saw.
	Err error
}

// Role says what a Line is, so that an output can style it.
type Role int

const (
	RoleField   Role = iota // a fact
	RoleHeading             // the first line of a piece of evidence: what happened
	RoleNote                // our words about the evidence
	RoleOK                  // a success
	RoleFailed              // a failure, a denial
	RoleWarning             // something to look at: no answer yet, a message
	RoleAdded               // a diff's added line
	RoleRemoved             // a diff's removed line, a node filtered out
	RoleFraming             // bytes the protocol adds around the data (chunk size, CRLF)
	RoleBlank               // an empty line between pieces of evidence
)

// Fit says how an output may break a Line wider than its width.
type Fit int

const (
	// FitWords breaks at spaces (anywhere in CJK text); rows after the
	// first are indented by Hang.
	FitWords Fit = iota
	// FitAnywhere cuts where the width ends: bytes, JSON, URIs, where
	// word boundaries mean nothing.
	FitAnywhere
	// FitNone leaves the line as it is: it was laid out to fit (a hex
	// dump's rows).
	FitNone
)

// Line is one line of laid-out evidence. Text has no terminal control
// sequences and may hold line breaks (an indented JSON value); its
// leading spaces are part of the layout.
type Line struct {
	Role Role
	Text string
	Fit  Fit
	// Hang is how far the rows after the first are indented when the
	// line is broken at words.
	Hang int
	// Mark begins the line and, when it is broken, every row of it (a
	// diff's + or -). A plain output writes Mark then Text.
	Mark string
}

// String is the line as a plain output writes it: Mark, then Text.
func (ln Line) String() string { return ln.Mark + ln.Text }

// evidenceKind is one kind of evidence an Event carries (a Request, an
// Etcd write...) and its layout. A new kind of evidence is one more
// field of Event, one layout method and one entry here.
type evidenceKind struct {
	has func(*Event) bool
	lay func(Layout, Event, Context) []Line
}

// evidenceKinds are the kinds Event lays out, in the order it looks for
// them: an event carries one.
var evidenceKinds = []evidenceKind{
	{func(e *Event) bool { return e.Request != nil }, Layout.request},
	{func(e *Event) bool { return e.Etcd != nil }, Layout.etcd},
	{func(e *Event) bool { return e.Watch != nil }, Layout.watch},
	{func(e *Event) bool { return e.Scheduling != nil }, Layout.scheduling},
	{func(e *Event) bool { return e.Runtime != nil }, Layout.runtime},
	{func(e *Event) bool { return e.Status != nil }, Layout.status},
	{func(e *Event) bool { return e.Terminated != nil }, Layout.terminated},
	{func(e *Event) bool { return e.Controller != nil }, Layout.controller},
}

// Event lays out the evidence ev carries, with what c says besides. An
// event without evidence is its summary and component in a Brief
// layout, nothing in a Full one. Every Line it returns is Printable,
// whatever the cluster put in the event.
func (l Layout) Event(ev Event, c Context) []Line {
	for _, k := range evidenceKinds {
		if k.has(&ev) {
			return printable(append(k.lay(l, ev, c), l.instance(ev)...))
		}
	}
	if l.Form == Brief && ev.Summary != "" {
		return printable([]Line{field(ev.Summary + "  (" + ev.Component + ")")})
	}
	return nil
}

// printable makes the text of every line Printable.
func printable(ls []Line) []Line {
	for i := range ls {
		ls[i].Text, ls[i].Mark = Printable(ls[i].Text), Printable(ls[i].Mark)
	}
	return ls
}

// line returns a line of role r broken at words, its rows after the
// first indented by hang.
func line(r Role, hang int, text string) Line { return Line{Role: r, Text: text, Hang: hang} }

// field returns a fact on a line of its own.
func field(text string) Line { return Line{Role: RoleField, Text: text} }

// cut returns a line of role r that may be cut anywhere.
func cut(r Role, text string) Line { return Line{Role: r, Text: text, Fit: FitAnywhere} }

// instance says which instance acted, for the evidence several
// instances may produce in a highly available control plane: a
// scheduling decision (the scheduler instance holding the Lease), a
// request or an etcd write (the API server that served it, named only
// where several run). A leader election identity is shown without its
// "_<uuid>" suffix, so that a lesson's evidence reads the same each run.
func (l Layout) instance(ev Event) []Line {
	if ev.Instance == "" || (ev.Scheduling == nil && ev.Request == nil && ev.Etcd == nil) {
		return nil
	}
	name := ev.Instance
	if i := strings.LastIndex(name, "_"); i > 0 {
		name = name[:i]
	}
	return []Line{field(l.printf("by_instance", name))}
}
