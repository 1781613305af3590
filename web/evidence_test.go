package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestEvidenceOfAnArrow(t *testing.T) {
	srv, _, sess := startServer(t)
	sess.rec.Record(lessonRequest("/api/v1/namespaces/default/pods/web"))
	page := openStream(t, srv, "", "")
	page.waitFor("arrow", nil)
	for _, lang := range []string{"en", "zh"} {
		resp, err := http.Get(srv.URL() + "api/evidence/1?lang=" + lang)
		if err != nil {
			t.Fatal(err)
		}
		var ev evidenceMsg
		err = json.NewDecoder(resp.Body).Decode(&ev)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("evidence 1 (%s): %s, %v", lang, resp.Status, err)
		}
		if len(ev.Lines) == 0 || ev.Lines[0].Role != "heading" || !strings.Contains(ev.Lines[0].Text, "GET /api/v1/namespaces/default/pods/web") {
			t.Errorf("evidence 1 (%s) = %+v, want the request's trace, its heading first", lang, ev.Lines)
		}
	}
	for path, want := range map[string]int{"api/evidence/99": 404, "api/evidence/x": 400, "": 200, "assets/app.js": 200} {
		resp, err := http.Get(srv.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET /%s: %d, want %d", path, resp.StatusCode, want)
		}
	}
}
