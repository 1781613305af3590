package embedetcd

import (
	"time"

	"go.etcd.io/etcd/client/pkg/v3/logutil"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"gopkg.in/natefinch/lumberjack.v2"
)

// Rotation of a member's log: at logMaxSizeMB the file is renamed with
// its time (etcd-<time>.log) and a new one started; the logMaxBackups
// newest renamed files are kept. etcd's own --enable-log-rotation does
// the same with lumberjack, but registers its file once per process (a
// zap sink), so that a second member in the process, or a member started
// again, would write to the first one's file; kubesim builds the logger
// itself instead. Without rotation, a member that logged a slow-request
// warning per write on a busy machine grew its log by about 110 MB an
// hour.
const (
	logMaxSizeMB  = 100
	logMaxBackups = 3
)

// rotatingLog is a member's log file, rotated.
type rotatingLog struct{ file *lumberjack.Logger }

func newRotatingLog(path string) *rotatingLog {
	return &rotatingLog{file: &lumberjack.Logger{Filename: path, MaxSize: logMaxSizeMB, MaxBackups: logMaxBackups}}
}

// builder is etcd's ZapLoggerBuilder for a logger that writes as etcd's
// default one does (JSON, info level, sampled as
// logutil.DefaultZapLoggerConfig), to the rotated file.
func (l *rotatingLog) builder() func(*embed.Config) error {
	def := logutil.DefaultZapLoggerConfig
	core := zapcore.NewCore(zapcore.NewJSONEncoder(def.EncoderConfig), zapcore.AddSync(l.file), def.Level)
	core = zapcore.NewSamplerWithOptions(core, time.Second, def.Sampling.Initial, def.Sampling.Thereafter)
	return embed.NewZapLoggerBuilder(zap.New(core, zap.AddCaller(), zap.ErrorOutput(zapcore.AddSync(l.file))))
}

// Close closes the file (a later write opens it again).
func (l *rotatingLog) Close() { _ = l.file.Close() }
