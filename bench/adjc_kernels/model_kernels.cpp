// adjc_kernels' rows for the models' kernels (adjoint/kernels.hpp): the reverse adjc generates
// from their loops against their hand-written backward (src/kernels), built with the flags of the
// engine's kernels and forward.cpp (CMakeLists.txt). Times are this thread's: run with
// OMP_NUM_THREADS=1.
#include <adjoint/ad.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "adjoint/kernels.hpp"
#include "timing.hpp"

namespace adjoint::kernels {
inline void layernorm_forward_forward(float*, float*, float*, const float*, const float*, const float*, int, int);
inline void layernorm_forward_reverse(float*, float*, float*, const float*, const float*, const float*, int, int,
                                      float*, float*, float*, float*, float*, float*);
inline void encoder_forward_forward(float*, const int*, const float*, const float*, int, int, int);
inline void encoder_forward_reverse(float*, const int*, const float*, const float*, int, int, int, float*, float*,
                                    float*);
inline void grouped_attention_forward_forward(float*, float*, float*, const float*, int, int, int, int, int);
inline void grouped_attention_forward_reverse(float*, float*, float*, const float*, int, int, int, int, int, float*,
                                              float*, float*, float*);
inline void softmax_crossentropy_forward_forward(float*, float*, const float*, const int*, int, int, int);
inline void softmax_crossentropy_forward_reverse(float*, float*, const float*, const int*, int, int, int, float*,
                                                 float*, float*);
}  // namespace adjoint::kernels

// Causal attention at gpt2-124M's shape, B=4 T=64 NH=12 hs=64, with NKV key/value heads: 12 is
// GPT-2's attention, 4 llama3-bench's grouped one.
void attention_row(int reps, std::mt19937& rng, int NKV) {
  namespace k = adjoint::kernels;
  const int B = 4, T = 64, NH = 12, hs = 64, N = B * T, C = NH * hs, QKV = (NH + 2 * NKV) * hs;
  auto qkv = random_vector(N * QKV, -1, 1, rng), seed = random_vector(N * C, -1, 1, rng);
  std::vector<float> out(N * C), att(B * NH * T * T), att_sum(B * NH * T), scratch(B * NH * T), dout(N * C),
      datt(att.size()), datt_sum(att_sum.size()), dqkv_h(qkv.size()), dqkv_a(qkv.size());
  auto g = adjoint::gradient(k::grouped_attention_forward<float>);
  auto prepare = [&] {
    zero(dqkv_a);
    zero(datt);  // the probabilities and sums carry no gradient of their own in the models
    zero(datt_sum);
    dout = seed;
  };
  Timing t =
      compare([&] { zero(dqkv_h); },
              [&] {
                k::grouped_attention_forward(out.data(), att.data(), att_sum.data(), qkv.data(), B, T, NH, NKV, hs);
                k::grouped_attention_backward(dqkv_h.data(), scratch.data(), seed.data(), qkv.data(), att.data(), B, T,
                                              NH, NKV, hs);
              },
              prepare,
              [&] {
                g.execute(out.data(), att.data(), att_sum.data(), qkv.data(), B, T, NH, NKV, hs, dout.data(),
                          datt.data(), datt_sum.data(), dqkv_a.data());
              },
              reps);
  prepare();
  k::grouped_attention_forward_forward(out.data(), att.data(), att_sum.data(), qkv.data(), B, T, NH, NKV, hs);
  std::size_t tape = adjoint::thread_tape_bytes();
  k::grouped_attention_forward_reverse(out.data(), att.data(), att_sum.data(), qkv.data(), B, T, NH, NKV, hs,
                                       dout.data(), datt.data(), datt_sum.data(), dqkv_a.data());
  row(NKV == NH ? "model attn" : "model gqa attn", NKV == NH ? "B=4 T=64 NH=12" : "B=4 T=64 NH=12 NKV=4", t, tape,
      max_abs_diff(dqkv_h, dqkv_a));
}

