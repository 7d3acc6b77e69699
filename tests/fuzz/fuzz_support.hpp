// What the loader fuzzers share: the loaders read paths, so each input is written to a file first.
#pragma once
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace adjoint::fuzz {

// A folder of this process's own in the temporary folder, removed at exit.
inline const std::filesystem::path& work_dir() {
  struct Dir {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("adjoint-fuzz-" + std::to_string(::getpid()));
    Dir() { std::filesystem::create_directories(path); }
    ~Dir() { std::filesystem::remove_all(path); }
  };
  static const Dir dir;
  return dir.path;
}

// Writes bytes to work_dir()/name and returns the path.
inline std::string write_file(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const std::string path = (work_dir() / name).string();
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file || std::fwrite(data, 1, size, file) != size || std::fclose(file) != 0) std::abort();
  return path;
}

// Loaders refuse values that are not finite: one that loads such a value is a failure.
inline void require_finite(const float* values, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(values[i])) {
      std::fprintf(stderr, "loaded a value that is not finite at index %zu\n", i);
      std::abort();
    }
  }
}

}  // namespace adjoint::fuzz
