package audit_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/ocfetch/ocfetch/audit"
)

func ExampleEntry_Validate() {
	e := audit.Entry{
		Time: time.Now(), ExecutionID: "0b7c", Tool: "fetch",
		Summary:  "GET example.com/account?token=x", // a path and query: refused
		Decision: audit.DecisionAllow, DecidedBy: audit.ByOnce, Outcome: audit.OutcomeOK,
	}
	err := e.Validate()
	fmt.Println(errors.Is(err, audit.ErrInvalidEntry))
	e.Summary = "GET example.com"
	fmt.Println(e.Validate())
	// Output:
	// true
	// <nil>
}
