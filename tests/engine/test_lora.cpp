// LoRA: the adapted projection's gradients against central finite differences (double) and its merge;
// the settings' one-line errors; a Llama and a GPT-2 with adapters: their adapter gradients (from
// both backward passes) against the merged model's own gradient, merge against the adapted
// forward, generation, a frozen base after training, and the adapters' files (PyTorch checks the
// whole: tests/pytorch/test_lora.py).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>
#include <algorithm>
#include <cstring>
#include <memory>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "adjoint/gemm.hpp"
#include "adjoint/gpt2.hpp"
#include "adjoint/llama.hpp"
#include "adjoint/lora.hpp"
#include "adjoint/optimizer.hpp"
#include "adjoint/random.hpp"
#include "../common/random_tokens.hpp"

namespace {

using adjoint::LoraConfig;

std::vector<double> random_values(std::size_t n, std::uint64_t seed) {
  adjoint::Rng rng(seed);
  std::vector<double> v(n);
  for (double& x : v) x = rng.normal();
  return v;
}

// Odd shapes; the output is a column block of a wider matrix (as q, k, v inside qkv).
struct Shapes {
  int N = 5, in = 7, out = 3, r = 2, ld_out = 6, col = 2;
  double scale = 1.5;
};

// Σ w ⊙ (the output block after lora_forward): a scalar whose gradient with respect to the output
// block is w.
double weighted_output(const Shapes& s, const std::vector<double>& x, const std::vector<double>& A,
                       const std::vector<double>& B, const std::vector<double>& w) {
  std::vector<double> out((std::size_t)s.N * s.ld_out, 0.25), xa((std::size_t)s.N * s.r);
  adjoint::lora_forward(out.data() + s.col, s.ld_out, xa.data(), x.data(), A.data(), B.data(), s.scale, s.N, s.in,
                        s.out, s.r);
  double sum = 0;
  for (int i = 0; i < s.N; i++)
    for (int o = 0; o < s.out; o++)
      sum += w[(std::size_t)i * s.ld_out + s.col + o] * out[(std::size_t)i * s.ld_out + s.col + o];
  return sum;
}

// Central differences of weighted_output with respect to each element of values (one of x, A, B).
std::vector<double> finite_differences(const Shapes& s, std::vector<double>& values, std::vector<double>& x,
                                       std::vector<double>& A, std::vector<double>& B, const std::vector<double>& w) {
  const double h = 1e-6;
  std::vector<double> grad(values.size());
  for (std::size_t i = 0; i < values.size(); i++) {
    const double kept = values[i];
    values[i] = kept + h;
    const double up = weighted_output(s, x, A, B, w);
    values[i] = kept - h;
    const double down = weighted_output(s, x, A, B, w);
    values[i] = kept;
    grad[i] = (up - down) / (2 * h);
  }
  return grad;
}

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); i++) {
    EXPECT_NEAR(got[i], want[i], 1e-7 * (1 + std::abs(want[i]))) << what << "[" << i << "]";
  }
}

// dx, dA and dB against central differences (h = 1e-6 in double: truncation and rounding both
// below 1e-8 for values of order 1), each starting from a nonzero value the backward must add to.
TEST(Lora, GradientsMatchFiniteDifferences) {
  const Shapes s;
  std::vector<double> x = random_values((std::size_t)s.N * s.in, 1), A = random_values((std::size_t)s.r * s.in, 2);
  std::vector<double> B = random_values((std::size_t)s.out * s.r, 3), w = random_values((std::size_t)s.N * s.ld_out, 4);
  std::vector<double> out((std::size_t)s.N * s.ld_out), xa((std::size_t)s.N * s.r), dxa((std::size_t)s.N * s.r);
  adjoint::lora_forward(out.data() + s.col, s.ld_out, xa.data(), x.data(), A.data(), B.data(), s.scale, s.N, s.in,
                        s.out, s.r);
  const double start = 0.5;
  std::vector<double> dx(x.size(), start), dA(A.size(), start), dB(B.size(), start);
  adjoint::lora_backward(dx.data(), dA.data(), dB.data(), dxa.data(), w.data() + s.col, s.ld_out, x.data(), xa.data(),
                         A.data(), B.data(), s.scale, s.N, s.in, s.out, s.r);
  for (auto* grad : {&dx, &dA, &dB})
    for (double& g : *grad) g -= start;
  expect_near_all(dx, finite_differences(s, x, x, A, B, w), "dx");
  expect_near_all(dA, finite_differences(s, A, x, A, B, w), "dA");
  expect_near_all(dB, finite_differences(s, B, x, A, B, w), "dB");
}

