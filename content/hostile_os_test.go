package content

import "runtime"

var isDarwin = runtime.GOOS == "darwin"
