package kernels

// DoctorFindings are probe findings as doctor lists them: the same shape,
// with the failure ID moved into Facts["failure_id"] (doctor's --json has
// no failure_id field). fs is not changed.
func DoctorFindings(fs []Finding) []Finding {
	out := make([]Finding, 0, len(fs))
	for _, f := range fs {
		if f.Fix != nil {
			fix := *f.Fix
			f.Fix = &fix
		}
		if len(f.Facts) > 0 || f.FailureID != "" {
			facts := map[string]string{}
			for k, v := range f.Facts {
				facts[k] = v
			}
			if f.FailureID != "" {
				facts["failure_id"] = f.FailureID
			}
			f.Facts = facts
		}
		f.FailureID = ""
		out = append(out, f)
	}
	return out
}
