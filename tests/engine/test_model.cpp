// The model, its files and the `adjoint` command's training loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "adjoint/checkpoint.hpp"
#include "adjoint/file_io.hpp"
#include "adjoint/gpt2.hpp"
#include "adjoint/optimizer.hpp"
#include "adjoint/sampler.hpp"
#include "adjoint/token_file.hpp"
#include "../common/command_test.hpp"
#include "../common/random_tokens.hpp"

namespace {

namespace fs = std::filesystem;
using namespace command_test;
using adjoint::GPT2;
using adjoint::GPT2Config;

GPT2Config tiny_config() { return adjoint::gpt2_config(/*maxT*/ 16, /*V*/ 67, /*L*/ 2, /*NH*/ 3, /*C*/ 24); }

TEST(Model, KvCacheLogitsMatchFullForward) {
  GPT2 model(tiny_config());
  model.init_random(3);
  const int T = 16;
  const std::vector<int> tokens = random_tokens(T, 67, 4);
  model.forward(tokens.data(), nullptr, 1, T);
  const std::vector<float> full(model.logits(), model.logits() + (std::size_t)T * 128);
  adjoint::Generator generator(model);
  for (int t = 0; t < T; t++) {
    const float* logits = generator.feed(tokens[t]);
    for (int v = 0; v < 67; v++) {
      ASSERT_NEAR(logits[v], full[(std::size_t)t * 128 + v], 1e-5f) << "position " << t << " token " << v;
    }
  }
  EXPECT_THROW(generator.feed(0), std::out_of_range);  // past max_seq_len
}

TEST(Model, RejectsImpossibleShapes) {
  GPT2Config c = tiny_config();
  c.channels = 25;  // not divisible by 3 heads
  EXPECT_THROW(GPT2{c}, std::invalid_argument);
  GPT2 model(tiny_config());
  const std::vector<int> tokens(17, 1);
  EXPECT_THROW(model.forward(tokens.data(), tokens.data(), 1, 17), std::invalid_argument);  // T > maxT
  EXPECT_THROW(adjoint::gpt2_config_from_name("gpt9"), std::invalid_argument);
  EXPECT_EQ(adjoint::gpt2_config_from_name("d12").channels, 768);
  EXPECT_EQ(adjoint::gpt2_config_from_name("gpt2-124M").padded_vocab_size, 50304);
}

TEST(Checkpoint, ModelFileRoundTripAndDefects) {
  TempDir dir;
  GPT2 model(tiny_config());
  model.init_random(5);
  const std::string path = dir / "model.bin";
  adjoint::save_model_file(path, model.config(), model.params_memory());
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  auto loaded = adjoint::load_model(path);
  ASSERT_EQ(loaded->num_parameters(), model.num_parameters());
  EXPECT_EQ(0, std::memcmp(loaded->params_memory(), model.params_memory(), model.num_parameters() * 4));

  const std::string bytes = read_bytes(path);
  auto write = [&](const std::string& name, const std::string& content) {
    std::ofstream(dir / name, std::ios::binary) << content;
    return dir / name;
  };
  auto error_of = [](const std::string& p) {
    try {
      adjoint::load_model(p);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of(write("short.bin", bytes.substr(0, bytes.size() - 4))).find("truncated"), std::string::npos);
  EXPECT_NE(error_of(write("header.bin", bytes.substr(0, 100))).find("truncated"), std::string::npos);
  std::string wrong_magic = bytes;
  wrong_magic[0] ^= 1;
  EXPECT_NE(error_of(write("magic.bin", wrong_magic)).find("not a model file"), std::string::npos);
  std::string wrong_version = bytes;
  wrong_version[4] = 2;
  EXPECT_NE(error_of(write("version.bin", wrong_version)).find("version"), std::string::npos);
  EXPECT_NE(error_of(dir / "missing.bin").find("cannot open"), std::string::npos);
}

TEST(Checkpoint, TrainingStateRoundTripAndTruncation) {
  TempDir dir;
  GPT2 model(tiny_config());
  model.init_random(6);
  adjoint::AdamW optimizer(model, {});
  for (std::size_t i = 0; i < optimizer.size(); i++) {
    optimizer.m()[i] = float(i);
    optimizer.v()[i] = float(2 * i);
  }
  adjoint::TrainingProgress progress{42, 1234, 99, 2, 8};
  const std::string path = dir / "state.bin";
  adjoint::save_training_state(path, model, optimizer, progress);
  GPT2 restored(adjoint::read_training_state_config(path));
  adjoint::AdamW restored_optimizer(restored, {});
  const adjoint::TrainingProgress got = adjoint::load_training_state(path, restored, restored_optimizer);
  EXPECT_EQ(got.step, 42);
  EXPECT_EQ(got.data_position, 1234u);
  EXPECT_EQ(got.rng_state, 99u);
  EXPECT_EQ(0, std::memcmp(restored.params_memory(), model.params_memory(), model.num_parameters() * 4));
  EXPECT_EQ(restored_optimizer.v()[7], 14.0f);

  const std::string bytes = read_bytes(path);
  std::ofstream(dir / "short.bin", std::ios::binary) << bytes.substr(0, bytes.size() - 1);
  EXPECT_THROW(adjoint::load_training_state(dir / "short.bin", restored, restored_optimizer), std::runtime_error);
  // A model file is not a training-state file.
  adjoint::save_model_file(dir / "model.bin", model.config(), model.params_memory());
  EXPECT_THROW(adjoint::read_training_state_config(dir / "model.bin"), std::runtime_error);
}

// A negative AdamW second moment would make the next update's sqrt(v) NaN: the state file is
// refused at load, naming the file and the tensor; -0 is a square's value and loads.
TEST(Checkpoint, NegativeSecondMomentIsRefused) {
  TempDir dir;
  GPT2 model(tiny_config());
  model.init_random(6);
  adjoint::AdamW optimizer(model, {});
  const std::size_t wte = std::size_t(model.config().padded_vocab_size) * model.config().channels;
  optimizer.v()[wte + 1] = -0.0f;
  const adjoint::TrainingProgress progress{3, 0, 1, 2, 8};
  const std::string path = dir / "state.bin";
  adjoint::save_training_state(path, model, optimizer, progress);
  GPT2 restored(adjoint::read_training_state_config(path));
  adjoint::AdamW restored_optimizer(restored, {});
  EXPECT_EQ(adjoint::load_training_state(path, restored, restored_optimizer).step, 3);

  optimizer.v()[wte + 5] = -0.25f;
  adjoint::save_training_state(path, model, optimizer, progress);
  try {
    adjoint::load_training_state(path, restored, restored_optimizer);
    ADD_FAILURE() << "a negative second moment loaded";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ": AdamW second moment of wpe[5] is -0.25, below 0 (it is a mean of squares)");
  }
}

// A checkpoint is a folder per step behind the latest symlink; model.bin and state.bin go through it.
TEST(Checkpoint, FolderPairsModelAndStateAndCleansUp) {
  TempDir dir;
  GPT2 model(tiny_config());
  model.init_random(6);
  adjoint::AdamW optimizer(model, {});
  adjoint::TrainingProgress progress{3, 0, 0, 1, 4, 0};
  adjoint::save_checkpoint(dir / "", model, optimizer, progress);
  model.params_memory()[0] += 1.0f;
  progress.step = 4;
  adjoint::save_checkpoint(dir / "", model, optimizer, progress);
  EXPECT_EQ(fs::read_symlink(dir / "latest"), "checkpoint-00000004");
  EXPECT_FALSE(fs::exists(dir / "checkpoint-00000003"));
  EXPECT_EQ(adjoint::load_model(dir / "model.bin")->params_memory()[0], model.params_memory()[0]);
  GPT2 restored(model.config());
  adjoint::AdamW restored_optimizer(restored, {});
  EXPECT_EQ(adjoint::load_training_state(dir / "state.bin", restored, restored_optimizer).step, 4);
  // What a crash leaves: a half-written folder and one latest never pointed to.
  fs::create_directories(dir / "checkpoint-00000005.tmp");
  fs::create_directories(dir / "checkpoint-00000005");
  std::ofstream(dir / "latest.tmp") << "";
  std::ofstream(dir / "notes.txt") << "the user's";
  adjoint::remove_stale_checkpoints(dir / "");
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir / "")) left.push_back(entry.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"checkpoint-00000004", "latest", "model.bin", "notes.txt", "state.bin"}));
}

