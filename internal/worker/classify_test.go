package worker

import (
	"errors"
	"fmt"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
)

func TestClassifyRun(t *testing.T) {
	t.Parallel()
	transient := errors.New("connection reset")
	permanent := pipeline.Permanent(errors.New("401 invalid api key"))
	rejected := fmt.Errorf("plan: %w", pipeline.Rejected("independence_rules", "names no source"))
	tests := []struct {
		name string
		end  runEnd
		want runAction
	}{
		{"a run that ended is stored done", runEnd{}, storeDone},
		{"a run that ended on the last attempt is stored done", runEnd{final: true}, storeDone},
		{"an outage the breaker reported without a failure is stored done", runEnd{outage: true}, storeDone},
		{"an open breaker holds the job whatever the failure", runEnd{err: transient, outage: true, open: true}, holdForModel},
		{"an open breaker holds even bad input", runEnd{err: rejected, outage: true, open: true}, holdForModel},
		{"an open breaker holds a permanent error", runEnd{err: permanent, outage: true, open: true, final: true}, holdForModel},
		{"bad input for the method is rejected", runEnd{err: rejected}, recordRejected},
		{"bad input is rejected on the last attempt too", runEnd{err: rejected, final: true}, recordRejected},
		{"bad input is rejected during an outage below the threshold", runEnd{err: rejected, outage: true, final: true}, recordRejected},
		{"a permanent error stores the failed run", runEnd{err: permanent}, storeFailed},
		{"a permanent error on the last attempt stores the failed run", runEnd{err: permanent, final: true}, storeFailed},
		{"a permanent error of an outage is retried", runEnd{err: permanent, outage: true}, recordRetry},
		{"a permanent error of an outage on the last attempt holds", runEnd{err: permanent, outage: true, final: true}, holdForModel},
		{"a transient failure is retried", runEnd{err: transient}, recordRetry},
		{"a transient outage below the threshold is retried", runEnd{err: transient, outage: true}, recordRetry},
		{"a transient outage on the last attempt holds rather than kill the job", runEnd{err: transient, outage: true, final: true}, holdForModel},
		{"a transient failure on the last attempt is the job's dead letter", runEnd{err: transient, final: true}, recordDead},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := classifyRun(tt.end); got != tt.want {
				t.Errorf("classifyRun(%+v) = %s, want %s", tt.end, got, tt.want)
			}
		})
	}
}
