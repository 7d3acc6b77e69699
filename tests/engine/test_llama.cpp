// Llama's configs, files and KV-free checks (its gradients are checked against PyTorch
// in tests/pytorch/test_llama_grad.py, its kernels in test_kernels.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <regex>
#include <string>
#include <vector>

#include "adjoint/llama.hpp"
#include "adjoint/llama_file.hpp"
#include "../common/command_test.hpp"
#include "../common/random_tokens.hpp"

namespace {

namespace fs = std::filesystem;
using adjoint::Llama;
using adjoint::LlamaConfig;

LlamaConfig tiny_config() {
  LlamaConfig c;
  c.max_seq_len = 12, c.vocab_size = 53, c.num_layers = 2, c.num_heads = 6, c.num_kv_heads = 2, c.channels = 24;
  c.multiple_of = 16;
  return c;
}

std::string temp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("adjoint_llama_" + std::to_string(::getpid()) + "_" + name)).string();
}

// Meta's published shapes: hidden sizes 8192 (3.2 1B) and 14336 (3.1 8B), parameter counts.
TEST(LlamaConfig, PublishedShapes) {
  const LlamaConfig small = adjoint::llama_config_from_name("llama3.2-1B");
  EXPECT_EQ(adjoint::llama_hidden_size(small), 8192);
  std::size_t n = 0;
  for (std::size_t s : adjoint::parameter_sizes(small)) n += s;
  EXPECT_EQ(n, 1235814400u);  // 1.24B, tied head
  const LlamaConfig big = adjoint::llama_config_from_name("llama3.1-8B");
  EXPECT_EQ(adjoint::llama_hidden_size(big), 14336);
  n = 0;
  for (std::size_t s : adjoint::parameter_sizes(big)) n += s;
  EXPECT_EQ(n, 8030261248u);  // 8.03B, untied head
  const LlamaConfig bench = adjoint::llama_config_from_name("llama3-bench");
  EXPECT_EQ(adjoint::llama_hidden_size(bench), 2048);
  EXPECT_EQ(bench.num_kv_heads, 4);
  const LlamaConfig d4 = adjoint::llama_config_from_name("llama-d4");
  EXPECT_EQ(d4.channels, 256);
  EXPECT_EQ(d4.num_kv_heads, 2);
  EXPECT_THROW(adjoint::llama_config_from_name("llama-dx"), std::invalid_argument);
  EXPECT_THROW(adjoint::llama_config_from_name("llama-d0"), std::invalid_argument);
  LlamaConfig bad = tiny_config();
  bad.num_kv_heads = 4;  // 6 % 4 != 0
  EXPECT_THROW(Llama{bad}, std::invalid_argument);
}

TEST(LlamaFile, RoundTripAndDefects) {
  Llama model(tiny_config());
  model.init_random(5);
  const std::string path = temp_path("model.bin");
  adjoint::save_llama_file(path, model.config(), model.params_memory());
  EXPECT_EQ(adjoint::file_magic(path), adjoint::kLlamaFileMagic);
  auto loaded = adjoint::load_llama(path);
  ASSERT_EQ(loaded->num_parameters(), model.num_parameters());
  for (std::size_t i = 0; i < model.num_parameters(); i++) ASSERT_EQ(loaded->params_memory()[i], model.params_memory()[i]);
  const auto size = fs::file_size(path);

  auto expect_error = [&](const std::string& what) {
    try {
      adjoint::load_llama(path);
      ADD_FAILURE() << "no error for " << what;
    } catch (const std::runtime_error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(path), std::string::npos) << message;
      EXPECT_NE(message.find(what), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  };
  fs::resize_file(path, size - 4);
  expect_error("truncated");
  fs::resize_file(path, size + 4);
  expect_error("wrong size");
  auto patch_int = [&](int index, std::int32_t value) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4 * index);
    f.write(reinterpret_cast<const char*>(&value), 4);
  };
  fs::resize_file(path, size);
  patch_int(1, 5);
  expect_error("bf16");
  patch_int(1, 3);
  patch_int(6, 4);  // 6 query heads on 4 key/value heads
  expect_error("num_kv_heads");
  patch_int(6, 2);
  patch_int(3, 1 << 30);  // a lying vocabulary: rejected before anything is allocated
  expect_error("V <= 2^24");
  patch_int(3, 1 << 20);
  expect_error("truncated");
  patch_int(0, 20240326);
  expect_error("not a Llama model file");
  fs::remove(path);
}

