// Package matrix is llamactl's CUDA compatibility matrix: which GPU has
// which compute capability, what each CUDA toolkit needs (driver, host
// compiler) and can target, and Resolve, which picks the CUDA version,
// CMAKE_CUDA_ARCHITECTURES and host compiler for a machine or names what
// blocks it, with the fix.
//
// The facts are embedded data (data/*.json), converted from the research in
// ../shared/reference/cuda-matrix.json and cuda-matrix.md; every row keeps
// its source and uncertain flag. The rules Resolve applies are those of
// cuda-matrix.md §1 (driver and minor-version compatibility, architecture
// windows, host compilers, the MSVC STL check) and its pitfalls §2; docs/
// matrix.md describes them and how to update the data.
package matrix