TEST(FileIo, FreeSpaceCheckNamesTheFolder) {
  TempDir dir;
  EXPECT_NO_THROW(adjoint::check_free_space(dir / "", 1, "a checkpoint"));
  try {
    adjoint::check_free_space(dir / "", std::uint64_t(1) << 62, "a checkpoint");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("not enough free space in " + (dir / "") + " for a checkpoint: it needs ", 0),
              0u)
        << e.what();
    // 2^62 bytes, rounded up in the largest unit that keeps at least 10 of it; the free space rounded down.
    EXPECT_TRUE(std::regex_search(e.what(), std::regex(": it needs 4194304 TB, [0-9]+ (bytes|KB|MB|GB|TB) are free$")))
        << e.what();
  }
}

TEST(Optimizer, LearningRateSchedule) {
  using adjoint::learning_rate;
  EXPECT_FLOAT_EQ(learning_rate(0, 100, 10, 1.0f, 0.1f), 0.1f);
  EXPECT_FLOAT_EQ(learning_rate(9, 100, 10, 1.0f, 0.1f), 1.0f);
  EXPECT_FLOAT_EQ(learning_rate(10, 100, 10, 1.0f, 0.1f), 1.0f);
  EXPECT_NEAR(learning_rate(55, 100, 10, 1.0f, 0.1f), 0.55f, 1e-6);  // half way down the cosine
  EXPECT_NEAR(learning_rate(100, 100, 10, 1.0f, 0.1f), 0.1f, 1e-6);
  EXPECT_FLOAT_EQ(adjoint::clip_scale(0.5, 1.0f), 1.0f);
  EXPECT_NEAR(adjoint::clip_scale(4.0, 1.0f), 0.25f, 1e-6);
  EXPECT_FLOAT_EQ(adjoint::clip_scale(4.0, 0.0f), 1.0f);  // off
}