// A value that is not finite in a model or training-state file (or a negative AdamW second moment)
// is refused at load, naming the file, the tensor and the index (found by
// tests/fuzz/llama_model_file.cpp and llama_state_file.cpp).
TEST(LlamaFile, NonFiniteValuesAreRefused) {
  Llama model(tiny_config());
  model.init_random(7);
  const std::string path = temp_path("nan.bin");
  const std::size_t wte = std::size_t(tiny_config().vocab_size) * tiny_config().channels;
  auto expect_message = [&](auto load, const std::string& message) {
    try {
      load();
      ADD_FAILURE() << "no error, expected " << message;
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(e.what(), message);
    }
  };
  model.params_memory()[3] = std::numeric_limits<float>::quiet_NaN();
  adjoint::save_llama_file(path, model.config(), model.params_memory());
  expect_message([&] { adjoint::load_llama(path); }, path + ": parameter wte[3] is nan");

  model.params_memory()[3] = 0.5f;
  std::vector<float> m(model.num_parameters(), 0.0f), v(model.num_parameters(), 1.0f);
  v[wte + 1] = std::numeric_limits<float>::infinity();
  adjoint::TrainingProgress progress;
  progress.step = 1, progress.batch_size = 1, progress.seq_len = 4;
  adjoint::save_llama_state(path, model, m.data(), v.data(), progress);
  Llama resumed(tiny_config());
  expect_message([&] { adjoint::load_llama_state(path, resumed, m.data(), v.data()); },
                 path + ": AdamW second moment of ln1w[1] is inf");
  // A negative one too: the next update's sqrt(v) would be NaN.
  v[wte + 1] = 1.0f;
  v[wte + 2] = -1.0f;
  adjoint::save_llama_state(path, model, m.data(), v.data(), progress);
  expect_message([&] { adjoint::load_llama_state(path, resumed, m.data(), v.data()); },
                 path + ": AdamW second moment of ln1w[2] is -1, below 0 (it is a mean of squares)");
  fs::remove(path);
}

// A tied head's file repeats wte in the LM head slot (llm.c's layout always has one).
TEST(LlamaFile, TiedHeadFileHasTheHeadSlot) {
  LlamaConfig c = tiny_config();
  c.tied_head = true;
  Llama model(c);
  model.init_random(6);
  const std::string path = temp_path("tied.bin");
  adjoint::save_llama_file(path, c, model.params_memory());
  EXPECT_EQ(fs::file_size(path), 2048 + 4 * (model.num_parameters() + (std::size_t)c.vocab_size * c.channels));
  auto loaded = adjoint::load_llama(path);
  EXPECT_TRUE(loaded->config().tied_head);
  EXPECT_EQ(loaded->params().lm_head, loaded->params().wte);
  fs::remove(path);
}

TEST(Llama, ShorterBatchesReuseTheArenaAndRopeTable) {
  Llama model(tiny_config());
  model.init_random(7);
  const std::vector<int> tokens = random_tokens(2 * 12 + 1, 53, 8);
  model.reserve_activations(2, 12);
  const float full = model.forward(tokens.data(), tokens.data() + 1, 1, 5);
  Llama fresh(tiny_config());
  fresh.init_random(7);
  EXPECT_EQ(fresh.forward(tokens.data(), tokens.data() + 1, 1, 5), full);
  EXPECT_THROW(model.forward(tokens.data(), tokens.data() + 1, 1, 13), std::invalid_argument);
}

}  // namespace