// x·(W + scale·B·A)ᵀ equals x·Wᵀ + the adapter's output within 1e-5 (float).
TEST(Lora, MergedProjectionEqualsAdaptedForward) {
  const int N = 9, in = 13, out = 11, r = 3;
  const float scale = 16.0f / r;
  auto to_float = [](const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); };
  std::vector<float> x = to_float(random_values((std::size_t)N * in, 9)),
                     W = to_float(random_values((std::size_t)out * in, 10));
  std::vector<float> A = to_float(random_values((std::size_t)r * in, 11)),
                     B = to_float(random_values((std::size_t)out * r, 12));
  for (float& b : B) b *= 0.1f;
  std::vector<float> adapted((std::size_t)N * out), merged((std::size_t)N * out), xa((std::size_t)N * r);
  adjoint::gemm(false, true, N, out, in, 1.0f, x.data(), in, W.data(), in, 0.0f, adapted.data(), out);
  adjoint::lora_forward(adapted.data(), out, xa.data(), x.data(), A.data(), B.data(), scale, N, in, out, r);
  adjoint::lora_merge(W.data(), A.data(), B.data(), scale, in, out, r);
  adjoint::gemm(false, true, N, out, in, 1.0f, x.data(), in, W.data(), in, 0.0f, merged.data(), out);
  for (std::size_t i = 0; i < merged.size(); i++) EXPECT_NEAR(merged[i], adapted[i], 1e-5) << i;
}

// The message of the exception f throws (and a failure when it throws none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  ADD_FAILURE() << "no exception";
  return "";
}

bool one_line_with(const std::string& message, const std::string& part) {
  return message.find(part) != std::string::npos && message.find('\n') == std::string::npos;
}

TEST(Lora, TargetListErrorsNameTheTarget) {
  EXPECT_EQ(adjoint::parse_lora_targets("q,k,v,o,gate,up,down").size(), 7u);
  EXPECT_EQ(adjoint::parse_lora_targets("down,q"), (std::vector<std::string>{"down", "q"}));
  EXPECT_TRUE(one_line_with(error_of([] { adjoint::parse_lora_targets("q,wq"); }), "unknown target 'wq'"));
  EXPECT_TRUE(one_line_with(error_of([] { adjoint::parse_lora_targets("q,,k"); }), "unknown target ''"));
  EXPECT_TRUE(one_line_with(error_of([] { adjoint::parse_lora_targets("q,"); }), "unknown target ''"));
  EXPECT_TRUE(one_line_with(error_of([] { adjoint::parse_lora_targets("v,q,v"); }), "'v' is given twice"));
  EXPECT_TRUE(one_line_with(error_of([] { adjoint::parse_lora_targets(""); }), "empty"));
}

TEST(Lora, BadSettingsAreRejected) {
  const LoraConfig good{8, 16.0f, {"q", "v"}};
  EXPECT_NO_THROW(adjoint::validate_lora_config(good));
  auto with = [&](auto change) {
    LoraConfig c = good;
    change(c);
    return error_of([&] { adjoint::validate_lora_config(c); });
  };
  EXPECT_TRUE(one_line_with(with([](LoraConfig& c) { c.rank = 0; }), "--lora-rank 0"));
  EXPECT_TRUE(one_line_with(with([](LoraConfig& c) { c.rank = -3; }), "--lora-rank -3"));
  EXPECT_TRUE(one_line_with(with([](LoraConfig& c) { c.alpha = -1; }), "--lora-alpha"));
  EXPECT_TRUE(one_line_with(with([](LoraConfig& c) { c.alpha = 0; }), "--lora-alpha"));
  EXPECT_TRUE(
      one_line_with(with([](LoraConfig& c) { c.alpha = std::numeric_limits<float>::quiet_NaN(); }), "--lora-alpha"));
  EXPECT_TRUE(
      one_line_with(with([](LoraConfig& c) { c.alpha = std::numeric_limits<float>::infinity(); }), "--lora-alpha"));
  EXPECT_TRUE(one_line_with(with([](LoraConfig& c) { c.targets.clear(); }), "empty"));
  EXPECT_TRUE(one_line_with(with([](LoraConfig& c) { c.targets = {"q", "wq"}; }), "unknown target 'wq'"));
}

