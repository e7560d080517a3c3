package search

import (
	"fmt"
	"strings"
)

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }
func contains(s, sub string) bool            { return strings.Contains(s, sub) }
