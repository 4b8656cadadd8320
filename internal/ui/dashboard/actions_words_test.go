package dashboard

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/approval"
)

// A refused answer names the dashboard's key, not a flag of the command
// line nor the core's bare field name.
func TestAnswerRefusalsNameTheDashboardsKeys(t *testing.T) {
	r := approval.Request{ID: "plan-1", Kind: approval.KindPlan}
	_, err := approval.Response(r, approval.Decision{Approve: true, Always: true})
	if err == nil {
		t.Fatal("denying with always was accepted")
	}
	got := answerWords(fmt.Errorf("answer: %w", err)).Error()
	if !strings.Contains(got, "A (always allow)") || strings.Contains(got, "--always") {
		t.Fatalf("refusal = %q; want it to name the A key", got)
	}
	plain := errors.New("disk full")
	if answerWords(plain) != plain {
		t.Fatal("an error that is no DecisionError was reworded")
	}
}
