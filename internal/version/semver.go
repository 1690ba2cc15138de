package version

import (
	"strings"

	gv "github.com/hashicorp/go-version"
)

// CompareSemver orders semantic versions with their pre-release part, as
// llamactl's own releases are numbered: "0.2.0-rc1" < "0.2.0" < "v0.2.1",
// and "0.1.0-dev" (an unstamped build) < "0.1.0". Unlike Compare it does not
// cut what follows the numbers. Text that is not a version sorts first, and
// two such texts compare as strings.
func CompareSemver(a, b string) int {
	va, ea := gv.NewSemver(strings.TrimSpace(a))
	vb, eb := gv.NewSemver(strings.TrimSpace(b))
	switch {
	case ea != nil && eb != nil:
		return strings.Compare(a, b)
	case ea != nil:
		return -1
	case eb != nil:
		return 1
	}
	return va.Compare(vb)
}
