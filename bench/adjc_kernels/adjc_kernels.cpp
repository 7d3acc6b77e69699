// adjc_kernels: the backward passes adjc generates for GELU, layernorm, softmax and
// cross-entropy written as plain loops, against hand-written (llm.c-style) backwards of the same
// kernels, and (model_kernels.cpp, the "model" rows) for the models' own kernels whose reverse the
// generated backward takes from adjc against their hand-written backward. Both sides run forward +
// backward; the table reports medians over repetitions, the ratio adjc / hand-written, and the
// tape bytes adjc's forward sweep leaves for its reverse sweep.
#include <adjoint/ad.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
#include <vector>

#include "timing.hpp"

// ---------------------------------------------------------------------------------------------
// Kernels as plain loops (what adjc differentiates)

// out, inp: (N)
void gelu_forward(float* out, const float* inp, int N) {
  for (int i = 0; i < N; i++) {
    float x = inp[i];
    float cube = 0.044715f * x * x * x;
    out[i] = 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + cube)));
  }
}

// out: (B,T,C), mean, rstd: (B,T), inp: (B,T,C), weight, bias: (C)
void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, int B, int T, int C) {
  for (int bt = 0; bt < B * T; bt++) {
    const float* x = inp + bt * C;
    float m = 0.0f;
    for (int i = 0; i < C; i++) m += x[i];
    m = m / C;
    float v = 0.0f;
    for (int i = 0; i < C; i++) v += (x[i] - m) * (x[i] - m);
    v = v / C;
    float s = 1.0f / sqrtf(v + 1e-5f);
    float* o = out + bt * C;
    for (int i = 0; i < C; i++) o[i] = (s * (x[i] - m)) * weight[i] + bias[i];
    mean[bt] = m;
    rstd[bt] = s;
  }
}

// probs, logits: (BT,V); the exponentials computed twice (for the sum, then for probs)
void softmax_forward(float* probs, const float* logits, int BT, int V) {
  for (int bt = 0; bt < BT; bt++) {
    const float* x = logits + bt * V;
    int imax = 0;
    for (int i = 1; i < V; i++)
      if (x[i] > x[imax]) imax = i;
    float maxv = x[imax];
    float sum = 0.0f;
    for (int i = 0; i < V; i++) sum += expf(x[i] - maxv);
    float inv = 1.0f / sum;
    for (int i = 0; i < V; i++) probs[bt * V + i] = expf(x[i] - maxv) * inv;
  }
}

// probs, logits: (BT,V); llm.c's form: the exponentials go into probs, normalised in place
void softmax_inplace_forward(float* probs, const float* logits, int BT, int V) {
  for (int bt = 0; bt < BT; bt++) {
    const float* x = logits + bt * V;
    float* p = probs + bt * V;
    float maxv = -10000.0f;
    for (int i = 0; i < V; i++)
      if (x[i] > maxv) maxv = x[i];
    float sum = 0.0f;
    for (int i = 0; i < V; i++) {
      p[i] = expf(x[i] - maxv);
      sum += p[i];
    }
    for (int i = 0; i < V; i++) p[i] = p[i] / sum;
  }
}

// probs: (BT,V), targets: (BT); the mean negative log-likelihood
float crossentropy_forward(const float* probs, const int* targets, int BT, int V) {
  float loss = 0.0f;
  for (int bt = 0; bt < BT; bt++) loss += -logf(probs[bt * V + targets[bt]]);
  return loss / BT;
}

inline void gelu_forward_forward(float* out, const float* inp, int N);
inline void layernorm_forward_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                                      const float* bias, int B, int T, int C);
inline void softmax_forward_forward(float* probs, const float* logits, int BT, int V);
inline void softmax_inplace_forward_forward(float* probs, const float* logits, int BT, int V);
inline float crossentropy_forward_forward(const float* probs, const int* targets, int BT, int V);
inline void gelu_forward_reverse(float*, const float*, int, float*, float*);
inline void layernorm_forward_reverse(float*, float*, float*, const float*, const float*, const float*, int, int, int,
                                      float*, float*, float*, float*, float*, float*);
inline void softmax_forward_reverse(float*, const float*, int, int, float*, float*);
inline void softmax_inplace_forward_reverse(float*, const float*, int, int, float*, float*);
inline void crossentropy_forward_reverse(const float*, const int*, int, int, float, float*);

// ---------------------------------------------------------------------------------------------
// Hand-written backwards (llm.c's formulas)

void gelu_backward(float* dinp, const float* inp, const float* dout, int N) {
  const float s = 0.7978845608f;
  for (int i = 0; i < N; i++) {
    float x = inp[i];
    float cube = 0.044715f * x * x * x;
    float tanh_out = tanhf(s * (x + cube));
    float cosh_out = coshf(s * (x + cube));
    float sech_out = 1.0f / (cosh_out * cosh_out);
    float local_grad = 0.5f * (1.0f + tanh_out) + x * 0.5f * sech_out * s * (1.0f + 3.0f * 0.044715f * x * x);
    dinp[i] += local_grad * dout[i];
  }
}

