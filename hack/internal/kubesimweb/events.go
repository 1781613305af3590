package kubesimweb

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Message is one message of the web view's event stream (the `data:`
// JSON): T is its type, Raw the whole object for the fields of that type.
type Message struct {
	ID  string // the SSE id, "<epoch>.<n>" ("" for hello)
	T   string
	Raw json.RawMessage
}

// Arrow is the part of an `arrow` message the tools read.
type Arrow struct {
	ID    int    `json:"id"`
	Stage int    `json:"stage"`
	Kind  string `json:"kind"`
	From  string `json:"from"`
	To    string `json:"to"`
	Label string `json:"label"`
	Pod   string `json:"pod"`
	Hops  []struct {
		Server  string `json:"server"`
		Outcome string `json:"outcome"`
	} `json:"hops"`
}

// Held is one boundary of a `hold` message.
type Held struct {
	Point     string `json:"point"`
	After     int    `json:"after"`
	Component string `json:"component"`
	Object    string `json:"object"`
	Step      bool   `json:"step"`
}

// Hold is a `hold` message.
type Hold struct {
	Held []Held `json:"held"`
	Mode string `json:"mode"`
}

// Step is a `step` message.
type Step struct {
	Index  int    `json:"index"`
	Total  int    `json:"total"`
	ID     string `json:"id"`
	Done   bool   `json:"done"`
	Result string `json:"result"`
	Error  string `json:"error"`
	Answer int    `json:"answer"`
}

// End is an `end` message.
type End struct {
	Error string `json:"error"`
}

// Decode decodes m's object into v (an *Arrow, *Hold, *Step...).
func (m Message) Decode(v any) error { return json.Unmarshal(m.Raw, v) }

// Stream reads base's event stream (/api/events, with key when not "")
// and calls fn for each message, until ctx ends, the stream ends or fn
// returns an error (which Stream returns).
func Stream(ctx context.Context, client *http.Client, base, key string, fn func(Message) error) error {
	u, err := url.Parse(base)
	if err != nil {
		return err
	}
	u = u.ResolveReference(&url.URL{Path: "/api/events"})
	if key != "" {
		u.RawQuery = url.Values{"key": {key}}.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u.Redacted(), resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	var id string
	var data strings.Builder
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data.Len() > 0 {
				if err := dispatch(id, data.String(), fn); err != nil {
					return err
				}
			}
			id = ""
			data.Reset()
		case strings.HasPrefix(line, "id:"):
			id = strings.TrimSpace(strings.TrimPrefix(line, "id:"))
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		return err
	}
	return ctx.Err()
}

// dispatch decodes one message's data and hands it to fn.
func dispatch(id, data string, fn func(Message) error) error {
	var head struct {
		T string `json:"t"`
	}
	if err := json.Unmarshal([]byte(data), &head); err != nil {
		return fmt.Errorf("message %s: %w: %q", id, err, data)
	}
	return fn(Message{ID: id, T: head.T, Raw: json.RawMessage(data)})
}