// The models' kernels (adjoint/kernels.hpp) at gpt2-124M's width, B=4 T=64 (adjoint bench's
// first shape): adjc's reverse against the hand-written backward of src/kernels.
void model_kernel_rows(int reps, std::mt19937& rng) {
  namespace k = adjoint::kernels;
  const int B = 4, T = 64, C = 768, V = 50257, N = B * T;
  {  // layernorm
    auto inp = random_vector(N * C, -2, 2, rng), weight = random_vector(C, 0.5, 1.5, rng),
         bias = random_vector(C, -0.5, 0.5, rng), seed = random_vector(N * C, -1, 1, rng);
    std::vector<float> out(N * C), mean(N), rstd(N), dout(N * C), dmean(N), drstd(N);
    std::vector<float> dinp_h(N * C), dw_h(C), db_h(C), dinp_a(N * C), dw_a(C), db_a(C);
    auto g = adjoint::gradient(k::layernorm_forward<float>);
    auto prepare = [&] {
      zero(dinp_a);
      zero(dw_a);
      zero(db_a);
      zero(dmean);
      zero(drstd);
      dout = seed;
    };
    Timing t = compare(
        [&] {
          zero(dinp_h);
          zero(dw_h);
          zero(db_h);
        },
        [&] {
          k::layernorm_forward(out.data(), mean.data(), rstd.data(), inp.data(), weight.data(), bias.data(), N, C);
          k::layernorm_backward(dinp_h.data(), dw_h.data(), db_h.data(), seed.data(), inp.data(), weight.data(),
                                mean.data(), rstd.data(), N, C);
        },
        prepare,
        [&] {
          g.execute(out.data(), mean.data(), rstd.data(), inp.data(), weight.data(), bias.data(), N, C, dout.data(),
                    dmean.data(), drstd.data(), dinp_a.data(), dw_a.data(), db_a.data());
        },
        reps);
    prepare();
    k::layernorm_forward_forward(out.data(), mean.data(), rstd.data(), inp.data(), weight.data(), bias.data(), N, C);
    std::size_t tape = adjoint::thread_tape_bytes();
    k::layernorm_forward_reverse(out.data(), mean.data(), rstd.data(), inp.data(), weight.data(), bias.data(), N, C,
                                 dout.data(), dmean.data(), drstd.data(), dinp_a.data(), dw_a.data(), db_a.data());
    double diff = std::max({max_abs_diff(dinp_h, dinp_a), max_abs_diff(dw_h, dw_a), max_abs_diff(db_h, db_a)});
    row("model lnorm", "N=256 C=768", t, tape, diff);
  }
  {  // encoder: token + position embedding
    auto wte = random_vector(std::size_t(V) * C, -1, 1, rng), wpe = random_vector(T * C, -1, 1, rng),
         seed = random_vector(N * C, -1, 1, rng);
    std::vector<int> tokens(N);
    for (auto& token : tokens) token = int(rng() % 512);  // repeated tokens share rows of dwte
    std::vector<float> out(N * C), dout(N * C), dwte_h(wte.size()), dwpe_h(wpe.size()), dwte_a(wte.size()),
        dwpe_a(wpe.size());
    auto g = adjoint::gradient(k::encoder_forward<float>, "out, wte, wpe");
    auto prepare = [&] {
      std::fill_n(dwte_a.begin(), 512 * C, 0.0f);
      zero(dwpe_a);
      dout = seed;
    };
    Timing t = compare(
        [&] {
          std::fill_n(dwte_h.begin(), 512 * C, 0.0f);
          zero(dwpe_h);
        },
        [&] {
          k::encoder_forward(out.data(), tokens.data(), wte.data(), wpe.data(), B, T, C);
          k::encoder_backward(dwte_h.data(), dwpe_h.data(), seed.data(), tokens.data(), B, T, C);
        },
        prepare,
        [&] {
          g.execute(out.data(), tokens.data(), wte.data(), wpe.data(), B, T, C, dout.data(), dwte_a.data(),
                    dwpe_a.data());
        },
        reps);
    prepare();
    k::encoder_forward_forward(out.data(), tokens.data(), wte.data(), wpe.data(), B, T, C);
    std::size_t tape = adjoint::thread_tape_bytes();
    k::encoder_forward_reverse(out.data(), tokens.data(), wte.data(), wpe.data(), B, T, C, dout.data(), dwte_a.data(),
                               dwpe_a.data());
    row("model encoder", "N=256 C=768", t, tape, std::max(max_abs_diff(dwte_h, dwte_a), max_abs_diff(dwpe_h, dwpe_a)));
  }
  {  // softmax + cross-entropy, in place over the logits as the models call it
    const int Vp = 50304;
    auto logits = random_vector(std::size_t(N) * Vp, -4, 4, rng);
    std::vector<int> targets(N);
    for (auto& target : targets) target = int(rng() % V);
    std::vector<float> buf_h(logits.size()), buf_a(logits.size()), dbuf_a(logits.size()), losses(N), dlosses(N);
    auto g = adjoint::gradient(k::softmax_crossentropy_forward<float>, "losses, probs, logits");
    auto prepare = [&] {
      buf_a = logits;
      zero(dbuf_a);  // the probabilities' adjoint, which the logits' shares (src/llm/layout.hpp)
      std::fill(dlosses.begin(), dlosses.end(), 1.0f / N);
    };
    Timing t = compare(
        [&] {
          buf_h = logits;
          std::fill(dlosses.begin(), dlosses.end(), 1.0f / N);
        },
        [&] {
          k::softmax_crossentropy_forward(losses.data(), buf_h.data(), buf_h.data(), targets.data(), N, V, Vp);
          k::softmax_crossentropy_backward(buf_h.data(), buf_h.data(), targets.data(), dlosses.data(), N, V, Vp);
        },
        prepare,
        [&] {
          g.execute(losses.data(), buf_a.data(), buf_a.data(), targets.data(), N, V, Vp, dlosses.data(), dbuf_a.data(),
                    dbuf_a.data());
        },
        reps);
    prepare();
    k::softmax_crossentropy_forward_forward(losses.data(), buf_a.data(), buf_a.data(), targets.data(), N, V, Vp);
    std::size_t tape = adjoint::thread_tape_bytes();
    k::softmax_crossentropy_forward_reverse(losses.data(), buf_a.data(), buf_a.data(), targets.data(), N, V, Vp,
                                            dlosses.data(), dbuf_a.data(), dbuf_a.data());
    row("model sm+xent", "N=256 Vp=50304", t, tape, max_abs_diff(buf_h, dbuf_a));
  }
  attention_row(reps, rng, 12);
  attention_row(reps, rng, 4);
}
