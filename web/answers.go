package web

import (
	"encoding/json"
	"net/http"
	"sync"

	"github.com/kubesim/kubesim/tui"
)

// maxViewerID bounds the id a page answers with.
const maxViewerID = 64

// quiz is the class's answers to the question asked now: the step that
// asks it, each page's choice (its last), and, once the step has run,
// the choice the run made true. Safe for concurrent use.
type quiz struct {
	s *Server

	mu       sync.Mutex
	epoch    int
	step     int // the step asking (0: none)
	choices  int
	answers  map[string]int // viewer id → choice
	done     bool           // the step has run: answer is known
	answer   int
	revealed bool
}

func newQuiz(s *Server) *quiz { return &quiz{s: s, answers: map[string]int{}} }

// reset forgets the question (a new session).
func (q *quiz) reset() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.step, q.answers, q.done, q.revealed = 0, map[string]int{}, false, false
}

// follow follows the lesson's steps: a step that starts with a question
// opens it, its end gives the run's answer.
func (q *quiz) follow(epoch int, up tui.StepUpdate) {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case !up.Done && up.Question != nil && len(up.Question.Choices) > 0:
		q.epoch, q.step, q.choices = epoch, up.Index, len(up.Question.Choices)
		q.answers, q.done, q.revealed = map[string]int{}, false, false
	case up.Done && up.Index == q.step:
		q.done, q.answer = true, up.Answer
	}
}

// answerReq is the body of POST /api/answer.
type answerReq struct {
	Viewer string `json:"viewer"`
	Step   int    `json:"step"`
	Choice int    `json:"choice"`
}

// handleAnswer records a page's answer to the question asked now and
// sends the teacher the tally.
func (s *Server) handleAnswer(w http.ResponseWriter, r *http.Request) {
	var req answerReq
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "the body must be {\"viewer\":ID,\"step\":N,\"choice\":I}: "+err.Error())
		return
	}
	if req.Viewer == "" || len(req.Viewer) > maxViewerID {
		writeError(w, http.StatusBadRequest, "viewer must be the page's id, 1 to 64 characters")
		return
	}
	code, msg := s.quiz.record(req)
	if code != http.StatusNoContent {
		writeError(w, code, msg)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// record takes an answer and publishes the tally; it returns the HTTP
// status to answer with and, for an error, why.
func (q *quiz) record(req answerReq) (int, string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.step == 0 || req.Step != q.step {
		return http.StatusConflict, "step " + itoa(req.Step) + " asks no question now"
	}
	if q.revealed {
		return http.StatusConflict, "the answer to step " + itoa(req.Step) + " is revealed: answers are closed"
	}
	if req.Choice < 0 || req.Choice >= q.choices {
		return http.StatusBadRequest, "choice must be 0 to " + itoa(q.choices-1)
	}
	q.answers[req.Viewer] = req.Choice
	q.s.hub.publish(q.epoch, q.tallyLocked(), true)
	return http.StatusNoContent, ""
}

// tallyLocked counts the answers.
func (q *quiz) tallyLocked() tallyMsg {
	m := tallyMsg{T: "tally", Step: q.step, Counts: q.countsLocked(), Answered: len(q.answers), Viewers: q.s.hub.followers()}
	return m
}

func (q *quiz) countsLocked() []int {
	counts := make([]int, q.choices)
	for _, c := range q.answers {
		counts[c]++
	}
	return counts
}

// reveal shows the class the run's answer to step, once the step has
// run; it returns the HTTP status and, for an error, why.
func (q *quiz) reveal(step int) (int, string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.step == 0 || step != q.step {
		return http.StatusConflict, "step " + itoa(step) + " asks no question now"
	}
	if !q.done {
		return http.StatusConflict, "step " + itoa(step) + " has not run yet: its answer is what the run makes true; let it go on first"
	}
	q.revealed = true
	q.s.hub.publish(q.epoch, revealMsg{T: "reveal", Step: q.step, Answer: q.answer, Counts: q.countsLocked()}, false)
	return http.StatusNoContent, ""
}