// C=24 in 6 heads of 4, 2 key/value heads: k and v have 8 rows, the MLP 64.
adjoint::LlamaConfig tiny_llama() {
  adjoint::LlamaConfig c;
  c.max_seq_len = 12, c.vocab_size = 53, c.num_layers = 2, c.num_heads = 6, c.num_kv_heads = 2, c.channels = 24;
  c.multiple_of = 16;
  return c;
}

const std::vector<std::string> kAllTargets = {"q", "k", "v", "o", "gate", "up", "down"};

// GPT-2 with 3 heads of 16 and a padded vocabulary (67 of 128).
adjoint::GPT2Config tiny_gpt2() {
  adjoint::GPT2Config c;
  c.max_seq_len = 16, c.vocab_size = 67, c.padded_vocab_size = 128, c.num_layers = 2, c.num_heads = 3, c.channels = 48;
  return c;
}

const std::vector<std::string> kGpt2Targets = {"fcproj", "qkv", "attproj", "fc"};

// base with adapters whose B is random too (B starts at zero, which would hide every A).
std::unique_ptr<adjoint::LoraModel> with_adapters(std::unique_ptr<adjoint::Model> base, const LoraConfig& config,
                                                  std::uint64_t seed) {
  auto model = std::make_unique<adjoint::LoraModel>(std::move(base), config, seed + 1);
  const adjoint::LoraAdapters& adapters = model->adapters();
  adjoint::Rng rng(seed + 2);
  for (std::size_t s = 0; s < adapters.sites().size(); s++)
    for (int l = 0; l < adapters.layers(); l++) {
      float* b = adapters.B(adapters.params_memory(), s, l);
      for (int i = 0; i < adapters.sites()[s].out * config.rank; i++) b[i] = float(0.05 * rng.normal());
    }
  return model;
}

// A random tiny Llama (the same for a seed) and GPT-2.
std::unique_ptr<adjoint::ArenaModel> random_llama(std::uint64_t seed) {
  auto llama = std::make_unique<adjoint::Llama>(tiny_llama());
  llama->init_random(seed);
  return llama;
}

std::unique_ptr<adjoint::ArenaModel> random_gpt2(std::uint64_t seed) {
  auto gpt2 = std::make_unique<adjoint::GPT2>(tiny_gpt2());
  gpt2->init_random(seed);
  return gpt2;
}

std::unique_ptr<adjoint::LoraModel> tiny_lora_model(const LoraConfig& config, std::uint64_t seed) {
  return with_adapters(random_llama(seed), config, seed);
}

// A rank above a target's smaller side (k's 8 rows) is refused, naming the target.
TEST(LoraModel, RankAboveATargetsSideIsRefused) {
  EXPECT_NO_THROW(tiny_lora_model({8, 1.0f, {"q", "k"}}, 1));
  EXPECT_TRUE(one_line_with(error_of([] {
                              tiny_lora_model({9, 1.0f, {"q", "k"}}, 1);
                            }),
                            "--lora-rank 9 exceeds target k's smaller side min(24, 8)"));
  EXPECT_NO_THROW(tiny_lora_model({24, 1.0f, {"up"}}, 1));
}

