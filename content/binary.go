package content

import (
	"bytes"
	"fmt"
	"image"
	_ "image/gif"  // DecodeConfig for GIF headers
	_ "image/jpeg" // DecodeConfig for JPEG headers
	_ "image/png"  // DecodeConfig for PNG headers
)

// describeBinary is the one line shown instead of a binary body: its type,
// size and, for GIF, JPEG and PNG images, its dimensions (read from the
// header only).
func describeBinary(mediaType string, body []byte) string {
	if mediaType == "" {
		mediaType = "application/octet-stream"
	}
	dims := ""
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(body)); err == nil {
		dims = fmt.Sprintf(", %d×%d pixels", cfg.Width, cfg.Height)
	}
	return fmt.Sprintf("[binary content: %s%s, %s]", mediaType, dims, formatSize(len(body)))
}

func formatSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d bytes", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KiB (%d bytes)", float64(n)/1024, n)
	default:
		return fmt.Sprintf("%.1f MiB (%d bytes)", float64(n)/(1024*1024), n)
	}
}
