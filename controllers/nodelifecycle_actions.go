package controllers

import (
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// statusWord is how a write's outcome reads in an Action's Writes: "200",
// or the Status code and reason of the error ("409 Conflict").
func statusWord(err error) string {
	if err == nil {
		return "200"
	}
	if s, ok := err.(apierrors.APIStatus); ok {
		return fmt.Sprintf("%d %s", s.Status().Code, s.Status().Reason)
	}
	return err.Error()
}

// writeLog collects the writes of one decision, for its Action; it is
// safe for concurrent use.
type writeLog struct {
	mu     sync.Mutex
	writes []string
	// began is when the log was made, before its writes: the time of
	// the action they are part of (Action.Time).
	began time.Time
}

// newWriteLog returns an empty log begun now.
func newWriteLog() *writeLog { return &writeLog{began: time.Now()} }

func (w *writeLog) add(line string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, line)
}

func (w *writeLog) lines() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.writes...)
}
