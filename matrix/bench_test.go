package matrix

import "testing"

// Startup cost: what the first matrix question pays (Default parses once).
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(dataFS); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResolve(b *testing.B) {
	m := Default()
	q := Query{OS: "windows", Driver: "560.94", MSVC: "19.41.34123", GPUs: []GPUQuery{{Name: "NVIDIA GeForce RTX 4090"}, {Name: "GTX 1080"}},
		Toolkits: []string{"12.4.131", "11.8.89"}}
	b.ReportAllocs()
	for b.Loop() {
		m.Resolve(q)
	}
}

func BenchmarkLookupGPUShortForm(b *testing.B) {
	m := Default()
	b.ReportAllocs()
	for b.Loop() {
		m.LookupGPU("rtx 3060 laptop")
		m.LookupGPU("RTX 9090") // unknown: the edit-distance path
	}
}
