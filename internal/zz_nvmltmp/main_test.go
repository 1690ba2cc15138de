package nvmltest
import ("testing"; "github.com/NVIDIA/go-nvml/pkg/nvml")
func TestX(t *testing.T){ r := nvml.Init(); t.Logf("init=%d %s", int(r), nvml.ErrorString(r)) }
