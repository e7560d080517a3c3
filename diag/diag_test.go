package diag_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/ocfetch/ocfetch/diag"
)

func TestLevelFiltering(t *testing.T) {
	levels := []struct {
		name  string
		level slog.Level
	}{{"L1", diag.L1}, {"L2", diag.L2}, {"L3", diag.L3}, {"L4", diag.L4}}
	for n := 0; n <= diag.MaxVerbosity; n++ {
		for i, lv := range levels {
			t.Run(fmt.Sprintf("verbosity%d/%s", n, lv.name), func(t *testing.T) {
				var buf bytes.Buffer
				log := diag.NewPlain(&buf, n)
				log.Log(context.Background(), lv.level, "event")
				got := buf.String()
				wantShown := i < n
				if shown := got != ""; shown != wantShown {
					t.Fatalf("at verbosity %d, %s record shown = %v (output %q); want %v", n, lv.name, shown, got, wantShown)
				}
				if wantShown && !strings.Contains(got, "level="+lv.name+" ") {
					t.Errorf("output %q; want level=%s", got, lv.name)
				}
			})
		}
	}
}

func TestErrorsShownFromVerbosityOne(t *testing.T) {
	var buf bytes.Buffer
	log := diag.NewPlain(&buf, 1)
	log.Error("file refused", "file", "rules.json")
	log.Warn("slow")
	if got, want := buf.String(), "level=ERROR msg=\"file refused\" file=rules.json\nlevel=WARN msg=slow\n"; got != want {
		t.Errorf("got %q; want %q", got, want)
	}
}

func TestNewIncludesTime(t *testing.T) {
	var buf bytes.Buffer
	diag.New(&buf, 1).Info("x")
	if !strings.HasPrefix(buf.String(), "time=") {
		t.Errorf("got %q; want a time= prefix", buf.String())
	}
}

func TestOffIsDiscard(t *testing.T) {
	var buf bytes.Buffer
	for _, log := range []*slog.Logger{diag.New(&buf, 0), diag.NewPlain(&buf, -1), diag.Discard(), diag.For(nil, diag.DomainCLI)} {
		log.Error("boom")
		if log.Enabled(context.Background(), slog.LevelError) {
			t.Errorf("Enabled(LevelError) = true; want false for an off logger")
		}
	}
	if buf.Len() != 0 {
		t.Errorf("off loggers wrote %q; want nothing", buf.String())
	}
}

func TestParseLevel(t *testing.T) {
	tests := []struct {
		in      string
		want    int
		wantErr bool
	}{
		{"", 0, false}, {"0", 0, false}, {"1", 1, false}, {"2", 2, false}, {"3", 3, false}, {"4", 4, false},
		{"5", 0, true}, {"-1", 0, true}, {"01", 0, true}, {" 2", 0, true}, {"two", 0, true}, {"true", 0, true},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%q", tc.in), func(t *testing.T) {
			got, err := diag.ParseLevel(tc.in)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("ParseLevel(%q) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestLevelFromEnv(t *testing.T) {
	t.Setenv(diag.EnvVar, "3")
	if got, err := diag.LevelFromEnv(); err != nil || got != 3 {
		t.Errorf("LevelFromEnv() with %s=3 = %d, %v; want 3, nil", diag.EnvVar, got, err)
	}
	t.Setenv(diag.EnvVar, "verbose")
	_, err := diag.LevelFromEnv()
	if err == nil || !strings.Contains(err.Error(), diag.EnvVar) {
		t.Errorf("LevelFromEnv() with a bad value: error %v; want one naming %s", err, diag.EnvVar)
	}
}

func TestVerbosity(t *testing.T) {
	tests := []struct {
		env    string
		vCount int
		want   int
	}{{"", 0, 0}, {"", 2, 2}, {"3", 1, 3}, {"1", 3, 3}, {"", 9, 4}, {"4", 0, 4}}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("env%q/v%d", tc.env, tc.vCount), func(t *testing.T) {
			t.Setenv(diag.EnvVar, tc.env)
			if got, err := diag.Verbosity(tc.vCount); err != nil || got != tc.want {
				t.Errorf("Verbosity(%d) = %d, %v; want %d", tc.vCount, got, err, tc.want)
			}
		})
	}
	t.Setenv(diag.EnvVar, "7")
	if _, err := diag.Verbosity(1); err == nil {
		t.Errorf("Verbosity with %s=7: got nil error; want one", diag.EnvVar)
	}
}

