package probe

import (
	_ "embed"
	"encoding/json"
)

//go:embed data/facts.json
var factsJSON []byte

// facts are the sourced lists probes search for (data/facts.json): which
// environment variables matter, which tools, where toolkits live.
var facts = mustFacts()

type factsFile struct {
	EnvAllowlist struct {
		Names    []string `json:"names"`
		Prefixes []string `json:"prefixes"`
	} `json:"env_allowlist"`
	Tools struct {
		Names       []string `json:"names"`
		WindowsOnly []string `json:"windows_only"`
	} `json:"tools"`
	PathextDefault struct {
		Value string `json:"value"`
	} `json:"pathext_default"`
	CUDADefaultDirs struct {
		Windows    []string `json:"windows"`
		LinuxGlobs []string `json:"linux_globs"`
		DebianRoot string   `json:"debian_root"`
		DebianNVCC string   `json:"debian_nvcc"`
	} `json:"cuda_default_dirs"`
	CUDARegistryKey struct {
		Key string `json:"key"`
	} `json:"cuda_registry_key"`
	WindowsDLLs struct {
		Names []string `json:"names"`
		Globs []string `json:"globs"`
	} `json:"windows_dlls"`
	GCCVersioned struct {
		Majors []int `json:"majors"`
	} `json:"gcc_versioned"`
	OpenCL struct {
		LinuxVendorDir    string   `json:"linux_vendor_dir"`
		WindowsVendorsKey string   `json:"windows_vendors_key"`
		LinuxLoaders      []string `json:"linux_loaders"`
	} `json:"opencl"`
	WSL struct {
		LibDir                string   `json:"lib_dir"`
		DriverPackagePrefixes []string `json:"driver_package_prefixes"`
	} `json:"wsl"`
	HIP struct {
		LinuxRoots      []string `json:"linux_roots"`
		WindowsRootGlob string   `json:"windows_root_glob"`
	} `json:"hip"`
	Vulkan struct {
		SPIRVHeaderDirsLinux []string `json:"spirv_header_dirs_linux"`
		SPIRVHeaderRelSDK    string   `json:"spirv_header_rel_sdk"`
		HeaderDirsLinux      []string `json:"header_dirs_linux"`
		PrivateGlobsLinux    []string `json:"private_header_globs_linux"`
		PrivateGlobsWindows  []string `json:"private_header_globs_windows"`
		LoadersLinux         []string `json:"loaders_linux"`
		SPIRVCMakeDirsLinux  []string `json:"spirv_cmake_dirs_linux"`
		SPIRVCMakeRelSDK     []string `json:"spirv_cmake_rel_sdk"`
		WindowsUninstallKey  string   `json:"windows_uninstall_key"`
		WindowsSDKDisplay    string   `json:"windows_sdk_display_prefix"`
	} `json:"vulkan"`
}

func mustFacts() factsFile {
	var f factsFile
	if err := json.Unmarshal(factsJSON, &f); err != nil {
		panic("probe: data/facts.json: " + err.Error()) // caught by TestFactsLoad; a build-time data bug
	}
	return f
}

// EnvAllowlist is the exact variable names doctor records; names starting
// with EnvPrefixes are recorded too.
func EnvAllowlist() (names, prefixes []string) {
	return append([]string(nil), facts.EnvAllowlist.Names...), append([]string(nil), facts.EnvAllowlist.Prefixes...)
}

// StrayDLLGlobs are the llama.cpp/ggml DLL name patterns searched on PATH
// (facts.json windows_dlls.globs); snapshots record each hit under its
// lower-case file name.
func StrayDLLGlobs() []string {
	return append([]string(nil), facts.WindowsDLLs.Globs...)
}
