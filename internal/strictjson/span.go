package strictjson

// Structure calls at, in order, for each '[', '{', ']', '}', ',' and ':'
// of the JSON text data outside strings, with its index and the nesting
// depth after it (a ',' or ':' leaves the depth as it was); at returns
// false to stop there. It is the one scanner of JSON structure in the
// project: strings (with their escapes) are skipped, nothing recurses,
// and it ends on any input, valid or not, with the depth going negative
// past an unmatched closing bracket.
func Structure(data []byte, at func(i, depth int) bool) {
	structure(data, 0, at)
}

func structure(data []byte, start int, at func(i, depth int) bool) {
	depth, inString, escaped := 0, false, false
	for i := start; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		case c == '"':
			inString = true
			continue
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		case c != ',' && c != ':':
			continue
		}
		if !at(i, depth) {
			return
		}
	}
}

// Span returns the text of the array or object that starts at data[start]
// (a Value's Offset), up to and including its matching bracket; for text
// that ends first, the rest of data.
func Span(data []byte, start int) []byte {
	end := len(data)
	structure(data, start, func(i, depth int) bool {
		if depth == 0 && (data[i] == ']' || data[i] == '}') {
			end = i + 1
			return false
		}
		return true
	})
	return data[start:end]
}

// Depth returns the deepest nesting of arrays and objects in the JSON text
// data (0 for a scalar), without recursion, so that a caller can bound
// nesting before handing the text to a recursive decoder.
func Depth(data []byte) int {
	deepest := 0
	structure(data, 0, func(_, depth int) bool {
		deepest = max(deepest, depth)
		return true
	})
	return deepest
}
