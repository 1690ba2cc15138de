package plan

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/machine"
)

// A Debian 12 machine: bookworm's headers (239) as the system's, sid's (363)
// unpacked privately.
func vulkanCase(t *testing.T) Input {
	in := loadCase(t, "linux-debian-cpu-local")
	in.Backend = "vulkan"
	in.Engine.BuildNumber = 0 // a --source tree of unknown version: the markers decide
	in.Snapshot.Vulkan = machine.Vulkan{Glslc: "/usr/bin/glslc", SPIRVHeaders: true, Headers: []machine.VulkanHeaders{
		{IncludeDir: "/usr/include", Version: 239, Complete: "1.3.239", Origin: "system"},
		{IncludeDir: "/var/cache/llamactl/vulkan-headers/sid/usr/include", Version: 363, Complete: "1.4.363", Origin: "private"},
	}}
	in.Source = SourceFacts{Scanned: true, VulkanNeeds: []string{"vk-ext-layer-settings"}}
	return in
}

func TestVulkanHeadersTooOldRefusedWithChoices(t *testing.T) {
	p, err := Make(vulkanCase(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Blockers) != 1 || p.Blockers[0].ID != VulkanHeadersFailure {
		t.Fatalf("blockers = %v", p.Blockers)
	}
	txt := p.Blockers[0].Text
	for _, want := range []string{"vk::LayerSettingEXT", "1.3.268", "/usr/include, are 1.3.239", "--heal", "Vulkan_INCLUDE_DIR=/var/cache/llamactl/vulkan-headers/sid/usr/include", "--ref b7205"} {
		if !strings.Contains(txt, want) {
			t.Errorf("blocker lacks %q:\n%s", want, txt)
		}
	}
	// Nothing newer on the machine: the fix says how to get headers beside the system's.
	in := vulkanCase(t)
	in.Snapshot.Vulkan.Headers = in.Snapshot.Vulkan.Headers[:1]
	in.CacheDir = "/home/u/.cache/llamactl"
	p, _ = Make(in)
	if len(p.Blockers) != 1 || !strings.Contains(p.Blockers[0].Text, "git clone --depth 1 --branch v1.4.309 https://github.com/KhronosGroup/Vulkan-Headers /home/u/.cache/llamactl/vulkan-headers/v1.4.309") {
		t.Errorf("blockers = %v", p.Blockers)
	}
	in.Snapshot.OS.GOOS = "windows"
	in.Snapshot.MSVC = nil
	p, _ = Make(in)
	if !strings.Contains(strings.Join(blockerIDs(p), " "), VulkanHeadersFailure) || !strings.Contains(p.Blockers[len(p.Blockers)-1].Text, "KhronosGroup.VulkanSDK") {
		t.Errorf("windows blockers = %v", p.Blockers)
	}
}

func TestVulkanHeadersHealAndUserChoice(t *testing.T) {
	for name, mod := range map[string]func(*Input){
		"--heal":          func(in *Input) { in.Heal = true },
		"diagnosed":       func(in *Input) { in.Symptoms = []string{VulkanHeadersFailure} },
		"no marker, heal": func(in *Input) { in.Source.VulkanNeeds = nil; in.Symptoms = []string{VulkanHeadersFailure} },
	} {
		in := vulkanCase(t)
		mod(&in)
		p, err := Make(in)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := cacheValue(p, "Vulkan_INCLUDE_DIR")
		if len(p.Blockers) != 0 || v != "/var/cache/llamactl/vulkan-headers/sid/usr/include" || !strings.Contains(strings.Join(patchIDs(p), " "), VulkanHeadersID) {
			t.Errorf("%s: blockers %v, Vulkan_INCLUDE_DIR %q, patches %v", name, p.Blockers, v, patchIDs(p))
		}
	}
	// The user's own headers are checked, not overridden.
	in := vulkanCase(t)
	in.Heal = true
	in.CMakeArgs = []string{"Vulkan_INCLUDE_DIR=/usr/include"}
	p, _ := Make(in)
	if len(p.Blockers) != 1 || p.Blockers[0].ID != VulkanHeadersFailure {
		t.Errorf("user's old headers: blockers %v", p.Blockers)
	}
	in.CMakeArgs = []string{"-DVulkan_INCLUDE_DIR=/var/cache/llamactl/vulkan-headers/sid/usr/include"}
	p, _ = Make(in)
	if len(p.Blockers) != 0 || len(patchIDs(p)) != len(patchIDs(mustMake(t, vulkanCaseNoNeed(t)))) {
		t.Errorf("user's new headers: blockers %v, patches %v", p.Blockers, patchIDs(p))
	}
	// A tree without the marker (older llama.cpp) builds with the system's headers.
	if p := mustMake(t, vulkanCaseNoNeed(t)); len(p.Blockers) != 0 {
		t.Errorf("no marker: blockers %v", p.Blockers)
	}
}

func vulkanCaseNoNeed(t *testing.T) Input {
	in := vulkanCase(t)
	in.Source.VulkanNeeds = nil
	return in
}

func mustMake(t *testing.T, in Input) Plan {
	t.Helper()
	p, err := Make(in)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestVulkanGlslcLackingAFeatureIsRefused(t *testing.T) {
	in := vulkanCaseNoNeed(t)
	in.Source.Glslc = "/usr/bin/glslc"
	in.Source.GlslcNeeds = []string{"glslc-khr-cooperative-matrix"}
	in.Source.GlslcLacks = map[string]string{"glslc-khr-cooperative-matrix": "coopmat.comp:3: error: '#extension' : extension not supported: GL_KHR_cooperative_matrix"}
	p := mustMake(t, in)
	if len(p.Blockers) != 1 || p.Blockers[0].ID != "vulkan-glslc-too-old" || !strings.Contains(p.Blockers[0].Text, "Vulkan_GLSLC_EXECUTABLE") || !strings.Contains(p.Blockers[0].Text, "GL_KHR_cooperative_matrix") {
		t.Errorf("blockers = %v", p.Blockers)
	}
	in.Source.GlslcLacks = nil
	if p := mustMake(t, in); len(p.Blockers) != 0 {
		t.Errorf("a glslc that passed: blockers %v", p.Blockers)
	}
}

func TestWebUIDownloadOffWhenTheTreeHasIt(t *testing.T) {
	in := vulkanCaseNoNeed(t)
	p := mustMake(t, in)
	if _, ok := cacheValue(p, "LLAMA_USE_PREBUILT_UI"); ok {
		t.Errorf("a tree without the option got it: %v", p.Cache)
	}
	in.Source.Options = []string{"LLAMA_USE_PREBUILT_UI"}
	p = mustMake(t, in)
	if v, _ := cacheValue(p, "LLAMA_USE_PREBUILT_UI"); v != "OFF" || len(p.Offline) == 0 || !strings.Contains(p.Text(), "Offline (the build does not reach the network)") {
		t.Errorf("cache %v offline %v", p.Cache, p.Offline)
	}
	// Asked for explicitly: the user wins, with the network warning.
	in.CMakeArgs = []string{"LLAMA_USE_PREBUILT_UI=ON"}
	p = mustMake(t, in)
	if v, _ := cacheValue(p, "LLAMA_USE_PREBUILT_UI"); v != "ON" {
		t.Errorf("user's ON lost: %v", p.Cache)
	}
}

func TestTargetsLimitTheCompile(t *testing.T) {
	in := vulkanCaseNoNeed(t)
	in.Targets = []string{"llama-server"}
	p := mustMake(t, in)
	if got := strings.Join(p.Build.Args, " "); !strings.HasSuffix(got, "--target llama-server") {
		t.Errorf("build args %q", got)
	}
}

func TestVulkanMessagesComplete(t *testing.T) {
	src, err := os.ReadFile("vulkan.go")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?:blocker|warn|message)\("([a-z0-9-]+)`)
	for _, u := range re.FindAllStringSubmatch(string(src), -1) {
		if _, ok := messageTable()[u[1]]; !ok && !strings.HasSuffix(u[1], "-") {
			t.Errorf("message %q is not in data/messages.json", u[1])
		}
	}
	for _, id := range []string{"fix-vulkan-headers-linux", "fix-vulkan-headers-windows", "fix-vulkan-glslc-linux", "fix-vulkan-glslc-windows", VulkanHeadersFailure} {
		if _, ok := messageTable()[id]; !ok {
			t.Errorf("message %q missing", id)
		}
	}
	for _, r := range Vulkan().HeaderRequirements {
		if r.MinHeader == 0 || r.Marker == "" || len(r.Sources) == 0 || !strings.Contains(strings.Join(r.Sources, " "), "https://") {
			t.Errorf("requirement %+v lacks data or a public source", r)
		}
	}
}

// The Vulkan plans' own lines (headers reason, the headers fix, targets,
// offline) render in Chinese with --lang zh-CN; the English text keeps
// them word for word.
func TestVulkanPlanTextInChinese(t *testing.T) {
	zh := NewTranslator("zh-CN")
	heal := vulkanCase(t)
	heal.Heal = true
	fine := vulkanCaseNoNeed(t)
	fine.Targets = []string{"llama-server"}
	fine.Source.Options = []string{"LLAMA_USE_PREBUILT_UI"}
	newer := vulkanCase(t)
	newer.CMakeArgs = []string{"-DVulkan_INCLUDE_DIR=/var/cache/llamactl/vulkan-headers/sid/usr/include"}
	for name, c := range map[string]struct {
		in      Input
		en, zhs []string
	}{
		"heal": {heal, []string{"use the newer Vulkan headers on this machine", "the headers CMake finds by default (/usr/include, VK_HEADER_VERSION 239) are too old: this source uses"},
			[]string{"使用本机上更新的 Vulkan 头文件", "CMake 默认找到的头文件（/usr/include，VK_HEADER_VERSION 239）太旧：这份源码用到"}},
		"targets, offline": {fine, []string{"Vulkan headers 1.3.239 (VK_HEADER_VERSION 239) at /usr/include", "Targets: llama-server (only these are compiled)", "Offline (the build does not reach the network):", "LLAMA_USE_PREBUILT_UI=OFF: llama.cpp's build"},
			[]string{"Vulkan 头文件 1.3.239（VK_HEADER_VERSION 239），位于 /usr/include", "目标：llama-server（只编译这些）", "离线构建（构建过程不访问网络）：", "LLAMA_USE_PREBUILT_UI=OFF：llama.cpp 的构建会下载"}},
		"new enough": {newer, []string{"Vulkan headers 1.4.363 (VK_HEADER_VERSION 363) at /var/cache/llamactl/vulkan-headers/sid/usr/include: this source needs 268 or newer"},
			[]string{"Vulkan 头文件 1.4.363（VK_HEADER_VERSION 363），位于 /var/cache/llamactl/vulkan-headers/sid/usr/include：这份源码需要 268 或更新"}},
	} {
		p := mustMake(t, c.in)
		en, txt := p.Text(), p.TextIn(zh)
		for _, w := range c.en {
			if !strings.Contains(en, w) {
				t.Errorf("%s: English text lacks %q:\n%s", name, w, en)
			}
		}
		for _, w := range c.zhs {
			if !strings.Contains(txt, w) {
				t.Errorf("%s: Chinese text lacks %q:\n%s", name, w, txt)
			}
		}
	}
}
