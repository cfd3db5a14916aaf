package raftgroup

import (
	"context"
	"fmt"
	"log/slog"
)

// raftLogger adapts slog to raft.Logger. The raft package logs every
// election and term change at Info; those go to Debug here except the few
// that mean trouble, because with hundreds of groups per store they would
// drown everything else.
type raftLogger struct{ log *slog.Logger }

func (l raftLogger) Debug(v ...any)                 { l.log.Debug(fmt.Sprint(v...)) }
func (l raftLogger) Debugf(format string, v ...any) { l.log.Debug(fmt.Sprintf(format, v...)) }
func (l raftLogger) Info(v ...any)                  { l.log.Debug(fmt.Sprint(v...)) }
func (l raftLogger) Infof(format string, v ...any)  { l.log.Debug(fmt.Sprintf(format, v...)) }
func (l raftLogger) Warning(v ...any)               { l.log.Warn(fmt.Sprint(v...)) }
func (l raftLogger) Warningf(format string, v ...any) {
	l.log.Warn(fmt.Sprintf(format, v...))
}
func (l raftLogger) Error(v ...any)                 { l.log.Error(fmt.Sprint(v...)) }
func (l raftLogger) Errorf(format string, v ...any) { l.log.Error(fmt.Sprintf(format, v...)) }
func (l raftLogger) Fatal(v ...any)                 { l.fatal(fmt.Sprint(v...)) }
func (l raftLogger) Fatalf(format string, v ...any) { l.fatal(fmt.Sprintf(format, v...)) }
func (l raftLogger) Panic(v ...any)                 { l.fatal(fmt.Sprint(v...)) }
func (l raftLogger) Panicf(format string, v ...any) { l.fatal(fmt.Sprintf(format, v...)) }

// fatal panics: raft calls it only on broken invariants, where continuing
// could corrupt the replica.
func (l raftLogger) fatal(msg string) {
	l.log.Log(context.Background(), slog.LevelError+4, msg)
	panic(msg)
}