// PEFT's initialisation: A uniform within 1/sqrt(in), B zero; the base's gradient arena is gone.
TEST(LoraModel, InitialisationAndFrozenBase) {
  auto llama = std::make_unique<adjoint::Llama>(tiny_llama());
  llama->init_random(3);
  adjoint::LoraModel model(std::move(llama), {3, 6.0f, {"down", "q"}}, 4);
  const adjoint::LoraAdapters& a = model.adapters();
  EXPECT_EQ(model.num_parameters(), 2u * 3 * (64 + 24) + 2u * 3 * (24 + 24));
  EXPECT_EQ(model.base().grads_memory(), nullptr);
  const float* A = a.A(a.params_memory(), 0, 0);  // down: in = 64
  double largest = 0;
  for (int i = 0; i < 2 * 3 * 64; i++) largest = std::max(largest, double(std::abs(A[i])));
  EXPECT_LE(largest, 1.0 / 8.0);
  EXPECT_GT(largest, 0.1);
  for (int i = 0; i < 2 * 24 * 3; i++) EXPECT_EQ(a.B(a.params_memory(), 0, 0)[i], 0.0f);
  EXPECT_EQ(model.backward_pass(), adjoint::Backward::manual);
  EXPECT_EQ(model.has_backward(adjoint::Backward::generated), adjoint::have_generated_backward());
}

// dB = scale·G·Aᵀ and dA = scale·Bᵀ·G, where G is the gradient of the target rows that the
// ordinary backward (checked against PyTorch in tests/pytorch) computes for the merged model:
// every target, both layers, odd B·T, the adapters trained by `backward` on random_base(11) (two
// layers, vocabulary V). The losses agree to rounding.
void check_adapter_gradients(adjoint::Backward backward,
                             std::unique_ptr<adjoint::ArenaModel> (*random_base)(std::uint64_t seed), int V,
                             const std::vector<std::string>& all_targets) {
  const int B = 3, T = 5, r = 3;
  const std::vector<int> inputs = random_tokens(B * T, V, 1), targets = random_tokens(B * T, V, 2);
  auto model = with_adapters(random_base(11), {r, 5.0f, all_targets}, 11);
  model->use_backward(backward);
  model->zero_grad();
  const float lora_loss = model->forward_backward(inputs.data(), targets.data(), B, T);
  const adjoint::LoraAdapters& a = model->adapters();
  const std::vector<float> A(a.params_memory(), a.params_memory() + a.num_parameters());
  const std::vector<float> grads(a.grads_memory(), a.grads_memory() + a.num_parameters());
  const std::vector<adjoint::LoraSite> sites = a.sites();
  const double scale = 5.0 / r;
  const auto lora = std::make_unique<adjoint::LoraAdapters>(sites, 2, LoraConfig{r, 5.0f, all_targets}, 0);
  std::copy(A.begin(), A.end(), lora->params_memory());
  std::copy(grads.begin(), grads.end(), lora->grads_memory());

  // A fresh model with the merged weights (release_merged hands over the base without gradients).
  const std::unique_ptr<adjoint::Model> merged_base = model->release_merged();
  const std::unique_ptr<adjoint::ArenaModel> fresh = random_base(11);
  adjoint::ArenaModel& merged = *fresh;
  std::copy(merged_base->params_memory(), merged_base->params_memory() + merged.num_parameters(),
            merged.params_memory());
  merged.zero_grad();
  EXPECT_NEAR(merged.forward_backward(inputs.data(), targets.data(), B, T), lora_loss, 1e-5);
  for (std::size_t s = 0; s < sites.size(); s++) {
    const adjoint::LoraSite& site = sites[s];
    for (int l = 0; l < 2; l++) {
      const float* G =
          merged.grads_memory() + site.offset + l * site.layer_stride + (std::size_t)site.row_offset * site.in;
      const float* As = lora->A(lora->params_memory(), s, l);
      const float* Bs = lora->B(lora->params_memory(), s, l);
      const float* dA = lora->A(lora->grads_memory(), s, l);
      const float* dB = lora->B(lora->grads_memory(), s, l);
      double largest = 0;
      for (int k = 0; k < r; k++) {
        for (int c = 0; c < site.in; c++) {  // dA[k][c] = scale Σ_o B[o][k] G[o][c]
          double want = 0;
          for (int o = 0; o < site.out; o++) want += double(Bs[o * r + k]) * G[(std::size_t)o * site.in + c];
          want *= scale;
          largest = std::max(largest, std::abs(want));
          EXPECT_NEAR(dA[k * site.in + c], want, 1e-7 + 1e-3 * std::abs(want)) << site.target << " layer " << l;
        }
        for (int o = 0; o < site.out; o++) {  // dB[o][k] = scale Σ_c G[o][c] A[k][c]
          double want = 0;
          for (int c = 0; c < site.in; c++) want += double(G[(std::size_t)o * site.in + c]) * As[k * site.in + c];
          want *= scale;
          EXPECT_NEAR(dB[o * r + k], want, 1e-7 + 1e-3 * std::abs(want)) << site.target << " layer " << l;
        }
      }
      EXPECT_GT(largest, 1e-6) << "a vacuous check for " << site.target;
    }
  }
}

