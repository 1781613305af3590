package main

import (
	"context"
	"crypto/rand"
	"sync"
)

// result is one request with both servers' answers.
type result struct {
	req           request
	kubesim, peer raw
}

// runVars are the placeholders every server shares: a random id for the
// run and its namespace.
func runVars() map[string]string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = letters[int(b[i])%len(letters)]
	}
	id := string(b)
	return map[string]string{"id": id, "ns": "diff-" + id}
}

// sendAll sends the corpus to both targets, each in its own goroutine
// and in corpus order, and pairs the answers.
func sendAll(ctx context.Context, reqs []request, k, p *target) []result {
	results := make([]result, len(reqs))
	for i, r := range reqs {
		results[i].req = r
	}
	var wg sync.WaitGroup
	for _, t := range []*target{k, p} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, r := range reqs {
				a := t.run(ctx, r)
				if t == k {
					results[i].kubesim = a
				} else {
					results[i].peer = a
				}
			}
		}()
	}
	wg.Wait()
	return results
}
