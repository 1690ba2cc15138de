// Package matrix is llamactl's CUDA compatibility matrix: which GPU has
// which compute capability, what each CUDA toolkit needs (driver, host
// compiler) and can target, and Resolve, which picks the CUDA version,
// CMAKE_CUDA_ARCHITECTURES and host compiler for a machine or names what
// blocks it, with the fix.
//
// The facts are embedded data (data/*.json); every row keeps its public
// source (NVIDIA's release notes and installation guides, llama.cpp files
// and issues) and an uncertain flag. The rules Resolve applies (driver and
// minor-version compatibility, architecture windows, host compilers, the
// MSVC STL check) are described in docs/matrix.md, with how to update the data.
package matrix
