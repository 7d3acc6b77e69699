#include "adjoint/file_io.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace adjoint {

std::FILE* open_for_reading(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  return file;
}

void read_exact(std::FILE* file, void* out, std::size_t bytes, const std::string& path,
                const char* what) {
  if (std::fread(out, 1, bytes, file) != bytes) {
    throw std::runtime_error(path + ": truncated file (" + what + ")");
  }
}

std::size_t file_size(std::FILE* file) {
  const long here = std::ftell(file);
  std::fseek(file, 0, SEEK_END);
  const long end = std::ftell(file);
  std::fseek(file, here, SEEK_SET);
  return end < 0 ? 0 : std::size_t(end);
}

AtomicFileWriter::AtomicFileWriter(std::string path)
    : path_(std::move(path)), tmp_path_(path_ + ".tmp") {
  file_ = std::fopen(tmp_path_.c_str(), "wb");
  if (!file_) throw std::runtime_error("cannot write " + tmp_path_ + ": " + std::strerror(errno));
}

AtomicFileWriter::~AtomicFileWriter() {
  if (file_) {
    std::fclose(file_);
    std::remove(tmp_path_.c_str());
  }
}

void AtomicFileWriter::write(const void* data, std::size_t bytes) {
  if (std::fwrite(data, 1, bytes, file_) != bytes) {
    throw std::runtime_error("write to " + tmp_path_ + " failed: " + std::strerror(errno));
  }
}

void AtomicFileWriter::commit() {
  const bool flushed = std::fflush(file_) == 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!flushed || !closed || std::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(tmp_path_.c_str());
    throw std::runtime_error("cannot write " + path_ + ": " + reason);
  }
}

}  // namespace adjoint
