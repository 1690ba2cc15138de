# Installs llamactl for the current user, without Go and without admin rights:
#
#   irm https://github.com/llamactl/llamactl/releases/latest/download/install.ps1 | iex
#
# Same steps as install.sh: download checksums.txt and the zip for this CPU,
# check the zip's SHA-256 against checksums.txt, check that llamactl.exe runs,
# and only then put it in %LOCALAPPDATA%\Programs\llamactl and add that folder
# to the user's PATH. A checksum mismatch or a failed download installs nothing.
#
# Environment:
#   LLAMACTL_INSTALL_BASE  where checksums.txt and the archives are (default:
#                          the latest GitHub release)
#   LLAMACTL_INSTALL_DIR   where to put llamactl.exe
#
# It runs inside the caller's session (iex): it never calls exit, and an error
# ends only the function below.

function Install-Llamactl {
    $ErrorActionPreference = 'Stop'
    $ProgressPreference = 'SilentlyContinue' # the progress bar makes downloads slow in Windows PowerShell 5.1
    [Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12

    $defaultBase = 'https://github.com/llamactl/llamactl/releases/latest/download'
    $base = if ($env:LLAMACTL_INSTALL_BASE) { $env:LLAMACTL_INSTALL_BASE.TrimEnd('/') } else { $defaultBase }
    $dir = if ($env:LLAMACTL_INSTALL_DIR) { $env:LLAMACTL_INSTALL_DIR } else { Join-Path $env:LOCALAPPDATA 'Programs\llamactl' }

    $cpu = $env:PROCESSOR_ARCHITECTURE
    try { $cpu = [System.Runtime.InteropServices.RuntimeInformation]::OSArchitecture.ToString() } catch { }
    switch -regex ($cpu) {
        '^(X64|AMD64)$' { $arch = 'amd64' }
        '^(Arm64|ARM64)$' { $arch = 'arm64' }
        default { throw "no llamactl release for the $cpu CPU (there are amd64 and arm64)" }
    }

    $tmp = Join-Path ([IO.Path]::GetTempPath()) ("llamactl-install-" + [Guid]::NewGuid().ToString('N'))
    New-Item -ItemType Directory -Path $tmp | Out-Null
    try {
        Write-Host "Downloading $base/checksums.txt"
        try { Invoke-WebRequest -UseBasicParsing -Uri "$base/checksums.txt" -OutFile "$tmp\checksums.txt" }
        catch { throw "could not download $base/checksums.txt (offline, a proxy, or a wrong LLAMACTL_INSTALL_BASE?): $($_.Exception.Message). Nothing was installed." }

        $pattern = '^([0-9a-fA-F]{64}) [ *]?(llamactl_[0-9][0-9A-Za-z.+~-]*_windows_' + $arch + '\.zip)$'
        $found = @(Get-Content "$tmp\checksums.txt" | ForEach-Object {
                if ($_ -match $pattern) { [pscustomobject]@{ Sum = $Matches[1].ToLower(); Name = $Matches[2] } } })
        if ($found.Count -ne 1) {
            throw "$base/checksums.txt names $($found.Count) llamactl archives for windows/$arch (expected one). Nothing was installed."
        }
        $want = $found[0].Sum
        $name = $found[0].Name
        $version = $name -replace '^llamactl_', '' -replace ('_windows_' + $arch + '\.zip$'), ''

        Write-Host "Downloading $base/$name"
        try { Invoke-WebRequest -UseBasicParsing -Uri "$base/$name" -OutFile "$tmp\$name" }
        catch { throw "the download of $name failed or was cut off: $($_.Exception.Message). Nothing was installed; run this again." }
        $got = (Get-FileHash -Algorithm SHA256 -Path "$tmp\$name").Hash.ToLower()
        if ($got -ne $want) {
            throw "checksum mismatch for ${name}: expected $want (checksums.txt), got $got. The download is damaged or was altered; nothing was installed."
        }

        Expand-Archive -Path "$tmp\$name" -DestinationPath "$tmp\x"
        & "$tmp\x\llamactl.exe" version | Out-Null
        if ($LASTEXITCODE -ne 0) { throw "the downloaded llamactl.exe does not run on this machine (windows/$arch); nothing was installed." }

        New-Item -ItemType Directory -Force -Path $dir | Out-Null
        Copy-Item "$tmp\x\llamactl.exe" "$dir\llamactl.exe.new" -Force
        try { Move-Item "$dir\llamactl.exe.new" "$dir\llamactl.exe" -Force }
        catch {
            Remove-Item "$dir\llamactl.exe.new" -Force -ErrorAction SilentlyContinue
            throw "could not replace $dir\llamactl.exe (is llamactl still running?): $($_.Exception.Message)"
        }
    }
    finally {
        Remove-Item -Recurse -Force $tmp -ErrorAction SilentlyContinue
    }

    # The user's PATH, read and written unexpanded (it may hold %USERPROFILE%...).
    $envKey = [Microsoft.Win32.Registry]::CurrentUser.OpenSubKey('Environment', $true)
    $userPath = [string]$envKey.GetValue('Path', '', 'DoNotExpandEnvironmentNames')
    if (-not (($userPath -split ';') -contains $dir)) {
        $newPath = if ($userPath) { "$userPath;$dir" } else { $dir }
        $envKey.SetValue('Path', $newPath, 'ExpandString')
        # Setting any user variable through .NET tells Explorer the environment
        # changed, so terminals opened from now on see the new PATH.
        [Environment]::SetEnvironmentVariable('LLAMACTL_INSTALL_DIR_ADDED', $dir, 'User')
        [Environment]::SetEnvironmentVariable('LLAMACTL_INSTALL_DIR_ADDED', $null, 'User')
        Write-Host "Added $dir to your user PATH (new terminals see it)."
    }
    $envKey.Close()
    if (-not (($env:Path -split ';') -contains $dir)) { $env:Path = "$env:Path;$dir" }
    Write-Host "Installed llamactl $version to $dir\llamactl.exe"
    Write-Host "Next: llamactl doctor"
}

try { Install-Llamactl }
catch { Write-Host "llamactl install: $($_.Exception.Message)" -ForegroundColor Red }
