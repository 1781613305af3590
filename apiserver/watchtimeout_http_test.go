package apiserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A watch asked to last 999999999999999999 seconds (more than a
// time.Duration holds) stays open: it delivers the events of pods created
// after it started, instead of ending at once.
func TestWatchHugeTimeoutStaysOpen(t *testing.T) {
	ts := startServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.url+"/api/v1/namespaces/default/pods?watch=1&timeoutSeconds=999999999999999999", nil)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	timer := time.AfterFunc(waitTimeout, cancel)
	defer timer.Stop()
	dec := json.NewDecoder(resp.Body)
	for i := range 3 {
		name := fmt.Sprintf("long-watch-%d", i)
		mustCreatePod(t, ts.client, "default", testPod(name, nil))
		waitAdded(t, dec, name)
	}
}

// A negative timeoutSeconds is a 400 with a Status.
func TestWatchNegativeTimeout(t *testing.T) {
	ts := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.url+"/api/v1/namespaces/default/pods?watch=1&timeoutSeconds=-1", nil)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("status %d, want 400", resp.StatusCode)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var st metav1.Status
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("body %q: %v", data, err)
	}
	want := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Message:  "timeoutSeconds: Invalid value: -1: must be greater than or equal to 0",
		Reason:   metav1.StatusReasonBadRequest,
		Code:     http.StatusBadRequest,
	}
	if st.TypeMeta != want.TypeMeta || st.Status != want.Status || st.Message != want.Message || st.Reason != want.Reason || st.Code != want.Code || st.Details != nil {
		t.Errorf("status\n%s\nwant %+v", data, want)
	}
}
