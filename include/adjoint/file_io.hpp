// Binary file helpers shared by the model, state and token file formats: reads that name the
// file when it is short, and writes that never leave a half-written file behind.
#pragma once
#include <cstddef>
#include <cstdio>
#include <string>

namespace adjoint {

// Opens path for reading; throws "cannot open <path>: <reason>".
std::FILE* open_for_reading(const std::string& path);
// Reads exactly bytes or throws "<path>: truncated file (<what>)".
void read_exact(std::FILE* file, void* out, std::size_t bytes, const std::string& path,
                const char* what);
// The size of an open file in bytes.
std::size_t file_size(std::FILE* file);

// Writes to "<path>.tmp" and renames it to path on commit(); destroyed without commit(), or
// on any write error, it removes the temporary file, so readers see the old file or the new
// one, never a partial one.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(const void* data, std::size_t bytes);
  void commit();

 private:
  std::string path_, tmp_path_;
  std::FILE* file_ = nullptr;
};

}  // namespace adjoint