TEST(LoraModel, AdapterGradientsMatchTheMergedModelsGradient) {
  check_adapter_gradients(adjoint::Backward::manual, random_llama, 53, kAllTargets);
}

TEST(LoraModel, Gpt2AdapterGradientsMatchTheMergedModelsGradient) {
  check_adapter_gradients(adjoint::Backward::manual, random_gpt2, 67, kGpt2Targets);
}

// The generated source for the full gradient reads the weights' adjoint (`(*_d_p).qkvw`) and
// LoRA's, which passes the adapted projections' pullback, never does (a kernel's local `p` may
// still have an adjoint `_d_p` of its own).
void expect_no_weight_adjoint(const std::string& full, const std::string& lora, const char* pullback) {
  EXPECT_NE(full.find("(*_d_p).qkvw"), std::string::npos);  // the pattern is what the full one has
  EXPECT_NE(lora.find(pullback), std::string::npos);
  EXPECT_EQ(lora.find("(*_d_p)"), std::string::npos);
}

// adjc's backward differentiates the activations only: the base's weights are inactive, so its
// reverse sweep never names their adjoint (d_p), every weight's pullback gets a null d_weight and
// runs no dW GEMM, and the base has no gradient arena to write.
TEST(LoraModel, GeneratedBackwardGivesTheAdapterGradients) {
  if (!adjoint::have_generated_backward()) GTEST_SKIP() << "a build without adjc";
  check_adapter_gradients(adjoint::Backward::generated, random_llama, 53, kAllTargets);
  expect_no_weight_adjoint(adjoint::llama_generated_backward_source(), adjoint::llama_lora_generated_backward_source(),
                           "adapted_linear_forward_pullback");
}

TEST(LoraModel, Gpt2GeneratedBackwardGivesTheAdapterGradients) {
  if (!adjoint::have_generated_backward()) GTEST_SKIP() << "a build without adjc";
  check_adapter_gradients(adjoint::Backward::generated, random_gpt2, 67, kGpt2Targets);
  expect_no_weight_adjoint(adjoint::generated_backward_source(), adjoint::gpt2_lora_generated_backward_source(),
                           "adapted_matmul_forward_pullback");
}

// The adapted forward's logits equal the merged model's within 1e-5, and the KV-cached generator
// (which adds the adapters at one position) gives the same logits position by position.
TEST(LoraModel, MergedForwardAndGenerationEqualTheAdaptedForward) {
  const int T = 7, V = 53;
  const std::vector<int> inputs = random_tokens(T, V, 5);
  auto model = tiny_lora_model({4, 8.0f, kAllTargets}, 21);
  model->forward(inputs.data(), nullptr, 1, T);
  const float* logits = dynamic_cast<adjoint::Llama&>(model->base()).logits();
  const std::vector<float> adapted(logits, logits + (std::size_t)T * V);
  const auto generator = model->generator(T);
  for (int t = 0; t < T; t++) {
    const float* row = generator->feed(inputs[t]);
    for (int v = 0; v < V; v++) EXPECT_NEAR(row[v], adapted[(std::size_t)t * V + v], 1e-5) << t << " " << v;
  }
  std::unique_ptr<adjoint::Model> merged = model->release_merged();
  merged->forward(inputs.data(), nullptr, 1, T);
  const float* merged_logits = dynamic_cast<adjoint::Llama&>(*merged).logits();
  double moved = 0;
  for (std::size_t i = 0; i < adapted.size(); i++) EXPECT_NEAR(merged_logits[i], adapted[i], 1e-5) << i;
  // The adapters matter: the base alone (B back to zero) gives other logits.
  auto base_only = tiny_lora_model({4, 8.0f, kAllTargets}, 21);
  std::fill(base_only->params_memory(), base_only->params_memory() + base_only->num_parameters(), 0.0f);
  base_only->forward(inputs.data(), nullptr, 1, T);
  const float* base_logits = dynamic_cast<adjoint::Llama&>(base_only->base()).logits();
  for (std::size_t i = 0; i < adapted.size(); i++)
    moved = std::max(moved, double(std::abs(base_logits[i] - adapted[i])));
  EXPECT_GT(moved, 1e-3);
}