namespace {

// The KV cache holds NKV key/value heads; its logits equal the full forward's at every position.
TEST(Llama, KvCacheLogitsMatchFullForward) {
  LlamaConfig c = tiny_config();
  c.use_scaled_rope = true;
  c.rope_original_context = 8;
  c.rope_theta = 10000.0f;
  Llama model(c);
  model.init_random(9);
  const int T = 12;
  const std::vector<int> tokens = random_tokens(T, c.vocab_size, 10);
  model.forward(tokens.data(), nullptr, 1, T);
  const std::vector<float> full(model.logits(), model.logits() + (std::size_t)T * c.vocab_size);
  adjoint::LlamaGenerator generator(model, T);
  for (int t = 0; t < T; t++) {
    const float* logits = generator.feed(tokens[t]);
    for (int v = 0; v < c.vocab_size; v++) {
      ASSERT_NEAR(logits[v], full[(std::size_t)t * c.vocab_size + v], 1e-5f) << "position " << t << " token " << v;
    }
  }
  EXPECT_THROW(generator.feed(0), std::out_of_range);
}

}  // namespace

namespace {

using namespace command_test;

// `adjoint sample` on a Llama file: token ids through the KV cache; --prompt is refused in one line.
TEST(LlamaCommand, SamplePrintsTokenIds) {
  TempDir dir;
  Llama model(tiny_config());
  model.init_random(11);
  adjoint::save_llama_file(dir / "sample.bin", model.config(), model.params_memory());
  const Output out = run_output(adjoint_bin() + " sample --model " + (dir / "sample.bin") + " -n 5 --seed 2", dir);
  EXPECT_EQ(out.status, 0) << out.err;
  EXPECT_EQ(std::count(out.out.begin(), out.out.end(), '['), 5) << out.out;
  const Output refused = run_output(adjoint_bin() + " sample --model " + (dir / "sample.bin") + " --prompt hi", dir);
  EXPECT_NE(refused.status, 0);
  EXPECT_NE(refused.err.find("--prompt"), std::string::npos) << refused.err;
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
}

// A model with Llama 3's vocabulary speaks text through the Llama 3 tokenizer, prompt included.
TEST(LlamaCommand, SampleWithLlama3VocabularyPrintsText) {
  const char* env = std::getenv("ADJOINT_LLAMA3_DIR");
  const std::filesystem::path folder = env && *env ? env : ADJOINT_DEFAULT_LLAMA3_DIR;
  if (!std::filesystem::exists(folder / "src/data-converted.js")) {
    GTEST_SKIP() << "SKIPPED LOUDLY: no Llama 3 tokenizer in " << folder << " (scripts/setup.sh installs it)";
  }
  TempDir dir;
  const Output out = run_output(adjoint_bin() + " sample --model llama-d1 -n 6 --seed 2 --prompt 'ROMEO:' --llama3-dir " +
                                    folder.string(), dir);
  EXPECT_EQ(out.status, 0) << out.err;
  EXPECT_EQ(out.out.rfind("ROMEO:", 0), 0u) << out.out;
  EXPECT_FALSE(std::regex_search(out.out, std::regex("\\[[0-9]+\\]"))) << "token ids instead of text: " << out.out;
}

// Training a Llama (manual backward) resumes bit-identically, through its own training-state file.
TEST(LlamaCommand, ResumeIsBitIdentical) {
  TempDir dir;
  Llama model(tiny_config());
  model.init_random(12);
  adjoint::save_llama_file(dir / "init.bin", model.config(), model.params_memory());
  expect_resume_bit_identical(dir, dir / "init.bin", tiny_config().vocab_size, "--backward manual");
  EXPECT_EQ(adjoint::file_magic(dir / "full/state.bin"), adjoint::kLlamaStateMagic);
  EXPECT_EQ(adjoint::file_magic(dir / "full/model.bin"), adjoint::kLlamaFileMagic);
}

// A named Llama config trains with the default flags (adjc's backward where the build has it).
TEST(LlamaCommand, TrainsFromAConfigName) {
  TempDir dir;
  adjoint::write_token_file(dir / "train.bin", random_tokens(200, 1000, 3), 1000);
  const Output out = run_output(adjoint_bin() + " train --model llama-d1 --train-tokens " + (dir / "train.bin") +
                                    " -B 1 -T 8 --steps 2 --sample-tokens 2 --out " + (dir / "run"), dir);
  EXPECT_EQ(out.status, 0) << out.err;
  EXPECT_NE(out.out.find("Llama L=1"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find(adjoint::have_generated_backward() ? "generated backward" : "manual backward"),
            std::string::npos)
      << out.out;
}

// `grad --print-backward` prints the generated backward of the model --model names: Llama's for a
// Llama config or file (its kernels' reverse sweeps included), GPT-2's otherwise; for each engine.
TEST(LlamaCommand, PrintBackwardFollowsTheModel) {
  if (!adjoint::have_generated_backward()) GTEST_SKIP() << "SKIPPED LOUDLY: this build has no adjc";
  TempDir dir;
  Llama model(tiny_config());
  model.init_random(13);
  adjoint::save_llama_file(dir / "llama.bin", model.config(), model.params_memory());
  const std::string print = adjoint_bin() + " grad --print-backward";
  const Output gpt2 = run_output(print + " --model d2", dir), unnamed = run_output(print, dir);
  const Output by_name = run_output(print + " --model llama-d1", dir);
  const Output by_file = run_output(print + " --model " + (dir / "llama.bin"), dir);
  for (const Output* out : {&gpt2, &unnamed, &by_name, &by_file}) EXPECT_EQ(out->status, 0) << out->err;
  for (const Output* out : {&gpt2, &unnamed}) {
    EXPECT_NE(out->out.find("gpt2_loss_reverse"), std::string::npos);
    EXPECT_EQ(out->out.find("llama_loss_reverse"), std::string::npos);
  }
  for (const Output* out : {&by_name, &by_file}) {
    EXPECT_NE(out->out.find("llama_loss_reverse"), std::string::npos) << out->out.substr(0, 200);
    EXPECT_NE(out->out.find("rmsnorm_forward_reverse"), std::string::npos);
    EXPECT_EQ(out->out.find("gpt2_loss_reverse"), std::string::npos);
  }
  EXPECT_EQ(by_name.out, by_file.out);
  const Output tensor = run_output(print + " --engine tensor --model llama-d1", dir);
  const Output tensor_gpt2 = run_output(print + " --engine tensor --model d2", dir);
  EXPECT_EQ(tensor.status, 0) << tensor.err;
  EXPECT_NE(tensor.out.find("llama_loss_reverse"), std::string::npos);
  EXPECT_NE(tensor.out.find("rotary"), std::string::npos);  // the tensor ops' pullbacks
  EXPECT_NE(tensor.out, by_name.out);
  EXPECT_NE(tensor_gpt2.out.find("gpt2_loss_reverse"), std::string::npos);
  EXPECT_EQ(tensor_gpt2.out.find("llama_loss_reverse"), std::string::npos);
  const Output missing = run_output(print + " --model " + (dir / "missing.bin"), dir);
  EXPECT_NE(missing.status, 0);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
}

// `--lora` prints the backward that trains adapters only: the weights' adjoint is inactive in the
// arrays engine's sweep, and the tensor engine's request is the adapters' own.
TEST(LlamaCommand, PrintBackwardOfAdapters) {
  if (!adjoint::have_generated_backward()) GTEST_SKIP() << "SKIPPED LOUDLY: this build has no adjc";
  TempDir dir;
  const std::string print = adjoint_bin() + " grad --print-backward";
  for (const std::string model : {"d2", "llama-d1"}) {
    const std::string name = model == "d2" ? "gpt2" : "llama";
    const Output full = run_output(print + " --model " + model, dir);
    const Output lora = run_output(print + " --lora --model " + model, dir);
    EXPECT_EQ(lora.status, 0) << lora.err;
    EXPECT_NE(lora.out.find(name + "_loss_reverse"), std::string::npos) << model;
    EXPECT_NE(lora.out.find("::adjoint::inactive _d_p"), std::string::npos) << model;
    EXPECT_EQ(full.out.find("::adjoint::inactive _d_p"), std::string::npos) << model;
    const Output tensor = run_output(print + " --lora --engine tensor --model " + model, dir);
    EXPECT_EQ(tensor.status, 0) << tensor.err;
    EXPECT_EQ(tensor.out.rfind("void " + name + "_lora_loss_grad", 0), 0u) << tensor.out.substr(0, 200);
  }
  const Output alone = run_output(adjoint_bin() + " grad --lora --model d2", dir);
  EXPECT_NE(alone.status, 0);
  EXPECT_NE(alone.err.find("--print-backward"), std::string::npos) << alone.err;
  EXPECT_EQ(std::count(alone.err.begin(), alone.err.end(), '\n'), 1) << alone.err;
}

}  // namespace
