package probe

import "runtime"

func goosHost() string { return runtime.GOOS }
