package kubelet

import (
	"path"
	"strings"
	"time"
	"unicode"
)

// imageLine is a line an image's program writes as it starts: at is how
// long after the start (base duration, scaled by speed), text makes the
// line from the time it is written.
type imageLine struct {
	at   time.Duration
	text func(t time.Time) string
}

// startLines are what a well-known image would print at start, written
// for kubesim in the style of each program's own log (its time format,
// its kind of message) so that a learner recognises it; they are not the
// program's real output, and no program runs. Images kubesim does not
// know print nothing of their own.
func startLines(img imageName) []imageLine {
	ver := imageVersion(img)
	switch path.Base(img.repo) {
	case "nginx":
		return nginxLines(ver)
	case "mysql", "mariadb":
		return mysqlLines(ver)
	case "postgres":
		return postgresLines(ver)
	case "redis":
		return redisLines(ver)
	case "httpd":
		return httpdLines(ver)
	}
	return nil
}

// imageVersion is the image's tag when it looks like a version (1.27,
// 8.4-oracle: "1.27", "8.4"), else "".
func imageVersion(img imageName) string {
	tag := img.tag
	if tag == "" || !unicode.IsDigit(rune(tag[0])) {
		return ""
	}
	if i := strings.IndexFunc(tag, func(r rune) bool { return r != '.' && !unicode.IsDigit(r) }); i > 0 {
		tag = tag[:i]
	}
	return tag
}

// spaced is " "+v, or "" for no version.
func spaced(v string) string {
	if v == "" {
		return ""
	}
	return " " + v
}

func fixed(at time.Duration, s string) imageLine {
	return imageLine{at: at, text: func(time.Time) string { return s }}
}

func nginxLines(ver string) []imageLine {
	ts := func(t time.Time) string { return t.UTC().Format("2006/01/02 15:04:05") }
	notice := func(at time.Duration, msg string) imageLine {
		return imageLine{at: at, text: func(t time.Time) string { return ts(t) + " [notice] 1#1: " + msg }}
	}
	return []imageLine{
		fixed(0, "/docker-entrypoint.sh: running the start-up scripts of /docker-entrypoint.d/"),
		fixed(0, "/docker-entrypoint.sh: start-up scripts done; starting nginx"),
		notice(0, "nginx"+spaced(ver)+" starting, master process 1"),
		notice(0, "listening on 0.0.0.0:80"),
		notice(0, "worker processes started"),
	}
}

func mysqlLines(ver string) []imageLine {
	ts := func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }
	sys := func(at time.Duration, msg string) imageLine {
		return imageLine{at: at, text: func(t time.Time) string { return ts(t) + " 0 [System] [Server] " + msg }}
	}
	return []imageLine{
		{at: 0, text: func(t time.Time) string {
			return ts(t) + " [Entrypoint]: MySQL Server" + spaced(ver) + " entrypoint started"
		}},
		{at: 0, text: func(t time.Time) string {
			return ts(t) + " [Entrypoint]: data directory found, skipping initialisation"
		}},
		sys(0, "mysqld"+spaced(ver)+" starting as process 1"),
		sys(time.Second, "InnoDB initialisation done"),
		sys(2*time.Second, "mysqld: ready for connections on port 3306"),
	}
}

func postgresLines(ver string) []imageLine {
	ts := func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05.000 UTC") }
	log := func(at time.Duration, msg string) imageLine {
		return imageLine{at: at, text: func(t time.Time) string { return ts(t) + " [1] LOG:  " + msg }}
	}
	return []imageLine{
		fixed(0, "PostgreSQL database directory appears to contain a database; skipping initialisation"),
		log(0, "starting PostgreSQL"+spaced(ver)),
		log(0, "listening on IPv4 address \"0.0.0.0\", port 5432"),
		log(time.Second, "database system is ready to accept connections"),
	}
}

func redisLines(ver string) []imageLine {
	ts := func(t time.Time) string { return t.UTC().Format("02 Jan 2006 15:04:05.000") }
	line := func(at time.Duration, msg string) imageLine {
		return imageLine{at: at, text: func(t time.Time) string { return "1:M " + ts(t) + " * " + msg }}
	}
	return []imageLine{
		line(0, "Redis"+spaced(ver)+" starting, pid=1"),
		line(0, "Server initialised"),
		line(0, "Ready to accept connections tcp"),
	}
}

func httpdLines(ver string) []imageLine {
	ts := func(t time.Time) string { return t.UTC().Format("Mon Jan 02 15:04:05.000000 2006") }
	return []imageLine{
		{at: 0, text: func(t time.Time) string {
			return "[" + ts(t) + "] [mpm_event:notice] [pid 1:tid 1] Apache httpd" + spaced(ver) + " configured, resuming normal operations"
		}},
	}
}