// AdamW steps on the adapters lower the loss and never write the base: bit for bit the same.
TEST(LoraModel, TrainingLeavesTheBaseBitIdentical) {
  const int B = 2, T = 7;
  const std::vector<int> inputs = random_tokens(B * T, 53, 3), targets = random_tokens(B * T, 53, 4);
  auto llama = std::make_unique<adjoint::Llama>(tiny_llama());
  llama->init_random(21);
  const std::vector<float> base(llama->params_memory(), llama->params_memory() + llama->num_parameters());
  adjoint::LoraModel model(std::move(llama), {2, 4.0f, {"q", "v", "down"}}, 22);
  adjoint::AdamW optimizer(model, {});
  float first = 0, last = 0;
  for (int step = 1; step <= 5; step++) {
    last = model.forward_backward(inputs.data(), targets.data(), B, T);
    if (step == 1) first = last;
    optimizer.update(model, 1e-2f, 1.0f, step);
  }
  EXPECT_LT(last, first - 0.01f);
  EXPECT_EQ(std::memcmp(model.base().params_memory(), base.data(), base.size() * sizeof(float)), 0);
}

// GPT-2 (3 heads of 16, a padded vocabulary) with adapters on its four projections: the adapted
// forward against the KV-cached generator and the merged model (1e-5), and AdamW steps (with adjc's
// backward where built, as train's default) that lower the loss and leave the base bit for bit.
TEST(LoraModel, Gpt2AdaptersForwardGenerateMergeAndFreeze) {
  const int B = 2, T = 7, Vp = 128;
  const std::vector<int> inputs = random_tokens(B * T, 67, 7), targets = random_tokens(B * T, 67, 8);
  std::unique_ptr<adjoint::ArenaModel> gpt2 = random_gpt2(31);
  const std::vector<float> base(gpt2->params_memory(), gpt2->params_memory() + gpt2->num_parameters());
  adjoint::LoraModel model(std::move(gpt2), {3, 6.0f, kGpt2Targets}, 32);
  EXPECT_EQ(model.base().grads_memory(), nullptr);
  // train's default backward is the generated one wherever the model has it, as for Llama.
  EXPECT_EQ(model.has_backward(adjoint::Backward::generated), adjoint::have_generated_backward());
  if (adjoint::have_generated_backward()) model.use_backward(adjoint::Backward::generated);
  adjoint::AdamW optimizer(model, {});
  float first = 0, last = 0;
  for (int step = 1; step <= 5; step++) {
    last = model.forward_backward(inputs.data(), targets.data(), B, T);
    if (step == 1) first = last;
    optimizer.update(model, 1e-2f, 1.0f, step);
  }
  EXPECT_LT(last, first - 0.01f);
  EXPECT_EQ(std::memcmp(model.base().params_memory(), base.data(), base.size() * sizeof(float)), 0);

  model.forward(inputs.data(), nullptr, 1, T);
  const float* logits = dynamic_cast<adjoint::GPT2&>(model.base()).logits();
  const std::vector<float> adapted(logits, logits + (std::size_t)T * Vp);
  const auto generator = model.generator(T);
  for (int t = 0; t < T; t++) {
    const float* row = generator->feed(inputs[t]);
    for (int v = 0; v < 67; v++) EXPECT_NEAR(row[v], adapted[(std::size_t)t * Vp + v], 1e-5) << t << " " << v;
  }
  std::unique_ptr<adjoint::Model> merged = model.release_merged();
  merged->forward(inputs.data(), nullptr, 1, T);
  const float* merged_logits = dynamic_cast<adjoint::GPT2&>(*merged).logits();
  for (std::size_t i = 0; i < adapted.size(); i++) EXPECT_NEAR(merged_logits[i], adapted[i], 1e-5) << i;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("adjoint_lora_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

std::vector<char> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

// Saved and loaded adapters are the same bits; read_lora_config gives back the settings.
TEST(LoraFile, RoundTripIsBitIdentical) {
  const LoraConfig config{3, 7.5f, {"up", "q"}};
  auto model = tiny_lora_model(config, 5);
  const std::string path = temp_path("round_trip.bin");
  model->save_file(path, model->params_memory());
  auto other = tiny_lora_model(config, 5);
  std::fill(other->params_memory(), other->params_memory() + other->num_parameters(), 0.0f);
  const LoraConfig read = adjoint::read_lora_config(path, other->base());
  EXPECT_EQ(read.rank, 3);
  EXPECT_EQ(read.alpha, 7.5f);
  EXPECT_EQ(read.targets, config.targets);
  other->load_adapters(path);
  EXPECT_EQ(std::memcmp(other->params_memory(), model->params_memory(), model->num_parameters() * sizeof(float)), 0);
  std::remove(path.c_str());
}

// Each corruption gives one line naming the file and the problem, before anything is read.
TEST(LoraFile, BadFilesAreRejectedWithOneLine) {
  const LoraConfig config{2, 4.0f, {"k", "o"}};
  auto model = tiny_lora_model(config, 8);
  const std::string good = temp_path("good.bin"), bad = temp_path("bad.bin");
  model->save_file(good, model->params_memory());
  const std::vector<char> bytes = file_bytes(good);
  auto rejected = [&](const std::vector<char>& corrupt) {
    write_bytes(bad, corrupt);
    return error_of([&] { model->load_adapters(bad); });
  };
  auto with_int = [&](int index, std::int32_t value) {
    std::vector<char> b = bytes;
    std::memcpy(b.data() + 4 * index, &value, 4);
    return b;
  };
  auto expect = [&](const std::string& message, const std::string& part) {
    EXPECT_TRUE(one_line_with(message, bad + ": ") && one_line_with(message, part)) << message;
  };
  expect(rejected(with_int(0, 1234)), "not a LoRA adapter file (bad magic)");
  expect(rejected(with_int(1, 2)), "unsupported LoRA file version 2");
  expect(rejected(with_int(2, 0)), "--lora-rank 0 is outside");
  expect(rejected(with_int(2, 3)), "the adapters are rank 3 alpha 4 on k,o, this run's rank 2 alpha 4 on k,o");
  expect(rejected(with_int(2, 9)), "exceeds target k's smaller side");
  expect(rejected(with_int(3, std::bit_cast<std::int32_t>(-2.0f))), "--lora-alpha");
  expect(rejected(with_int(4, 3)), "another base model");
  expect(rejected(with_int(8, 9)), "bad LoRA target count 9");
  expect(rejected(with_int(9, 11)), "bad LoRA target index 11");
  expect(rejected(with_int(9, 7)), "--lora-targets: 'qkv' is GPT-2's; Llama's are q, k, v, o, gate, up, down");
  expect(rejected(with_int(10, 1)), "'k' is given twice");
  expect(rejected(std::vector<char>(bytes.begin(), bytes.end() - 4)), "the header implies");
  expect(rejected(std::vector<char>(bytes.begin(), bytes.begin() + 20)), "truncated");
  std::vector<char> nan = bytes;
  const float not_a_number = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(nan.data() + 128 + 4 * 5, &not_a_number, 4);
  expect(rejected(nan), "LoRA adapter lora_A.k[5] is nan");
  EXPECT_TRUE(one_line_with(error_of([&] { model->load_adapters(temp_path("missing.bin")); }), "cannot open"));
  std::remove(good.c_str());
  std::remove(bad.c_str());
}

}  // namespace
