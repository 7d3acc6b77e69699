#pragma once
// Helpers for tests that spill: a private temp folder, and the spill files a process has open.
#include "adjoint/tape.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace tape_test {

// Options for a tape in `dir` that may hold `slabs` slabs of `slab_bytes` in memory.
inline adjoint::tape_options budget(const std::filesystem::path& dir, std::size_t slab_bytes,
                             std::size_t slabs) {
  adjoint::tape_options o;
  o.spill_dir = dir;
  o.slab_bytes = slab_bytes;
  o.memory_budget_bytes = slab_bytes * slabs;
  return o;
}


// A fresh folder under the system temp folder, removed with everything in it at scope exit.
class temp_folder {
 public:
  temp_folder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "adjoint-tape-test-XXXXXX");
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~temp_folder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Targets of this process's open file descriptors that lie in `folder`.
inline std::vector<std::string> open_files_in(const std::filesystem::path& folder) {
  std::vector<std::string> found;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    std::string target = std::filesystem::read_symlink(fd.path(), ec).string();
    if (!ec && target.rfind(folder.string() + "/", 0) == 0) found.push_back(target);
  }
  return found;
}

inline bool folder_is_empty(const std::filesystem::path& folder) {
  return std::filesystem::directory_iterator(folder) == std::filesystem::directory_iterator();
}

}  // namespace tape_test