void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                        const float* weight, const float* mean, const float* rstd, int B, int T, int C) {
  for (int bt = 0; bt < B * T; bt++) {
    const float* dout_bt = dout + bt * C;
    const float* inp_bt = inp + bt * C;
    float* dinp_bt = dinp + bt * C;
    float mean_bt = mean[bt], rstd_bt = rstd[bt];
    float dnorm_mean = 0.0f, dnorm_norm_mean = 0.0f;
    for (int i = 0; i < C; i++) {
      float norm_bti = (inp_bt[i] - mean_bt) * rstd_bt;
      float dnorm_i = weight[i] * dout_bt[i];
      dnorm_mean += dnorm_i;
      dnorm_norm_mean += dnorm_i * norm_bti;
    }
    dnorm_mean = dnorm_mean / C;
    dnorm_norm_mean = dnorm_norm_mean / C;
    for (int i = 0; i < C; i++) {
      float norm_bti = (inp_bt[i] - mean_bt) * rstd_bt;
      float dnorm_i = weight[i] * dout_bt[i];
      dbias[i] += dout_bt[i];
      dweight[i] += norm_bti * dout_bt[i];
      dinp_bt[i] += (dnorm_i - dnorm_mean - norm_bti * dnorm_norm_mean) * rstd_bt;
    }
  }
}

void softmax_backward(float* dlogits, const float* dprobs, const float* probs, int BT, int V) {
  for (int bt = 0; bt < BT; bt++) {
    const float* p = probs + bt * V;
    const float* dp = dprobs + bt * V;
    float dot = 0.0f;
    for (int i = 0; i < V; i++) dot += p[i] * dp[i];
    for (int i = 0; i < V; i++) dlogits[bt * V + i] += p[i] * (dp[i] - dot);
  }
}

void crossentropy_backward(float* dprobs, const float* probs, const int* targets, float dloss, int BT, int V) {
  for (int bt = 0; bt < BT; bt++) dprobs[bt * V + targets[bt]] += -dloss / BT / probs[bt * V + targets[bt]];
}

// Rows for the models' kernels (model_kernels.cpp).
void model_kernel_rows(int reps, std::mt19937& rng);