// The ranged update (what a sharded optimizer calls for its slice) over pieces cut inside tensors
// gives the same bits as AdamW::update over the whole arena, decays each tensor as its own, and
// zeroes the gradients it read.
TEST(Optimizer, RangedUpdateEqualsWholeUpdate) {
  GPT2 whole(tiny_config()), pieces(tiny_config());
  whole.init_random(8);
  pieces.init_random(8);
  const std::size_t n = whole.num_parameters();
  adjoint::AdamW whole_optimizer(whole, {}), pieces_optimizer(pieces, {});
  for (int step = 1; step <= 3; step++) {
    for (std::size_t i = 0; i < n; i++) {
      whole.grads_memory()[i] = pieces.grads_memory()[i] = std::sin(0.37f * float(i) + float(step));
    }
    whole_optimizer.update(whole, 1e-2f, 0.5f, step);
    const std::size_t cuts[] = {0, 1, n / 3, n / 3 + 17, n - 5, n};
    for (std::size_t c = 0; c + 1 < std::size(cuts); c++) {
      const std::size_t at = cuts[c];
      adjoint::adamw_update({}, pieces.parameter_tensors(), at, cuts[c + 1] - at, pieces.params_memory() + at,
                            pieces.grads_memory() + at, pieces_optimizer.m() + at, pieces_optimizer.v() + at, 1e-2f,
                            0.5f, step);
    }
  }
  EXPECT_EQ(0, std::memcmp(whole.params_memory(), pieces.params_memory(), n * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(whole_optimizer.m(), pieces_optimizer.m(), n * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(whole_optimizer.v(), pieces_optimizer.v(), n * sizeof(float)));
  EXPECT_EQ(std::count(pieces.grads_memory(), pieces.grads_memory() + n, 0.0f), std::ptrdiff_t(n));
}

TEST(Train, ResumeIsBitIdentical) {
  TempDir dir;
  GPT2 model(tiny_config());
  model.init_random(7);
  adjoint::save_model_file(dir / "init.bin", model.config(), model.params_memory());
  command_test::expect_resume_bit_identical(dir, dir / "init.bin", 67);
}

TEST(Train, BadInputGivesOneLineErrorAndNonZeroExit) {
  TempDir dir;
  adjoint::write_token_file(dir / "train.bin", random_tokens(100, 67, 8), 67);
  const std::string bin = adjoint_bin();
  EXPECT_NE(0, run(bin + " train --steps 0 --train-tokens " + (dir / "train.bin")));
  EXPECT_NE(0, run(bin + " train --model gpt9 --train-tokens " + (dir / "train.bin")));
  EXPECT_NE(0, run(bin + " train --model d1"));  // no data
  EXPECT_NE(0, run(bin + " train --model d1 --train-tokens " + (dir / "missing.bin")));
  EXPECT_NE(0, run(bin + " train --model d1 -T 2000 --train-tokens " + (dir / "train.bin")));
  EXPECT_NE(0, run(bin + " train --resume " + (dir / "train.bin") + " --train-tokens " + (dir / "train.bin")));
  EXPECT_NE(0, run(bin + " sample --model " + (dir / "train.bin")));
  EXPECT_NE(0, run(bin + " bench --model d1 -B 0"));
  EXPECT_NE(0, run(bin + " frobnicate"));
}

// A model whose vocabulary is not GPT-2's (here 67 tokens) is sampled as token ids, as
// `adjoint train` prints its samples: the ids the model generates from token 0.
TEST(Sample, OtherVocabularyPrintsTokenIds) {
  TempDir dir;
  GPT2 model(tiny_config());
  model.init_random(3);
  adjoint::save_model_file(dir / "tiny.bin", model.config(), model.params_memory());
  const int count = 6;
  const Output sample = run_output(adjoint_bin() + " sample --model " + (dir / "tiny.bin") + " -n 6 --seed 5", dir);
  ASSERT_EQ(0, sample.status) << sample.err;
  adjoint::Generator generator(model);
  adjoint::Rng rng(5);
  std::string expected;
  int token = 0;
  for (int i = 0; i < count; i++) {
    token = adjoint::sample_token(generator.feed(token), model.config().vocab_size, 1.0f, 40, rng);
    expected += "[" + std::to_string(token) + "]";
  }
  EXPECT_EQ(expected + "\n", sample.out);

  // Text cannot be encoded for it: one line naming both vocabulary sizes.
  const Output prompt = run_output(adjoint_bin() + " sample --model " + (dir / "tiny.bin") + " -n 4 --prompt hi", dir);
  EXPECT_EQ(1, prompt.status);
  EXPECT_TRUE(prompt.out.empty()) << prompt.out;
  EXPECT_EQ(1, std::count(prompt.err.begin(), prompt.err.end(), '\n')) << prompt.err;
  EXPECT_EQ(0u, prompt.err.find("adjoint: error: --prompt needs a model with GPT-2's 50257-token or Llama 3's 128256-token vocabulary"))
      << prompt.err;
  EXPECT_NE(std::string::npos, prompt.err.find("has 67 tokens")) << prompt.err;
}

// A model with GPT-2's vocabulary continues the prompt as text, and needs the BPE files: by
// default those scripts/setup.sh installs.
TEST(Sample, Gpt2VocabularyPrintsText) {
  const std::string bpe_dir = ADJOINT_DEFAULT_BPE_DIR;
  if (!fs::exists(fs::path(bpe_dir) / "encoder.json")) GTEST_SKIP() << "no GPT-2 BPE files in " << bpe_dir;
  TempDir dir;
  const std::string sample = adjoint_bin() + " sample --model d1 -n 4 --prompt Hello";
  const Output text = run_output(sample + " --bpe-dir " + bpe_dir, dir);
  ASSERT_EQ(0, text.status) << text.err;
  EXPECT_EQ(0u, text.out.find("Hello")) << text.out;
  const Output installed = run_output("env -u ADJOINT_BPE_DIR " + sample, dir);
  ASSERT_EQ(0, installed.status) << installed.err;
  EXPECT_EQ(text.out, installed.out);
  const Output no_bpe = run_output(sample + " --bpe-dir " + (dir / "none"), dir);
  EXPECT_EQ(1, no_bpe.status);
  EXPECT_EQ(0u, no_bpe.err.find("adjoint: error: " + (dir / "none/encoder.json"))) << no_bpe.err;
}

}  // namespace
