// Binary file helpers shared by the model, state and token file formats: reads that name the
// file when it is short, and writes that never leave a half-written file behind.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace adjoint {

// Opens a regular file for reading; throws "cannot open <path>: <reason>" (also for a folder).
std::FILE* open_for_reading(const std::string& path);
// Reads exactly bytes or throws "<path>: truncated file (<what>)".
void read_exact(std::FILE* file, void* out, std::size_t bytes, const std::string& path,
                const char* what);
// The size of an open file in bytes.
std::size_t file_size(std::FILE* file);

// Makes what was renamed or created in the folder durable (fsync of the folder).
void sync_directory(const std::string& path);
// Throws "not enough free space in <dir> for <what>: it needs 1802 KB, 1536 KB are free" (in
// bytes, KB, MB, GB or TB) unless the file system holding dir (which must exist) has bytes free.
void check_free_space(const std::string& dir, std::uint64_t bytes, const std::string& what);

// Writes to "<path>.tmp", syncs it to disk and renames it to path on commit(); destroyed
// without commit(), or on any write error, it removes the temporary file, so readers see the
// old file or the new one, never a partial one, even after a crash.
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
