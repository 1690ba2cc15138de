//go:build !windows

package doctorcmd_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cli"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/testutil"
)

// doctor --rpc on two real workers (Debian sid's ggml-rpc-server: a Vulkan
// device capped at 64 MiB and the CPU) with sid's llama-server as the
// engine: both compatible, each with its devices, protocol, command round
// trip and a measured transfer rate (--json and the Chinese human output).
func TestRealRPCDoctorTransfer(t *testing.T) {
	testutil.RealEngines(t)
	dir := testutil.VulkanEngineDir(t)
	bin := filepath.Join(dir, "ggml-rpc-server")
	vk := testutil.StartRPCWorker(t, bin, []string{"VK_FAKE_TOTAL_MIB=64", "GGML_VK_VISIBLE_DEVICES=0"}, "-d", "Vulkan0")
	cpu := testutil.StartRPCWorker(t, bin, []string{"GGML_VK_VISIBLE_DEVICES="}, "-d", "CPU")
	t.Setenv("LLAMACTL_ENGINE_DIR", dir)
	_, d := realDoctor(t, "--rpc", vk+","+cpu, "--rpc-transfer-mib", "16")
	if len(d.RPC) != 2 {
		t.Fatalf("%+v", d.RPC)
	}
	for _, w := range d.RPC {
		t.Logf("%s: protocol %s, %d bytes: upload %.0f MiB/s, download %.0f MiB/s, command %.3f ms, TCP %.3f ms",
			w.Endpoint, w.Protocol, w.TransferBytes, w.UploadMiBs, w.DownloadMiBs, w.CmdRTTMS, w.RTTMS)
		if !w.Compatible || len(w.Devices) != 1 || w.Protocol != "8.0.0" || w.TransferBytes != 16<<20 ||
			w.UploadMiBs <= 0 || w.DownloadMiBs <= 0 || w.CmdRTTMS <= 0 || w.TransferError != "" {
			t.Errorf("%+v", w)
		}
	}
	f := cmdutil.New()
	var out, errOut bytes.Buffer
	f.IO.Out, f.IO.ErrOut = &out, &errOut
	cli.Execute(f, []string{"doctor", "--rpc", vk, "--rpc-transfer-mib", "1", "--lang", "zh-CN"})
	if s := out.String(); !strings.Contains(s, vk+"：与引擎的 RPC 协议相同") || !strings.Contains(s, "传输测试 1 MiB（RPC 协议 8.0.0）：上传 ") {
		t.Errorf("%s\n%s", s, errOut.String())
	}
}
