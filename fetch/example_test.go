package fetch_test

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/ocfetch/ocfetch/fetch"
)

func ExampleFetch_PrepareCall() {
	f := fetch.NewFetch(nil, nil) // PrepareCall needs no client
	req, _, err := f.PrepareCall(context.Background(), uuid.New(),
		`{"url": "https://Docs.Example.COM./guide?page=2#intro", "headers": {"Authorization": "Bearer t0k3n"}}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(req.Tool, req.Requirements, req.Grants.Empty())

	// PrepareCall only parses: whether http may be used is policy.Decide's.
	_, _, err = f.PrepareCall(context.Background(), uuid.New(), `{"url": "http://docs.example.com:/guide"}`)
	fmt.Println(err)
	_, _, err = f.PrepareCall(context.Background(), uuid.New(), `{"url": "https://１２７.０.０.１/"}`)
	fmt.Println(err)
	// Output:
	// fetch [network docs.example.com:443] true
	// <nil>
	// invalid_host: the host is spelled with look-alike characters that IDNA maps to "127.0.0.1"; write it in ASCII (look-alike host spelling)
}

func ExampleFetch_AuditSummary() {
	f := fetch.NewFetch(nil, nil)
	fmt.Println(f.AuditSummary(`{"url": "https://user:pw@api.example.com/v1/items?key=secret", "method": "post", "body": "x"}`))
	fmt.Println(f.AuditSummary(`not json`))
	// Output:
	// POST api.example.com
	// FETCH <unparseable arguments>
}

func ExampleRender() {
	out := fetch.Output{
		Status:         200,
		URL:            "https://example.com/",
		Headers:        map[string]string{"content-type": "text/html", "server": "nginx"},
		Content:        "# Example Domain",
		Format:         "markdown",
		Truncated:      true,
		NextStartIndex: 16,
		Remaining:      120,
	}
	fmt.Println(fetch.Render(out))
	// Output:
	// HTTP 200 OK
	// url: https://example.com/
	// content-type: text/html
	// server: nginx
	//
	// # Example Domain
	//
	// [content truncated: 120 more characters; call again with start_index=16 to read on]
}
