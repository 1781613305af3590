package web

import (
	"context"
	"embed"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/tui"
)

// DefaultAddr is where the web view listens unless told: loopback only,
// any free port. A classroom network needs an explicit address
// (0.0.0.0:PORT), which shows the lesson to anyone who can reach it.
const DefaultAddr = "127.0.0.1:0"

//go:embed assets
var assets embed.FS

// Config configures a Server.
type Config struct {
	// Addr is the address to listen on (DefaultAddr when empty).
	Addr string
	// Driver starts the lesson, as it does for the terminal UI.
	Driver tui.Driver
	// Scenario is the lesson Driver starts; a restart starts it again.
	Scenario string
	// Start is the mode, speed and language the lesson starts with
	// (flow.ModeOff, serve's, lets every pod through until the teacher
	// picks auto or step).
	Start tui.StartOptions
	// Replay says the lesson is a recording played again (the page says
	// so); Restart is then allowed too (the recording plays again).
	Replay bool
	// NoRestart says Driver's session cannot be started again (serve's
	// running cluster): the restart control answers 409.
	NoRestart bool
	// Key is the teacher's key; empty makes a random one.
	Key string
}

// Server serves the web view of one lesson at a time.
type Server struct {
	cfg     Config
	key     string
	hub     *hub
	quiz    *quiz
	ln      net.Listener
	http    *http.Server
	closing chan struct{}
	wg      sync.WaitGroup
	ctx     context.Context
	cancel  context.CancelFunc

	mu       sync.Mutex // guards the fields below
	cur      *lesson
	mode     flow.Mode
	speed    float64
	lang     string
	starting bool // a start or restart is under way

	closeOnce sync.Once
}

// New checks cfg and returns a Server, not yet listening.
func New(cfg Config) (*Server, error) {
	if cfg.Driver == nil {
		return nil, errors.New("web: no driver to start the lesson with")
	}
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	key := cfg.Key
	if key == "" {
		var err error
		if key, err = newKey(); err != nil {
			return nil, err
		}
	}
	mode := cfg.Start.Mode
	lang := cfg.Start.Lang
	if lang != "zh" {
		lang = "en"
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{cfg: cfg, key: key, hub: newHub(), closing: make(chan struct{}), ctx: ctx, cancel: cancel,
		mode: mode, speed: cfg.Start.Speed, lang: lang}
	s.quiz = newQuiz(s)
	return s, nil
}

// Start listens on the configured address and starts the lesson (which
// boots a cluster: it may take a while; ctx ends it).
func (s *Server) Start(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	s.ln = ln
	s.http = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = s.http.Serve(ln)
	}()
	return s.startLesson(ctx)
}

// URL is the read-only page's address (the class's).
func (s *Server) URL() string {
	if s.ln == nil {
		return ""
	}
	return "http://" + s.ln.Addr().String() + "/"
}

// TeacherURL is the address of the page with the controls: URL with
// the key.
func (s *Server) TeacherURL() string { return s.URL() + "?key=" + s.key }

// Key is the teacher's key.
func (s *Server) Key() string { return s.key }

// Handler serves the page, its assets and its API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(static)))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		http.ServeFileFS(w, r, static, "index.html")
	})
	mux.HandleFunc("GET /api/events", s.handleEvents)
	mux.HandleFunc("GET /api/evidence/", s.handleEvidence)
	mux.HandleFunc("POST /api/control", s.handleControl)
	mux.HandleFunc("POST /api/answer", s.handleAnswer)
	return mux
}

// Close stops the lesson and its cluster, ends every page's stream and
// stops listening. A start under way (a restart) is cancelled and waited
// for first.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.closing)
		s.cancel()
		if s.http != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = s.http.Shutdown(ctx)
		}
		s.wg.Wait() // the listener's goroutine and any restart
		s.mu.Lock()
		l := s.cur
		s.cur = nil
		s.mu.Unlock()
		if l != nil {
			err = l.stop()
		}
	})
	return err
}

// lesson is the lesson playing now (nil while none does).
func (s *Server) lesson() *lesson {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

// hello is a connection's first message.
func (s *Server) hello(role string) helloMsg {
	s.mu.Lock()
	defer s.mu.Unlock()
	return helloMsg{T: "hello", Role: role, Epoch: s.hub.current(), Scenario: s.scenario(), Lang: s.lang,
		Mode: s.mode.String(), Speed: s.speed, CanRestart: !s.cfg.NoRestart, Replay: s.cfg.Replay}
}

// scenario describes the lesson, nil when there is none (serve).
func (s *Server) scenario() *scenarioMsg {
	if s.cfg.Scenario == "" {
		return nil
	}
	for _, sc := range s.cfg.Driver.Scenarios() {
		if sc.Name == s.cfg.Scenario {
			return &scenarioMsg{Name: sc.Name, Title: sc.Title, Summary: sc.Summary, Steps: sc.Steps}
		}
	}
	return &scenarioMsg{Name: s.cfg.Scenario}
}
