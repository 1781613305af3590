package recording

import (
	"encoding/json"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scenarios"
)

// Magic is the value of the header's "kubesim" field: what says that a
// file is a session recording.
const Magic = "session-recording"

// Version is the version of the format this package writes and the only
// one it reads. A change that an older reader would misread (a field
// renamed, a meaning changed) takes a new version; fields added for
// new evidence do not.
const Version = 1

// Header is the first line of a recording.
type Header struct {
	Kubesim string `json:"kubesim"` // Magic
	Version int    `json:"version"`
	// Started is when the run began (UTC); every other time in the file
	// is relative to it.
	Started time.Time `json:"started"`
	// Scenario is the scenario played, as the picker lists it.
	Scenario ScenarioInfo `json:"scenario"`
	// Lang is the language the run was played in ("en", "zh"): replay
	// shows this one unless told another.
	Lang string `json:"lang"`
	// Output is what showed the run: "plain", "json" or "tui" (the
	// terminal UI; its gate's holds, and the time they took, are in it).
	Output string `json:"output"`
	// Speed is the run's speed (0: no simulated delays).
	Speed float64 `json:"speed"`
	// Step says the run was played with --step: its questions were asked
	// on stderr, not printed with the steps.
	Step bool `json:"step,omitempty"`
	// Stages are the stages the scenario's steps expect, each with the
	// first step that does: the plain output prints a stage's block
	// after that step's narration (scenarios.StageStep).
	Stages []scenarios.StageStep `json:"stages,omitempty"`
}

// ScenarioInfo names the scenario a recording played.
type ScenarioInfo struct {
	Name    string    `json:"name"`
	Level   string    `json:"level,omitempty"`
	Title   flow.Text `json:"title"`
	Summary flow.Text `json:"summary"`
	Steps   int       `json:"steps"`
}

// The kinds of entries.
const (
	KindStep   = "step"   // a step started (Step)
	KindResult = "result" // a step finished (Step, Result)
	KindEvent  = "event"  // a flow event (Event, EventAt)
	KindEnd    = "end"    // the run ended (Error); always the last line
)

// Entry is one line after the header: one call the runner made to its
// outputs.
type Entry struct {
	Kind string `json:"kind"`
	// At is when the outputs got it, in nanoseconds since Header.Started.
	At time.Duration `json:"at"`
	// Step is the step started or finished (KindStep, KindResult).
	Step *Step `json:"step,omitempty"`
	// Result is what the step's action and expectations gave (KindResult).
	Result *Result `json:"result,omitempty"`
	// Event is the flow event (KindEvent), its Time zero: EventAt holds
	// it, relative to Header.Started (absent for an event without one).
	Event   *flow.Event    `json:"event,omitempty"`
	EventAt *time.Duration `json:"eventAt,omitempty"`
	// Error is, for KindEnd, why the run failed ("" when every
	// expectation held).
	Error string `json:"error,omitempty"`

	line int // the entry's line in its file, from 1
}

// Line is the line of the file the entry was read from (0 for an entry
// not read from a file).
func (e *Entry) Line() int { return e.line }

// Step is a scenarios.StepInfo as recorded.
type Step struct {
	Index     int       `json:"index"`
	Total     int       `json:"total"`
	ID        string    `json:"id,omitempty"`
	Narration flow.Text `json:"narration"`
	As        string    `json:"as,omitempty"`
	Server    int       `json:"server,omitempty"`
	Action    string    `json:"action,omitempty"`
	Question  *Question `json:"question,omitempty"`
}

// Question is a step's question, its choices in the order shown.
type Question struct {
	Ask     flow.Text `json:"ask"`
	Choices []Choice  `json:"choices"`
	Fact    string    `json:"fact"`
	About   flow.Text `json:"about"`
}

// Choice is one choice of a Question.
type Choice struct {
	Text  flow.Text `json:"text"`
	Value string    `json:"value"`
}

// Result is a scenarios.StepResult as recorded; Evidence is kept as the
// JSON it was, Err as its message.
type Result struct {
	Status        int                  `json:"status,omitempty"`
	Message       string               `json:"message,omitempty"`
	Watch         []string             `json:"watch,omitempty"`
	WatchVersions []string             `json:"watchVersions,omitempty"`
	WatchFrom     string               `json:"watchFrom,omitempty"`
	HTTP          []string             `json:"http,omitempty"`
	Transcript    []flow.Text          `json:"transcript,omitempty"`
	Requests      []*flow.RequestTrace `json:"requests,omitempty"`
	Evidence      json.RawMessage      `json:"evidence,omitempty"`
	Answer        int                  `json:"answer"`
	FactValue     string               `json:"factValue,omitempty"`
	Error         string               `json:"error,omitempty"`
}
