// Shared by the GPU-side generators of recorded test data (tests/refvec/refvec.cu,
// tests/sequences/gpu_vectors.cu): CUDA error checks and the gzip writer of TSMREFV1 files.
#pragma once

#include <cuda_runtime.h>
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

inline void check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) throw std::runtime_error(what + ": " + cudaGetErrorString(e));
}

/// A TSMREFV1 file: the 8-byte magic, then little-endian records; finish() writes the terminator.
class GzWriter {
 public:
  explicit GzWriter(const std::string& path) : path_(path), f_(gzopen(path.c_str(), "wb9")) {
    if (!f_) throw std::runtime_error("cannot write " + path);
    write("TSMREFV1", 8);
  }
  ~GzWriter() {
    if (f_) gzclose(f_);
  }
  GzWriter(const GzWriter&) = delete;
  GzWriter& operator=(const GzWriter&) = delete;
  void write(const void* p, size_t n) {
    if (gzwrite(f_, p, static_cast<unsigned>(n)) != static_cast<int>(n)) throw std::runtime_error("write failed: " + path_);
  }
  void le(uint64_t v, int bytes) {
    uint8_t b[8];
    for (int i = 0; i < bytes; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
    write(b, static_cast<size_t>(bytes));
  }
  void finish() {
    le(0, 2);  // a zero-length name ends the file
    if (gzclose(f_) != Z_OK) throw std::runtime_error("close failed: " + path_);
    f_ = nullptr;
  }

 private:
  std::string path_;
  gzFile f_;
};
