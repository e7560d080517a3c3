package startpages

// A region is a range of the process's address space and how to populate
// it: write (private anonymous memory, the heap) or read (the binary's
// file-backed, read-only segments).
type region struct {
	start, end uintptr
	write      bool
}

// oneShot reports whether a command line (the arguments after the
// program's name) is prefaulted: not when any argument before "--" names
// a [LongRunning] command. A flag's value that happens to equal such a
// name only costs the prefault, never changes what the command does.
func oneShot(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return true
		}
		for _, name := range LongRunning {
			if a == name {
				return false
			}
		}
	}
	return true
}

// regions reads the text of /proc/self/maps and returns every read-only
// mapping of the executable (the file named by the first mapping that
// names a file: the kernel maps the executable first) and, unless heap is
// 0, the start of the anonymous mapping that holds heap, at most
// [HeapBytes] of it. A line it cannot read is skipped; a truncated last
// line is ignored.
func regions(maps []byte, heap uintptr) []region {
	var out []region
	var exe []byte
	for len(maps) > 0 {
		line, rest, complete := cutLine(maps)
		maps = rest
		if !complete {
			break
		}
		m, ok := parseMapping(line)
		if !ok {
			continue
		}
		if exe == nil && len(m.path) > 0 && m.path[0] == '/' {
			exe = m.path
		}
		switch {
		case exe != nil && string(m.path) == string(exe) && m.perms[0] == 'r' && m.perms[1] == '-':
			out = append(out, region{start: m.start, end: m.end})
		case heap != 0 && heap >= m.start && heap < m.end && m.perms[0] == 'r' && m.perms[1] == 'w' && len(m.path) == 0:
			end := m.end
			if end-m.start > HeapBytes {
				end = m.start + HeapBytes
			}
			out = append(out, region{start: m.start, end: end, write: true})
		}
	}
	return out
}

// cutLine splits off the first line of b; complete is false when b holds
// no newline (a line the read cut short).
func cutLine(b []byte) (line, rest []byte, complete bool) {
	for i, c := range b {
		if c == '\n' {
			return b[:i], b[i+1:], true
		}
	}
	return b, nil, false
}

// A mapping is one line of /proc/self/maps:
//
//	start-end perms offset dev inode [path]
type mapping struct {
	start, end uintptr
	perms      [4]byte
	path       []byte
}

func parseMapping(line []byte) (mapping, bool) {
	var m mapping
	start, line, ok := hexField(line, '-')
	if !ok {
		return m, false
	}
	end, line, ok := hexField(line, ' ')
	if !ok || end <= start || len(line) < 5 || line[4] != ' ' {
		return m, false
	}
	m.start, m.end = start, end
	copy(m.perms[:], line[:4])
	line = line[5:]
	for range 3 { // offset, dev, inode; the path, if any, is the rest
		var ok bool
		if line, ok = skipField(line); !ok {
			return m, false
		}
	}
	m.path = line
	return m, true
}

// hexField reads a hexadecimal number ended by sep and returns the rest
// after sep.
func hexField(b []byte, sep byte) (uintptr, []byte, bool) {
	var v uintptr
	for i, c := range b {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c == sep && i > 0:
			return v, b[i+1:], true
		default:
			return 0, nil, false
		}
		if i >= 16 { // more digits than an address holds
			return 0, nil, false
		}
		v = v<<4 | uintptr(d)
	}
	return 0, nil, false
}

// skipField drops one non-empty field and the spaces after it.
func skipField(b []byte) ([]byte, bool) {
	i := 0
	for i < len(b) && b[i] != ' ' {
		i++
	}
	if i == 0 {
		return nil, false
	}
	for i < len(b) && b[i] == ' ' {
		i++
	}
	return b[i:], true
}

// releasable reads the text of /proc/self/smaps and returns the
// executable's read-only mappings (as [regions] finds them) whose
// Anonymous field is 0 kB: none of their pages is a private copy. A
// mapping whose Anonymous line is missing or unreadable is not
// returned.
func releasable(smaps []byte) []region {
	var out []region
	var exe []byte
	var cur mapping
	candidate := false
	for len(smaps) > 0 {
		line, rest, complete := cutLine(smaps)
		smaps = rest
		if !complete {
			break
		}
		if m, ok := parseMapping(line); ok {
			cur = m
			if exe == nil && len(m.path) > 0 && m.path[0] == '/' {
				exe = m.path
			}
			candidate = exe != nil && string(m.path) == string(exe) && m.perms[0] == 'r' && m.perms[1] == '-'
			continue
		}
		const field = "Anonymous:"
		if !candidate || len(line) < len(field) || string(line[:len(field)]) != field {
			continue
		}
		candidate = false
		if kb, ok := kilobytes(line[len(field):]); ok && kb == 0 {
			out = append(out, region{start: cur.start, end: cur.end})
		}
	}
	return out
}

// kilobytes reads an smaps value, "   123 kB".
func kilobytes(b []byte) (int, bool) {
	i := 0
	for i < len(b) && b[i] == ' ' {
		i++
	}
	n, digits := 0, 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if digits == 12 {
			return 0, false
		}
		n = n*10 + int(b[i]-'0')
		digits++
	}
	if digits == 0 || string(b[i:]) != " kB" {
		return 0, false
	}
	return n, true
}