int main(int argc, char** argv) {
  int reps = argc > 1 ? std::atoi(argv[1]) : 21;
  if (reps < 1) {
    std::fprintf(stderr, "adjc_kernels: error: repetitions must be a positive integer\n");
    return 1;
  }
  std::mt19937 rng(7);
  const int B = 8, T = 64, C = 768, V = 8192, BT = B * T;
  std::printf("adjc_kernels: forward + backward, %d runs of each, alternating (CPU ms of this thread, medians); ratio = "
              "median [quartiles] of adjc / hand-written per run; tape = bytes adjc's forward sweep stores; diff = max "
              "|adjc - hand-written| gradient\n\n",
              reps);
  std::printf("| %-13s | %-16s | %9s | %9s | %-19s | %10s | %9s |\n", "kernel", "shape", "hand ms", "adjc ms",
              "ratio [quartiles]", "tape bytes", "diff");
  std::printf("|---------------|------------------|-----------|-----------|---------------------|------------|-----------|\n");

  {  // GELU
    const int N = BT * 4 * C;
    auto inp = random_vector(N, -3, 3, rng), seed = random_vector(N, -1, 1, rng);
    std::vector<float> out(N), dout(N), dinp_hand(N), dinp_adjc(N);
    auto g = adjoint::gradient(gelu_forward);
    Timing t = compare([&] { zero(dinp_hand); }, [&] {
      gelu_forward(out.data(), inp.data(), N);
      gelu_backward(dinp_hand.data(), inp.data(), seed.data(), N);
    }, [&] { zero(dinp_adjc); dout = seed; }, [&] {
      g.execute(out.data(), inp.data(), N, dout.data(), dinp_adjc.data());
    }, reps);
    dout = seed;
    gelu_forward_forward(out.data(), inp.data(), N);
    std::size_t tape = adjoint::thread_tape_bytes();
    zero(dinp_adjc);
    gelu_forward_reverse(out.data(), inp.data(), N, dout.data(), dinp_adjc.data());
    row("gelu", "N=1572864", t, tape, max_abs_diff(dinp_hand, dinp_adjc));
  }
  {  // layernorm
    auto inp = random_vector(BT * C, -2, 2, rng), weight = random_vector(C, 0.5, 1.5, rng),
         bias = random_vector(C, -0.5, 0.5, rng), seed = random_vector(BT * C, -1, 1, rng);
    std::vector<float> out(BT * C), mean(BT), rstd(BT), dout(BT * C), dmean(BT), drstd(BT);
    std::vector<float> dinp_h(BT * C), dw_h(C), db_h(C), dinp_a(BT * C), dw_a(C), db_a(C);
    auto g = adjoint::gradient(layernorm_forward);
    auto prepare = [&] { zero(dinp_a); zero(dw_a); zero(db_a); zero(dmean); zero(drstd); dout = seed; };
    Timing t = compare([&] { zero(dinp_h); zero(dw_h); zero(db_h); }, [&] {
      layernorm_forward(out.data(), mean.data(), rstd.data(), inp.data(), weight.data(), bias.data(), B, T, C);
      layernorm_backward(dinp_h.data(), dw_h.data(), db_h.data(), seed.data(), inp.data(), weight.data(), mean.data(),
                         rstd.data(), B, T, C);
    }, prepare, [&] {
      g.execute(out.data(), mean.data(), rstd.data(), inp.data(), weight.data(), bias.data(), B, T, C, dout.data(),
                dmean.data(), drstd.data(), dinp_a.data(), dw_a.data(), db_a.data());
    }, reps);
    prepare();
    layernorm_forward_forward(out.data(), mean.data(), rstd.data(), inp.data(), weight.data(), bias.data(), B, T, C);
    std::size_t tape = adjoint::thread_tape_bytes();
    layernorm_forward_reverse(out.data(), mean.data(), rstd.data(), inp.data(), weight.data(), bias.data(), B, T, C,
                              dout.data(), dmean.data(), drstd.data(), dinp_a.data(), dw_a.data(), db_a.data());
    double diff = std::max({max_abs_diff(dinp_h, dinp_a), max_abs_diff(dw_h, dw_a), max_abs_diff(db_h, db_a)});
    row("layernorm", "B=8 T=64 C=768", t, tape, diff);
  }
  // softmax in both plain-loop forms: the exponentials stored in probs and normalised in place
  // (llm.c's and the engine's form; the one the target is for), or computed twice and stored nowhere
  auto softmax_row = [&](auto softmax, auto forward_sweep, auto reverse_sweep, auto g, const char* NAME) {
    auto logits = random_vector(BT * V, -4, 4, rng), seed = random_vector(BT * V, -1, 1, rng);
    std::vector<float> probs(BT * V), dprobs(BT * V), dl_h(BT * V), dl_a(BT * V);
    Timing t = compare([&] { zero(dl_h); }, [&] {
      softmax(probs.data(), logits.data(), BT, V);
      softmax_backward(dl_h.data(), seed.data(), probs.data(), BT, V);
    }, [&] { zero(dl_a); dprobs = seed; }, [&] {
      g.execute(probs.data(), logits.data(), BT, V, dprobs.data(), dl_a.data());
    }, reps);
    dprobs = seed;
    forward_sweep(probs.data(), logits.data(), BT, V);
    std::size_t tape = adjoint::thread_tape_bytes();
    zero(dl_a);
    reverse_sweep(probs.data(), logits.data(), BT, V, dprobs.data(), dl_a.data());
    row(NAME, "BT=512 V=8192", t, tape, max_abs_diff(dl_h, dl_a));
  };
  softmax_row(
      softmax_inplace_forward, [](auto... a) { softmax_inplace_forward_forward(a...); },
      [](auto... a) { softmax_inplace_forward_reverse(a...); }, adjoint::gradient(softmax_inplace_forward),
      "softmax");
  softmax_row(
      softmax_forward, [](auto... a) { softmax_forward_forward(a...); },
      [](auto... a) { softmax_forward_reverse(a...); }, adjoint::gradient(softmax_forward), "softmax 2 exp");
  {  // cross-entropy
    const int BTs = 65536, Vs = 64;
    auto probs = random_vector(std::size_t(BTs) * Vs, 0.01f, 1.0f, rng);
    std::vector<int> targets(BTs);
    for (auto& t : targets) t = int(rng() % Vs);
    std::vector<float> dp_h(probs.size()), dp_a(probs.size());
    auto g = adjoint::gradient(crossentropy_forward, "probs");
    volatile float sink = 0;
    Timing t = compare([&] { zero(dp_h); }, [&] {
      sink = crossentropy_forward(probs.data(), targets.data(), BTs, Vs);
      crossentropy_backward(dp_h.data(), probs.data(), targets.data(), 1.0f, BTs, Vs);
    }, [&] { zero(dp_a); }, [&] { g.execute(probs.data(), targets.data(), BTs, Vs, dp_a.data()); }, reps);
    crossentropy_forward_forward(probs.data(), targets.data(), BTs, Vs);
    std::size_t tape = adjoint::thread_tape_bytes();
    zero(dp_a);
    crossentropy_forward_reverse(probs.data(), targets.data(), BTs, Vs, 1.0f, dp_a.data());
    row("crossentropy", "BT=65536 V=64", t, tape, max_abs_diff(dp_h, dp_a));
    (void)sink;
  }
  model_kernel_rows(reps, rng);
  return 0;
}
