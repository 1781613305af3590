package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"

	"github.com/kubesim/kubesim/hack/internal/kubesimweb"
)

// loopback is an HTTP client that never goes through a proxy (the web
// view listens on 127.0.0.1) and keeps a connection per viewer.
func loopback() *http.Client {
	return &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 256}}
}

// teacherClient reads the teacher's stream.
var teacherClient = loopback()

// errEnded stops a viewer's stream once it has the lesson's end.
var errEnded = errors.New("ended")

// crowd is n read-only viewers of one web view. Each goroutine is
// waited for by stop.
type crowd struct {
	n      int
	client *http.Client
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu                        sync.Mutex
	ended, messages, evidence int
	firstErr                  error
	allEnded                  chan struct{} // closed once ended == n
}

// startViewers starts n viewers of p, each fetching the page and its
// assets once, following the event stream without a key, and fetching the
// evidence of the first k arrows it is sent.
func startViewers(ctx context.Context, p *kubesimweb.Play, n, k int) *crowd {
	ctx, cancel := context.WithCancel(ctx)
	c := &crowd{n: n, client: loopback(), cancel: cancel, allEnded: make(chan struct{})}
	if n == 0 {
		close(c.allEnded)
	}
	for range n {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.record(c.viewer(ctx, p.ViewerURL, k))
		}()
	}
	return c
}

// viewer is one viewer's life; it returns errEnded once it read the end.
func (c *crowd) viewer(ctx context.Context, base string, k int) error {
	for _, path := range []string{"/", "/assets/app.js", "/assets/style.css"} {
		if err := c.get(ctx, base, path); err != nil {
			return err
		}
	}
	fetched := 0
	return kubesimweb.Stream(ctx, c.client, base, "", func(m kubesimweb.Message) error {
		c.mu.Lock()
		c.messages++
		c.mu.Unlock()
		switch m.T {
		case "end":
			return errEnded
		case "arrow":
			if fetched >= k {
				return nil
			}
			var a kubesimweb.Arrow
			if err := m.Decode(&a); err != nil {
				return err
			}
			fetched++
			c.mu.Lock()
			c.evidence++
			c.mu.Unlock()
			return c.get(ctx, base, fmt.Sprintf("/api/evidence/%d", a.ID))
		}
		return nil
	})
}

// get fetches base+path and reads it whole; anything but 200 is an error.
func (c *crowd) get(ctx context.Context, base, path string) error {
	u, err := url.Parse(base)
	if err != nil {
		return err
	}
	u = u.ResolveReference(&url.URL{Path: path})
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return nil
}

// record counts a viewer's end (errEnded) or keeps its first error.
func (c *crowd) record(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if errors.Is(err, errEnded) {
		c.ended++
		if c.ended == c.n {
			close(c.allEnded)
		}
		return
	}
	if c.firstErr == nil {
		c.firstErr = err
	}
}

// waitEnded waits until every viewer has read the end, or ctx ends.
func (c *crowd) waitEnded(ctx context.Context) {
	select {
	case <-c.allEnded:
	case <-ctx.Done():
	}
}

// stop ends the viewers' streams and waits for them.
func (c *crowd) stop() {
	c.cancel()
	c.wg.Wait()
}

// totals returns, once stopped, how many viewers read the end, the
// messages and evidence fetches in all, and the first viewer's error.
func (c *crowd) totals() (ended, messages, evidence int, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ended, c.messages, c.evidence, c.firstErr
}
