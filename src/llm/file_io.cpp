#include "adjoint/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace adjoint {

std::FILE* open_for_reading(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  struct stat info {};
  if (fstat(fileno(file), &info) == 0 && S_ISDIR(info.st_mode)) {
    std::fclose(file);
    throw std::runtime_error("cannot open " + path + ": it is a folder, not a file");
  }
  return file;
}

void read_exact(std::FILE* file, void* out, std::size_t bytes, const std::string& path,
                const char* what) {
  if (std::fread(out, 1, bytes, file) != bytes) {
    throw std::runtime_error(path + ": truncated file (" + what + ")");
  }
}

std::size_t file_size(std::FILE* file) {
  struct stat info {};
  return fstat(fileno(file), &info) == 0 && info.st_size > 0 ? std::size_t(info.st_size) : 0;
}

void sync_directory(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) throw std::runtime_error("cannot open folder " + path + ": " + std::strerror(errno));
  const bool synced = ::fsync(fd) == 0;
  const int error = errno;
  ::close(fd);
  if (!synced) throw std::runtime_error("cannot sync folder " + path + ": " + std::strerror(error));
}

namespace {

// bytes in the largest of bytes, KB, MB, GB and TB that leaves at least 10 of it, rounded up or down.
std::string format_bytes(std::uint64_t bytes, bool round_up) {
  const char* units[] = {"bytes", "KB", "MB", "GB", "TB"};
  int unit = 0;
  std::uint64_t scale = 1;
  while (unit < 4 && bytes / (scale * 1024) >= 10) ++unit, scale *= 1024;
  return std::to_string(round_up ? (bytes + scale - 1) / scale : bytes / scale) + " " + units[unit];
}

}  // namespace

void check_free_space(const std::string& dir, std::uint64_t bytes, const std::string& what) {
  struct statvfs info {};
  if (statvfs(dir.c_str(), &info) != 0) throw std::runtime_error("cannot stat " + dir + ": " + std::strerror(errno));
  const std::uint64_t free = std::uint64_t(info.f_bavail) * info.f_frsize;
  if (free < bytes) {
    throw std::runtime_error("not enough free space in " + dir + " for " + what + ": it needs " +
                             format_bytes(bytes, true) + ", " + format_bytes(free, false) + " are free");
  }
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
  if (bytes == 0) return;  // data may be null (an empty vector's), which fwrite must not get
  if (std::fwrite(data, 1, bytes, file_) != bytes) {
    throw std::runtime_error("write to " + tmp_path_ + " failed: " + std::strerror(errno));
  }
}

void AtomicFileWriter::commit() {
  // Synced before the rename: after a crash the new name holds all of the new contents.
  const bool flushed = std::fflush(file_) == 0 && ::fsync(fileno(file_)) == 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!flushed || !closed || std::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(tmp_path_.c_str());
    throw std::runtime_error("cannot write " + path_ + ": " + reason);
  }
  const std::string dir = std::filesystem::path(path_).parent_path().string();
  sync_directory(dir.empty() ? "." : dir);
}

}  // namespace adjoint
