package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// Durations in the JSON logs read as durations, not as raw nanoseconds.
func TestLogsWriteDurationsAsDurations(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	newLogger(Config{LogLevel: "info", LogFormat: "json"}, &buf).Info("job finished", "took", 1500*time.Millisecond)
	if !strings.Contains(buf.String(), `"took":"1.5s"`) {
		t.Errorf("log line %s: want \"took\":\"1.5s\"", buf.String())
	}
}
