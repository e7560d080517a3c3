package pdf

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"unicode/utf8"

	"github.com/ocfetch/ocfetch/internal/reexec"
)

// cpuEnv passes the child its CPU limit in seconds.
const cpuEnv = "OCFETCH_PDF_CPU_SECONDS"

func init() { reexec.Register(partName, childMain) }

// childMain is the "pdf-extract" part: it limits itself, reads the PDF
// from standard input, and writes magic, a JSON childHeader line and the
// text to standard output. Its exit status is 0 whenever it answered.
func childMain() int {
	cpu, _ := strconv.Atoi(os.Getenv(cpuEnv))
	if cpu <= 0 {
		cpu = cpuSeconds(Timeout)
	}
	if err := limitSelf(childMemory, cpu); err != nil {
		os.Stderr.WriteString("ocfetch pdf-extract: " + err.Error() + "\n")
		return 1 // never extract without the limits
	}
	debug.SetMemoryLimit(childHeap)
	body, err := io.ReadAll(io.LimitReader(os.Stdin, maxBody))
	if err != nil {
		return 1
	}
	var h childHeader
	var text string
	if err := pdfPrecheck(body); err != nil {
		h.Unsafe = err.Error()
	} else {
		var err error
		text, h.Pages, h.Read, err = pdfText(context.Background(), body)
		if err != nil {
			h.Error = "unreadable"
		}
	}
	if len(text) > maxText {
		k := maxText
		for k > 0 && !utf8.RuneStart(text[k]) {
			k--
		}
		text, h.Cut = text[:k], true
	}
	line, _ := json.Marshal(h)
	os.Stdout.WriteString(magic + string(line) + "\n" + text)
	return 0
}
