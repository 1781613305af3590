package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// raw is a server's answer to one request as it came.
type raw struct {
	code        int
	contentType string
	warnings    []string
	body        []byte
	err         error // the request could not be sent or its body read
}

// fill replaces the placeholders of s with the target's variables.
func (t *target) fill(s string) string {
	pairs := make([]string, 0, 2*len(t.vars))
	for k, v := range t.vars {
		pairs = append(pairs, "{"+k+"}", v)
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

// send sends r to the target and reads the whole answer (a watch's stream
// until the server ends it or clientTimeout passes).
func (t *target) send(ctx context.Context, r request) raw {
	req, err := t.newHTTPRequest(ctx, r)
	if err != nil {
		return raw{err: err}
	}
	client, token := t.client(r.auth)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return raw{err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil && !(r.watch && len(body) > 0) {
		return raw{code: resp.StatusCode, err: fmt.Errorf("reading the body: %w", err)}
	}
	return raw{code: resp.StatusCode, contentType: resp.Header.Get("Content-Type"),
		warnings: resp.Header.Values("Warning"), body: body}
}

// newHTTPRequest builds r's HTTP request for the target.
func (t *target) newHTTPRequest(ctx context.Context, r request) (*http.Request, error) {
	method := r.method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(t.fill(r.body))
	}
	req, err := http.NewRequestWithContext(ctx, method, t.host+t.fill(r.path), body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", firstOf(r.accept, "application/json"))
	if r.body != "" {
		req.Header.Set("Content-Type", firstOf(r.ctype, "application/json"))
	}
	for k, v := range r.header {
		req.Header.Set(k, t.fill(v))
	}
	return req, nil
}

// run sends r, polling a setup request that asks for it, and saves the
// variables r names from the answer.
func (t *target) run(ctx context.Context, r request) raw {
	deadline := time.Now().Add(r.poll)
	for {
		a := t.send(ctx, r)
		if !r.setup || setupOK(r, a) || time.Now().After(deadline) {
			t.save(r, a)
			return a
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// setupOK tells whether a setup request's answer is one it accepts.
func setupOK(r request, a raw) bool {
	if a.err != nil {
		return false
	}
	if a.code/100 == 2 {
		return true
	}
	for _, c := range r.okCodes {
		if a.code == c {
			return true
		}
	}
	return false
}

// save keeps the variables r names from a JSON answer.
func (t *target) save(r request, a raw) {
	if len(r.save) == 0 {
		return
	}
	doc, err := decodeJSON(a.body)
	if err != nil {
		return
	}
	for name, path := range r.save {
		if vs := valuesAt(doc, path); len(vs) == 1 {
			if s, ok := vs[0].(string); ok {
				t.vars[name] = s
			}
		}
	}
}

// firstOf is s, or def when s is empty.
func firstOf(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