func TestFor(t *testing.T) {
	var buf bytes.Buffer
	diag.For(diag.NewPlain(&buf, 2), diag.DomainEgress).Log(context.Background(), diag.L2, "refused", "addr", "10.0.0.1")
	if got, want := buf.String(), "level=L2 msg=refused domain=EGRESS addr=10.0.0.1\n"; got != want {
		t.Errorf("got %q; want %q", got, want)
	}
}

func TestRedaction(t *testing.T) {
	secret := "https://example.com/private?token=s3cret"
	urlErr := &url.Error{Op: "Get", URL: secret, Err: errors.New("connection refused")}
	tests := []struct {
		name string
		log  func(*slog.Logger)
		want string
	}{
		{"url key", func(l *slog.Logger) { l.Info("x", "url", secret, "host", "example.com") }, "level=L1 msg=x host=example.com\n"},
		{"key case-insensitive", func(l *slog.Logger) { l.Info("x", "URL", secret, "Path", "/private") }, "level=L1 msg=x\n"},
		{"query header headers body", func(l *slog.Logger) {
			l.Info("x", "query", "token=s3cret", "header", "Authorization: s3cret", "headers", map[string]string{"Cookie": "s3cret"}, "body", "s3cret", "status", 200)
		}, "level=L1 msg=x status=200\n"},
		{"suffix", func(l *slog.Logger) { l.Info("x", "request_url", secret, "raw_query", "a=s3cret", "curl", "kept") }, "level=L1 msg=x curl=kept\n"},
		{"group named headers", func(l *slog.Logger) {
			l.Info("x", slog.Group("headers", "Cookie", "s3cret"), slog.Group("resp", "status", 200, "body", "s3cret"))
		}, "level=L1 msg=x resp.status=200\n"},
		{"with attrs", func(l *slog.Logger) { l.With("url", secret, "n", 1).Info("x") }, "level=L1 msg=x n=1\n"},
		{"with group headers", func(l *slog.Logger) {
			l.WithGroup("headers").With("Cookie", "s3cret").Info("x", "Authorization", "s3cret")
		}, "level=L1 msg=x\n"},
		{"nested group", func(l *slog.Logger) {
			l.Info("x", slog.Group("req", slog.Group("meta", "query", "a=s3cret", "method", "GET")), "after", 1)
		}, "level=L1 msg=x req.meta.method=GET after=1\n"},
		{"url error", func(l *slog.Logger) { l.Info("x", "err", fmt.Errorf("fetch: %w", urlErr)) }, "level=L1 msg=x err=\"Get [url redacted]: connection refused\"\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			tc.log(diag.NewPlain(&buf, 1))
			if got := buf.String(); got != tc.want {
				t.Errorf("got %q; want %q", got, tc.want)
			}
			if strings.Contains(buf.String(), "s3cret") || strings.Contains(buf.String(), "/private") {
				t.Errorf("output %q leaks a secret", buf.String())
			}
		})
	}
}

func TestHandlerOptionsForJSON(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(diag.Redacting(slog.NewJSONHandler(&buf, diag.HandlerOptions(3))))
	log.Log(context.Background(), diag.L3, "rule matched", "body", "s3cret")
	log.Log(context.Background(), diag.L4, "hidden")
	if got := buf.String(); !strings.Contains(got, `"level":"L3"`) || strings.Contains(got, "s3cret") || strings.Contains(got, "hidden") {
		t.Errorf("got %q; want one L3 record without the body", got)
	}
}

func TestEnabled(t *testing.T) {
	log := diag.NewPlain(&bytes.Buffer{}, 2)
	ctx := context.Background()
	if !diag.Enabled(ctx, log, diag.L2) || diag.Enabled(ctx, log, diag.L3) || diag.Enabled(ctx, nil, diag.L1) {
		t.Errorf("Enabled: got L2 %v, L3 %v, nil %v; want true, false, false",
			diag.Enabled(ctx, log, diag.L2), diag.Enabled(ctx, log, diag.L3), diag.Enabled(ctx, nil, diag.L1))
	}
}

func Example() {
	// In a command: n, err := diag.Verbosity(vCount); log := diag.New(os.Stderr, n)
	log := diag.NewPlain(os.Stdout, 2)
	local := diag.For(log, diag.DomainLocal)
	ctx := context.Background()
	local.Log(ctx, diag.L2, "local admitted", "port", 8080)
	local.Log(ctx, diag.L3, "allowlist ports", "ports", []int{3000, 8080}) // hidden at verbosity 2
	local.Log(ctx, diag.L2, "local refused", "port", 9000, "url", "http://localhost:9000/admin?key=x")
	// Output:
	// level=L2 msg="local admitted" domain=LOCAL port=8080
	// level=L2 msg="local refused" domain=LOCAL port=9000
}
