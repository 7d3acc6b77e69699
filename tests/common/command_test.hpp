// What the engine tests that run the `adjoint` program share: temporary folders, running a
// command, and the resume check every model's training must pass.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "adjoint/token_file.hpp"
#include "random_tokens.hpp"

namespace command_test {

namespace fs = std::filesystem;

// A fresh folder per test, removed afterwards.
class TempDir {
 public:
  TempDir() : path_(fs::temp_directory_path() / ("adjoint_test_" + std::to_string(::getpid()) + "_" +
                                                 ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The `adjoint` program, built beside this test.
inline std::string adjoint_bin() { return ADJOINT_BIN; }

inline int exit_status(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

inline int run(const std::string& command) { return exit_status(std::system((command + " > /dev/null 2>&1").c_str())); }

struct Output {
  int status;
  std::string out, err;
};

// Runs the command with stdout and stderr kept in files in dir.
inline Output run_output(const std::string& command, const TempDir& dir) {
  const std::string out = dir / "stdout.txt", err = dir / "stderr.txt";
  const int status = std::system((command + " > " + out + " 2> " + err).c_str());
  return {exit_status(status), read_bytes(out), read_bytes(err)};
}

inline std::vector<std::string> loss_lines(const std::string& log) {
  std::vector<std::string> lines;
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("{\"run\"")) continue;  // each run's own record of what ran
    // Timings differ between runs; everything computed must not.
    const auto ms = line.find(",\"ms\"");
    lines.push_back(ms == std::string::npos ? line : line.substr(0, ms));
  }
  return lines;
}

// Training from model_file for 12 steps equals training 5, stopping, and resuming: the same
// model, state and log bytes (timings aside). Token ids are drawn below vocab; extra_flags go to
// every run.
inline void expect_resume_bit_identical(const TempDir& dir, const std::string& model_file, int vocab,
                                        const std::string& extra_flags = "") {
  adjoint::write_token_file(dir / "train.bin", random_tokens(2000, vocab, 8), vocab);
  adjoint::write_token_file(dir / "val.bin", random_tokens(300, vocab, 9), vocab);
  const std::string common = adjoint_bin() + " train --model " + model_file + " --train-tokens " +
                             (dir / "train.bin") + " --val-tokens " + (dir / "val.bin") +
                             " -B 2 -T 8 --steps 12 --warmup 3 --lr 1e-2 --grad-accum 2 --val-every 4"
                             " --sample-tokens 4 --seed 11 " + extra_flags;
  ASSERT_EQ(0, run(common + " --out " + (dir / "full")));
  ASSERT_EQ(0, run(common + " --out " + (dir / "split") + " --stop-at 5"));
  ASSERT_EQ(0, run(common + " --out " + (dir / "split") + " --resume " + (dir / "split/state.bin")));
  EXPECT_EQ(read_bytes(dir / "full/model.bin"), read_bytes(dir / "split/model.bin"));
  EXPECT_EQ(read_bytes(dir / "full/state.bin"), read_bytes(dir / "split/state.bin"));
  EXPECT_EQ(loss_lines(dir / "full/log.jsonl"), loss_lines(dir / "split/log.jsonl"));
  EXPECT_FALSE(loss_lines(dir / "full/log.jsonl").empty());
  // Each run's first record names the GEMM library and kernel it ran.
  std::ifstream log(dir / "full/log.jsonl");
  std::string first;
  std::getline(log, first);
  EXPECT_NE(first.find("\"gemm\":\"gemm: OpenBLAS"), std::string::npos) << first;
}

}  // namespace command_test
