package web

import "github.com/kubesim/kubesim/internal/flow"

// The messages of the event stream: each is one JSON object whose "t"
// says which (docs/web.md lists them).

// scenarioMsg names the lesson playing.
type scenarioMsg struct {
	Name    string    `json:"name"`
	Title   flow.Text `json:"title"`
	Summary flow.Text `json:"summary"`
	Steps   int       `json:"steps"`
}

// helloMsg is the first message of every connection (not in the log).
type helloMsg struct {
	T          string       `json:"t"` // "hello"
	Role       string       `json:"role"`
	Epoch      int          `json:"epoch"`
	Scenario   *scenarioMsg `json:"scenario"`
	Lang       string       `json:"lang"`
	Mode       string       `json:"mode"`
	Speed      float64      `json:"speed"`
	CanRestart bool         `json:"canRestart"`
	Replay     bool         `json:"replay"`
}

// sessionMsg begins each epoch's log: a lesson started or restarted.
type sessionMsg struct {
	T        string       `json:"t"` // "session"
	Epoch    int          `json:"epoch"`
	Scenario *scenarioMsg `json:"scenario"`
}

// hopMsg is one server of the API server's chain a request went through.
type hopMsg struct {
	Server  string `json:"server"`
	Outcome string `json:"outcome"`
}

// arrowMsg is one flow event drawn as an arrow between two lifelines.
type arrowMsg struct {
	T     string   `json:"t"` // "arrow"
	ID    int      `json:"id"`
	Seq   uint64   `json:"seq"`
	At    int64    `json:"at"` // ms since the session started
	Stage int      `json:"stage"`
	Kind  string   `json:"kind"`
	From  string   `json:"from"`
	To    string   `json:"to"`
	Label string   `json:"label"`
	Pod   string   `json:"pod,omitempty"`
	Hops  []hopMsg `json:"hops,omitempty"`
}

// heldMsg is one boundary the gate holds.
type heldMsg struct {
	Point     string `json:"point"`
	After     int    `json:"after"`
	Component string `json:"component"`
	Object    string `json:"object"`
	Step      bool   `json:"step"`
}

// holdMsg is the gate's state: what it holds (nothing: running).
type holdMsg struct {
	T    string    `json:"t"` // "hold"
	Held []heldMsg `json:"held"`
	Mode string    `json:"mode"`
}

// questionMsg is a step's question.
type questionMsg struct {
	Ask     flow.Text   `json:"ask"`
	Choices []flow.Text `json:"choices"`
}

// stepMsg is a step starting (Done false) or finished.
type stepMsg struct {
	T         string       `json:"t"` // "step"
	Index     int          `json:"index"`
	Total     int          `json:"total"`
	ID        string       `json:"id"`
	Narration flow.Text    `json:"narration"`
	Action    string       `json:"action"`
	Done      bool         `json:"done"`
	Result    string       `json:"result,omitempty"`
	Error     string       `json:"error,omitempty"`
	Question  *questionMsg `json:"question"`
	// Answer is -1: the reveal message carries the run's answer.
	Answer int `json:"answer"`
}

// controlMsg says the teacher changed a setting.
type controlMsg struct {
	T     string  `json:"t"` // "control"
	Mode  string  `json:"mode"`
	Speed float64 `json:"speed"`
	Lang  string  `json:"lang"`
}

// tallyMsg is the class's answers to a question so far (teacher only).
type tallyMsg struct {
	T        string `json:"t"` // "tally"
	Step     int    `json:"step"`
	Counts   []int  `json:"counts"`
	Answered int    `json:"answered"`
	Viewers  int    `json:"viewers"`
}

// revealMsg shows the class the run's answer and the tally.
type revealMsg struct {
	T      string `json:"t"` // "reveal"
	Step   int    `json:"step"`
	Answer int    `json:"answer"`
	Counts []int  `json:"counts"`
}

// nodeMsg and kubeEventMsg are the cluster's nodes and Events.
type nodeMsg struct {
	Name  string `json:"name"`
	Ready string `json:"ready"`
	Pods  int    `json:"pods"`
}

type kubeEventMsg struct {
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Object  string `json:"object"`
	Message string `json:"message"`
}

// clusterMsg is the cluster's state, sent when it changes.
type clusterMsg struct {
	T      string         `json:"t"` // "cluster"
	Nodes  []nodeMsg      `json:"nodes"`
	Events []kubeEventMsg `json:"events"`
}

// endMsg says the lesson finished ("" Error: every expectation held).
type endMsg struct {
	T     string `json:"t"` // "end"
	Error string `json:"error"`
}
