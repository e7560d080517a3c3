package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDockerfile: the image builds the release's binary (the flags of
// .goreleaser.yaml), runs it as a non-root user in /work, and every
// `docker run` of the Dockerfile and the README passes --user and trusts
// the mounted workspace by naming the image's /work.
func TestDockerfile(t *testing.T) {
	read := func(p string) string {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	df, rel, readme := read("../../Dockerfile"), read("../../.goreleaser.yaml"), read("../../README.md")

	// The build: the flags and ldflags goreleaser uses.
	build := regexp.MustCompile(`(?s)RUN (CGO_ENABLED=\S+) go build (.*?)-o /out/ocfetch \./cmd/ocfetch`).FindStringSubmatch(df)
	if build == nil {
		t.Fatal("the Dockerfile has no `RUN CGO_ENABLED=… go build … -o /out/ocfetch ./cmd/ocfetch`")
	}
	if !strings.Contains(rel, "- "+build[1]) {
		t.Errorf("the Dockerfile builds with %s; .goreleaser.yaml's env differs", build[1])
	}
	for _, want := range []string{"-trimpath", "-s -w", "-X main.version=", "-X main.commit=", "-X main.date="} {
		if !strings.Contains(rel, want) {
			t.Errorf(".goreleaser.yaml has no %q (the test's list is out of date)", want)
		}
		if !strings.Contains(build[2], want) {
			t.Errorf("the Dockerfile's go build lacks %q (.goreleaser.yaml has it):\n%s", want, build[2])
		}
	}

	// The final stage: a non-root user, /work, the binary as entrypoint.
	final := df[strings.LastIndex(df, "\nFROM "):]
	user := regexp.MustCompile(`(?m)^USER (\S+)`).FindStringSubmatch(final)
	if user == nil || strings.HasPrefix(user[1], "root") || strings.HasPrefix(user[1], "0") {
		t.Errorf("the image's USER = %v; want a non-root user", user)
	}
	if !regexp.MustCompile(`(?m)^WORKDIR /work$`).MatchString(final) ||
		!regexp.MustCompile(`(?m)^ENTRYPOINT \["/usr/local/bin/ocfetch"\]$`).MatchString(final) ||
		!strings.Contains(final, "COPY --from=build /out/ocfetch /usr/local/bin/ocfetch") {
		t.Errorf("the image's final stage does not run /usr/local/bin/ocfetch in /work:\n%s", final)
	}

	// Every example: --user, and a server trusts the workspace at /work.
	runs := 0
	for name, text := range map[string]string{"Dockerfile": df, "README.md": readme} {
		text = strings.ReplaceAll(text, "\\\n", " ")
		for _, line := range strings.Split(text, "\n") {
			i := strings.Index(line, "docker run ")
			if i < 0 {
				continue
			}
			runs++
			cmd := line[i:]
			if !strings.Contains(cmd, `--user "$(id -u):$(id -g)"`) {
				t.Errorf("%s: %q has no --user", name, cmd)
			}
			if (strings.Contains(cmd, " proxy") || strings.Contains(cmd, " mcp")) &&
				!strings.Contains(cmd, "--trust-root /work") && !strings.Contains(cmd, "-e OCFETCH_TRUST_ROOT=/work") {
				t.Errorf("%s: %q does not trust the mounted /work", name, cmd)
			}
			if !strings.Contains(cmd, `-v "$PWD:/work"`) {
				t.Errorf("%s: %q does not mount the workspace at /work", name, cmd)
			}
		}
	}
	if runs < 4 {
		t.Errorf("found %d docker run examples; want the Dockerfile's two and the README's two", runs)
	}
}
