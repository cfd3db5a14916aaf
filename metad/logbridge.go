package metad

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// newZapBridge returns a zap logger, for the embedded etcd server and the
// etcd client, that writes into log. etcd is chatty at info level (every
// raft tick of a new member, every compaction), so only warnings and errors
// pass, and info too when log is at debug level. Entries for which demote
// returns true are logged at debug level.
func newZapBridge(log *slog.Logger, component string, demote func(msg string, fields map[string]any) bool) *zap.Logger {
	level := zapcore.WarnLevel
	if log.Enabled(context.Background(), slog.LevelDebug) {
		level = zapcore.InfoLevel
	}
	return zap.New(&slogCore{log: log.With("component", component), min: level, demote: demote})
}

// benignEtcdLog reports etcd log entries that are expected and harmless for
// metad's embedded member.
func benignEtcdLog(msg string, fields map[string]any) bool {
	switch msg {
	case "Running http and grpc server on single port. This is not recommended for production.",
		"simple token is not cryptographically signed":
		// Deliberate: metad uses only etcd's gRPC, and auth is off.
		return true
	case "Failed to detect schema version", "failed to update storage version":
		// A new member's storage-version monitor may run before the first
		// term is persisted; etcd retries, and its maintainers call the
		// error harmless (etcd-io/etcd#18978).
		err := fmt.Sprint(fields["error"])
		return strings.Contains(err, "missing term information") || strings.Contains(err, "missing confstate information")
	}
	return false
}

// slogCore is a zapcore.Core that forwards entries to a slog.Logger.
type slogCore struct {
	log    *slog.Logger
	min    zapcore.Level
	demote func(msg string, fields map[string]any) bool
	fields []zapcore.Field
}

func (c *slogCore) Enabled(l zapcore.Level) bool { return l >= c.min }

func (c *slogCore) With(fields []zapcore.Field) zapcore.Core {
	cc := *c
	cc.fields = append(slices.Clip(c.fields), fields...)
	return &cc
}

func (c *slogCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c *slogCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	enc := zapcore.NewMapObjectEncoder()
	for _, f := range c.fields {
		f.AddTo(enc)
	}
	for _, f := range fields {
		f.AddTo(enc)
	}
	level := slogLevel(e.Level)
	if c.demote != nil && c.demote(e.Message, enc.Fields) {
		level = slog.LevelDebug
	}
	if !c.log.Enabled(context.Background(), level) {
		return nil
	}
	keys := make([]string, 0, len(enc.Fields))
	for k := range enc.Fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	attrs := make([]slog.Attr, 0, len(keys)+1)
	if e.LoggerName != "" {
		attrs = append(attrs, slog.String("logger", e.LoggerName))
	}
	for _, k := range keys {
		attrs = append(attrs, slog.Any(k, enc.Fields[k]))
	}
	c.log.LogAttrs(context.Background(), level, e.Message, attrs...)
	return nil
}

func (c *slogCore) Sync() error { return nil }

func slogLevel(l zapcore.Level) slog.Level {
	switch {
	case l <= zapcore.DebugLevel:
		return slog.LevelDebug
	case l == zapcore.InfoLevel:
		return slog.LevelInfo
	case l == zapcore.WarnLevel:
		return slog.LevelWarn
	default:
		return slog.LevelError
	}
}
