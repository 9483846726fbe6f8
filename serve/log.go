package serve

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/envoyproxy/go-control-plane/pkg/log"
)

// controlPlaneLogger passes go-control-plane's logs to slog. Its Info
// messages (a line per watch opened) are routine for a server with
// thousands of EDS streams, so they go to Debug with its Debug ones.
type controlPlaneLogger struct{ l *slog.Logger }

var _ log.Logger = controlPlaneLogger{}

func (c controlPlaneLogger) logf(level slog.Level, format string, args ...any) {
	if !c.l.Enabled(context.Background(), level) {
		return // formatting every watch's line would cost more than logging it
	}
	c.l.Log(context.Background(), level, fmt.Sprintf(format, args...), "component", "go-control-plane")
}

func (c controlPlaneLogger) Debugf(format string, args ...any) {
	c.logf(slog.LevelDebug, format, args...)
}
func (c controlPlaneLogger) Infof(format string, args ...any) {
	c.logf(slog.LevelDebug, format, args...)
}
func (c controlPlaneLogger) Warnf(format string, args ...any) {
	c.logf(slog.LevelWarn, format, args...)
}
func (c controlPlaneLogger) Errorf(format string, args ...any) {
	c.logf(slog.LevelError, format, args...)
}
