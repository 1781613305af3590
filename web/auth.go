package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
)

// The roles of a page.
const (
	roleTeacher = "teacher"
	roleViewer  = "viewer"
)

// keyHeader carries the teacher's key on the page's POSTs; the event
// stream, an EventSource that sends no headers, has it in its query.
const keyHeader = "X-Kubesim-Key"

var errWrongKey = errors.New("wrong key: this page's URL does not carry the teacher's key; open the teacher URL kubesim printed at start")

// newKey returns a random key of 128 bits, in hex.
func newKey() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// role is the role of the page that sent r: the teacher when it carries
// the key (header or query), a viewer when it carries none, and
// errWrongKey when it carries another.
func (s *Server) role(r *http.Request) (string, error) {
	key := r.Header.Get(keyHeader)
	if key == "" {
		key = r.URL.Query().Get("key")
	}
	if key == "" {
		return roleViewer, nil
	}
	if subtle.ConstantTimeCompare([]byte(key), []byte(s.key)) == 1 {
		return roleTeacher, nil
	}
	return "", errWrongKey
}

// teacherOnly answers 403 and returns false unless r is the teacher's.
func (s *Server) teacherOnly(w http.ResponseWriter, r *http.Request) bool {
	role, err := s.role(r)
	if err != nil {
		writeError(w, http.StatusForbidden, err.Error())
		return false
	}
	if role != roleTeacher {
		writeError(w, http.StatusForbidden, "read-only: only the teacher's page (the URL with the key) drives the lesson")
		return false
	}
	return true
}

// writeError answers code with {"error": msg}.
func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
