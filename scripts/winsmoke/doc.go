// Package winsmoke is the smoke suite of the real llamactl.exe under wine
// (scripts/stages/20-windows.sh sets LLAMACTL_WINE_SMOKE=1 and runs it as
// root on Linux): every command a Windows user runs first, with exit codes
// and content asserted, and every recorded Windows machine of
// testdata/doctor/recordings materialized inside wine (files where Windows
// keeps them, stand-in vswhere.exe / cl.exe / nvcc.exe / nvidia-smi.exe
// replaying their recorded outputs, registry values, environment) and
// diagnosed by the real doctor, whose findings must be the ones the
// recording expects. winsetup is the Windows-side helper that builds such a
// machine.
package winsmoke
