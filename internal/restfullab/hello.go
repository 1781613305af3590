package restfullab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"

	restful "github.com/emicklei/go-restful/v3"
)

// The two Containers of the seed's example, as Answer names them, and
// what their GET /hello writes.
const (
	DefaultContainer = "restful.DefaultContainer"
	NewContainer     = "restful.NewContainer()"
	DefaultWorld     = "default world\n"
	SecondWorld      = "second world\n"
)

// registerDefault adds the seed's WebService to restful.DefaultContainer,
// once per process: the Container is global, and adding a second
// WebService with the same root path would make go-restful exit.
var registerDefault sync.Once

// Hello is the seed's example: GET /hello on restful.DefaultContainer and
// on a restful.NewContainer(), each served by its own http.Server on
// 127.0.0.1 (port 0: a free one). StartHello starts it; Close stops it.
type Hello struct {
	second  *restful.Container
	servers []*http.Server
	urls    []string
	wg      sync.WaitGroup
}

// Answer is what one Container answered to GET /hello.
type Answer struct {
	// Container is DefaultContainer or NewContainer; ServeMux the
	// http.ServeMux its http.Server hands requests to.
	Container, ServeMux string
	// WebServices are the root paths of the Container's WebServices.
	WebServices []string
	URL         string
	Status      int
	Body        string
}

// StartHello builds the two Containers as the seed does (a WebService
// with no root path, which Add roots at "/", with the route GET /hello)
// and serves each on a loopback port of its own. restful.Add registers
// DefaultContainer's dispatch on http.DefaultServeMux at "/" (once per
// process); that ServeMux is what its server serves, as the seed's
// http.ListenAndServe(":8080", nil) does. Nothing else in the process may
// add a WebService rooted at "/" to restful.DefaultContainer (go-restful
// exits on a duplicate root path). The caller must Close h.
func StartHello() (*Hello, error) {
	registerDefault.Do(func() {
		ws := new(restful.WebService)
		ws.Route(ws.GET("/hello").To(func(_ *restful.Request, resp *restful.Response) { io.WriteString(resp, DefaultWorld) }))
		restful.Add(ws)
	})
	h := &Hello{second: restful.NewContainer()}
	ws2 := new(restful.WebService)
	ws2.Route(ws2.GET("/hello").To(func(_ *restful.Request, resp *restful.Response) { io.WriteString(resp, SecondWorld) }))
	h.second.Add(ws2)
	for _, handler := range []http.Handler{http.DefaultServeMux, h.second} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			h.Close()
			return nil, fmt.Errorf("restfullab: listen: %w", err)
		}
		srv := &http.Server{Handler: handler, ErrorLog: log.New(io.Discard, "", 0)} // nothing on the terminal
		h.servers, h.urls = append(h.servers, srv), append(h.urls, "http://"+ln.Addr().String())
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			srv.Serve(ln) // returns http.ErrServerClosed once Close shuts it down
		}()
	}
	return h, nil
}

// Call sends GET /hello to each Container's server over HTTP, the
// default one first.
func (h *Hello) Call(ctx context.Context) ([]Answer, error) {
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	containers := []struct {
		name, mux string
		c         *restful.Container
	}{
		{DefaultContainer, "http.DefaultServeMux", restful.DefaultContainer},
		{NewContainer, "the Container's own http.ServeMux", h.second},
	}
	var out []Answer
	for i, c := range containers {
		a := Answer{Container: c.name, ServeMux: c.mux, URL: h.urls[i] + "/hello"}
		for _, ws := range c.c.RegisteredWebServices() {
			a.WebServices = append(a.WebServices, ws.RootPath())
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.URL, nil)
		if err != nil {
			return out, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return out, fmt.Errorf("restfullab: GET %s: %w", a.URL, err)
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		if err != nil {
			return out, fmt.Errorf("restfullab: GET %s: %w", a.URL, err)
		}
		a.Status, a.Body = resp.StatusCode, string(body)
		out = append(out, a)
	}
	return out, nil
}

// Close stops both servers and waits for their goroutines. The
// registration on restful.DefaultContainer stays: it is the process's.
func (h *Hello) Close() error {
	var errs []error
	for _, srv := range h.servers {
		errs = append(errs, srv.Close())
	}
	h.wg.Wait()
	return errors.Join(errs...)
}
