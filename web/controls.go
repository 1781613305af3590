package web

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/tui"
)

// Bounds of the speed the teacher may set (the terminal UI's + and -
// go from 0.25 to 16).
const (
	minSpeed = 0.25
	maxSpeed = 16
)

// controlReq is the body of POST /api/control.
type controlReq struct {
	Action string  `json:"action"`
	Mode   string  `json:"mode,omitempty"`
	Speed  float64 `json:"speed,omitempty"`
	Lang   string  `json:"lang,omitempty"`
	Step   int     `json:"step,omitempty"`
	// Held, for next, is what the page shows held (its last hold
	// message's): next lets go exactly those still held, not one held
	// since, which the page has not shown. Without it next lets go
	// whatever is held.
	Held []heldMsg `json:"held,omitempty"`
}

// handleControl drives the lesson as the terminal UI's keys do, for the
// teacher's page only: next lets go what the gate holds, mode and speed
// set the gate's, lang the class's language, restart plays the lesson
// again on a fresh cluster, reveal shows a question's answer.
func (s *Server) handleControl(w http.ResponseWriter, r *http.Request) {
	if !s.teacherOnly(w, r) {
		return
	}
	var req controlReq
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "the body must be a JSON control, e.g. {\"action\":\"next\"}: "+err.Error())
		return
	}
	code, msg := s.control(req)
	if code >= 400 {
		writeError(w, code, msg)
		return
	}
	w.WriteHeader(code)
}

// control carries out req and returns the HTTP status to answer with
// and, for an error, why.
func (s *Server) control(req controlReq) (int, string) {
	switch req.Action {
	case "next":
		return s.next(req.Held)
	case "mode":
		return s.setMode(req.Mode)
	case "speed":
		return s.setSpeed(req.Speed)
	case "lang":
		if req.Lang != "en" && req.Lang != "zh" {
			return http.StatusBadRequest, "lang must be en or zh, got " + strconv.Quote(req.Lang)
		}
		s.mu.Lock()
		s.lang = req.Lang
		s.mu.Unlock()
		s.publishControl()
		return http.StatusNoContent, ""
	case "restart":
		return s.restart()
	case "reveal":
		return s.quiz.reveal(req.Step)
	}
	return http.StatusBadRequest, "unknown action " + strconv.Quote(req.Action) + ": next, mode, speed, lang, restart or reveal"
}

// next lets go what the gate holds now, as the terminal UI's advance key;
// of it, when shown is not empty, only the boundaries shown. A page
// reads the gate's state from messages that may lag behind it: a press
// meant for a boundary already let go (a second press, or one on a stale
// message) then lets go nothing, rather than the boundary held since.
func (s *Server) next(shown []heldMsg) (int, string) {
	l := s.lesson()
	if l == nil {
		return http.StatusConflict, "no lesson is playing"
	}
	g := l.sess.Gate()
	if len(shown) == 0 {
		g.Advance()
		return http.StatusNoContent, ""
	}
	var release []flow.Boundary
	for _, b := range g.Held() {
		h := heldOf(b)
		for _, sh := range shown {
			if sh.Point == h.Point && sh.Component == h.Component && sh.Object == h.Object {
				release = append(release, b)
				break
			}
		}
	}
	g.Release(release...)
	return http.StatusNoContent, ""
}

func (s *Server) setMode(mode string) (int, string) {
	var m flow.Mode
	switch mode {
	case "off":
		m = flow.ModeOff
	case "auto":
		m = flow.ModeAuto
	case "step":
		m = flow.ModeStep
	default:
		return http.StatusBadRequest, "mode must be auto, step or off, got " + strconv.Quote(mode)
	}
	s.mu.Lock()
	s.mode = m
	l := s.cur
	s.mu.Unlock()
	if l != nil {
		l.sess.Gate().SetMode(m)
	}
	s.publishControl()
	return http.StatusNoContent, ""
}

func (s *Server) setSpeed(speed float64) (int, string) {
	if speed < minSpeed || speed > maxSpeed {
		return http.StatusBadRequest, "speed must be between 0.25 and 16"
	}
	s.mu.Lock()
	s.speed = speed
	l := s.cur
	s.mu.Unlock()
	if l != nil {
		l.sess.Gate().SetDelay(tui.AutoDelay(speed))
	}
	s.publishControl()
	return http.StatusNoContent, ""
}

// restart plays the lesson again on a fresh session, in the background:
// the pages see a new session message at once and the arrows once the
// cluster is up.
func (s *Server) restart() (int, string) {
	if s.cfg.NoRestart {
		return http.StatusConflict, "this web view shows a running cluster (serve): there is no lesson to restart"
	}
	s.mu.Lock()
	busy := s.starting
	s.mu.Unlock()
	if busy {
		return http.StatusConflict, errStarting.Error()
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = s.startLesson(s.ctx)
	}()
	return http.StatusAccepted, ""
}

// publishControl tells every page the settings.
func (s *Server) publishControl() {
	s.mu.Lock()
	m := controlMsg{T: "control", Mode: s.mode.String(), Speed: s.speed, Lang: s.lang}
	s.mu.Unlock()
	s.hub.publish(s.hub.current(), m, false)
}

// itoa is strconv.Itoa, short.
func itoa(i int) string { return strconv.Itoa(i) }
