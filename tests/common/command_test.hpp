// What the tests that run the `adjoint` program share: temporary folders, running a
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

// The "--- sample" blocks of a run's output.
inline std::string samples(const std::string& output) {
  std::string found;
  for (std::size_t at = 0; (at = output.find("--- sample", at)) != std::string::npos;) {
    const std::size_t end = output.find("\n---\n", at);
    found += output.substr(at, end - at) + "\n";
    at = end;
  }
  return found;
}

// Training from model_file for 12 steps equals training 5 (a checkpoint right after a sample),
// stopping, and resuming: the same model, state, log (timings aside) and samples. Token ids are
// drawn below vocab; extra_flags go to every run.
inline void expect_resume_bit_identical(const TempDir& dir, const std::string& model_file, int vocab,
                                        const std::string& extra_flags = "") {
  adjoint::write_token_file(dir / "train.bin", random_tokens(2000, vocab, 8), vocab);
  adjoint::write_token_file(dir / "val.bin", random_tokens(300, vocab, 9), vocab);
  const std::string common = adjoint_bin() + " train --train-tokens " + (dir / "train.bin") + " --val-tokens " +
                             (dir / "val.bin") +
                             " -B 2 -T 8 --steps 12 --warmup 3 --lr 1e-2 --grad-accum 2 --val-every 4"
                             " --sample-every 5 --sample-tokens 4 --seed 11 " + extra_flags;
  const std::string init = " --model " + model_file;
  const Output full = run_output(common + init + " --out " + (dir / "full"), dir);
  ASSERT_EQ(0, full.status) << full.err;
  const Output first = run_output(common + init + " --out " + (dir / "split") + " --stop-at 5", dir);
  ASSERT_EQ(0, first.status) << first.err;
  const Output resumed =
      run_output(common + " --out " + (dir / "split") + " --resume " + (dir / "split/state.bin"), dir);
  ASSERT_EQ(0, resumed.status) << resumed.err;
  EXPECT_TRUE(read_bytes(dir / "full/model.bin") == read_bytes(dir / "split/model.bin")) << "model.bin differs";
  EXPECT_TRUE(read_bytes(dir / "full/state.bin") == read_bytes(dir / "split/state.bin")) << "state.bin differs";
  EXPECT_EQ(loss_lines(dir / "full/log.jsonl"), loss_lines(dir / "split/log.jsonl"));
  EXPECT_FALSE(loss_lines(dir / "full/log.jsonl").empty());
  EXPECT_EQ(samples(full.out), samples(first.out) + samples(resumed.out));
  EXPECT_NE(std::string::npos, samples(full.out).find("--- sample at step 12 ---")) << full.out;
  EXPECT_NE(std::string::npos, samples(first.out).find("--- sample at step 5 ---")) << first.out;
  // Each run's first record names the GEMM library and kernel it ran.
  std::ifstream log(dir / "full/log.jsonl");
  std::string first_record;
  std::getline(log, first_record);
  EXPECT_NE(first_record.find("\"gemm\":\"gemm: OpenBLAS"), std::string::npos) << first_record;
}

}  // namespace command_test
