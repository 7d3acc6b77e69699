// Corpus: one Llama block written as plain loops, the way llm.c writes its kernels (rmsnorm,
// matmul triple loops, rotary embedding, causal grouped-query attention with its softmax,
// SwiGLU through a `block_silu` function, residual adds), each kernel a function writing its own
// activation buffer. The gradient of everything is checked against central differences, and the
// tape against the activations: loop bounds, rows, the block_silu call's result, RMSNorm's sum of
// squares and the causal mask's branches cost nothing per element or row, so the tape holds little
// more than the softmax's exponentials, which the normalisation overwrites in place.
#include <adjoint/ad.hpp>

#include <cmath>
#include <utility>
#include <vector>

#include "gradcheck.hpp"

using namespace gradcheck;

// out, inp (N,C), rstd (N), weight (C).
void block_rmsnorm(double* out, double* rstd, const double* inp, const double* weight, int N, int C) {
  for (int i = 0; i < N; i++) {
    const double* x = inp + i * C;
    double sum_squares = 0;
    for (int c = 0; c < C; c++) sum_squares += x[c] * x[c];
    const double s = 1 / std::sqrt(sum_squares / C + 1e-5);
    double* o = out + i * C;
    for (int c = 0; c < C; c++) o[c] = x[c] * s * weight[c];
    rstd[i] = s;
  }
}

// out (N,OC) = inp (N,C) · weight (OC,C)ᵀ.
void block_matmul(double* out, const double* inp, const double* weight, int N, int C, int OC) {
  for (int i = 0; i < N; i++)
    for (int o = 0; o < OC; o++) {
      double v = 0;
      for (int c = 0; c < C; c++) v += inp[i * C + c] * weight[o * C + c];
      out[i * OC + o] = v;
    }
}

// out, inp (B,T,heads·hs): channels (2i, 2i+1) of each head rotated by cos/sin (T, hs/2).
void block_rope(double* out, const double* inp, const double* cos, const double* sin, int B, int T, int heads,
                int hs) {
  const int half = hs / 2;
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++)
      for (int h = 0; h < heads; h++)
        for (int i = 0; i < half; i++) {
          const int j = ((b * T + t) * heads + h) * hs + 2 * i;
          const double c = cos[t * half + i], s = sin[t * half + i];
          out[j] = inp[j] * c - inp[j + 1] * s;
          out[j + 1] = inp[j] * s + inp[j + 1] * c;
        }
}

// Causal attention, NH query heads sharing NKV key/value heads: q (B,T,NH·hs), k, v (B,T,NKV·hs),
// preatt, att (B,NH,T,T), out (B,T,NH·hs).
void block_attention(double* out, double* preatt, double* att, const double* q, const double* k, const double* v,
                     int B, int T, int NH, int NKV, int hs) {
  const int group = NH / NKV;
  const double scale = 1 / std::sqrt(double(hs));
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++)
      for (int h = 0; h < NH; h++) {
        const double* query = q + ((b * T + t) * NH + h) * hs;
        const int kh = h / group;
        double* pre = preatt + ((b * NH + h) * T + t) * T;
        double* w = att + ((b * NH + h) * T + t) * T;
        double maxval = -1e30;
        for (int t2 = 0; t2 <= t; t2++) {
          const double* key = k + ((b * T + t2) * NKV + kh) * hs;
          double val = 0;
          for (int i = 0; i < hs; i++) val += query[i] * key[i];
          val *= scale;
          if (val > maxval) maxval = val;
          pre[t2] = val;
        }
        double sum = 0;
        for (int t2 = 0; t2 <= t; t2++) {
          const double e = std::exp(pre[t2] - maxval);
          sum += e;
          w[t2] = e;
        }
        const double inv = 1 / sum;
        for (int t2 = 0; t2 < T; t2++) {
          if (t2 <= t) w[t2] *= inv;
          else w[t2] = 0;
        }
        double* o = out + ((b * T + t) * NH + h) * hs;
        for (int i = 0; i < hs; i++) o[i] = 0;
        for (int t2 = 0; t2 <= t; t2++) {
          const double* value = v + ((b * T + t2) * NKV + kh) * hs;
          const double a = w[t2];
          for (int i = 0; i < hs; i++) o[i] += a * value[i];
        }
      }
}

double block_silu(double a) { return a / (1 + std::exp(-a)); }

// out (N) = silu(gate) · up.
void block_swiglu(double* out, const double* gate, const double* up, int N) {
  for (int i = 0; i < N; i++) out[i] = block_silu(gate[i]) * up[i];
}

// out (N) = a + b.
void block_residual(double* out, const double* a, const double* b, int N) {
  for (int i = 0; i < N; i++) out[i] = a[i] + b[i];
}

// The block: x (B,T,C) → out (B,T,C); H the SwiGLU hidden size; every activation in its buffer.
void llama_block(double* out, double* ln1, double* rstd1, double* q, double* k, double* v, double* qr, double* kr,
                 double* preatt, double* att, double* atty, double* proj, double* res2, double* ln2, double* rstd2,
                 double* gate, double* up, double* hidden, double* mlp, const double* x, const double* ln1w,
                 const double* wq, const double* wk, const double* wv, const double* wo, const double* ln2w,
                 const double* w1, const double* w3, const double* w2, const double* cos, const double* sin, int B,
                 int T, int C, int NH, int NKV, int H) {
  const int N = B * T, hs = C / NH, KV = NKV * hs;
  block_rmsnorm(ln1, rstd1, x, ln1w, N, C);
  block_matmul(q, ln1, wq, N, C, C);
  block_matmul(k, ln1, wk, N, C, KV);
  block_matmul(v, ln1, wv, N, C, KV);
  block_rope(qr, q, cos, sin, B, T, NH, hs);
  block_rope(kr, k, cos, sin, B, T, NKV, hs);
  block_attention(atty, preatt, att, qr, kr, v, B, T, NH, NKV, hs);
  block_matmul(proj, atty, wo, N, C, C);
  block_residual(res2, x, proj, N * C);
  block_rmsnorm(ln2, rstd2, res2, ln2w, N, C);
  block_matmul(gate, ln2, w1, N, C, H);
  block_matmul(up, ln2, w3, N, C, H);
  block_swiglu(hidden, gate, up, N * H);
  block_matmul(mlp, hidden, w2, N, H, C);
  block_residual(out, res2, mlp, N * C);
}

namespace {

constexpr int kC = 8, kNH = 2, kNKV = 1, kH = 12, kHs = kC / kNH, kKV = kNKV * kHs;

// The sizes of llama_block's arrays in parameter order for B, T: 19 activations, then x, the 9
// weights and the RoPE tables.
constexpr std::size_t kActivations = 19, kArrays = 31;
std::vector<std::size_t> array_sizes(int B, int T) {
  const std::size_t N = B * T, att = std::size_t(B) * kNH * T * T, rope = T * kHs / 2;
  return {N * kC,  N * kC,  N,       N * kC,  N * kKV, N * kKV, N * kC,  N * kKV, att,     att, N * kC,
          N * kC,  N * kC,  N * kC,  N,       N * kH,  N * kH,  N * kH,  N * kC,  N * kC,  kC,  kC * kC,
          kKV * kC, kKV * kC, kC * kC, kC,     kH * kC, kH * kC, kC * kH, rope,    rope};
}

}  // namespace

TEST(LlamaBlock, gradient) {
  const int B = 2, T = 5;
  auto g = adjoint::gradient(llama_block);
  const std::vector<std::size_t> n = array_sizes(B, T);
  check("llama_block", g, llama_block, Out<double>{n[0]}, Out<double>{n[1]}, Out<double>{n[2]}, Out<double>{n[3]},
        Out<double>{n[4]}, Out<double>{n[5]}, Out<double>{n[6]}, Out<double>{n[7]}, Out<double>{n[8]},
        Out<double>{n[9]}, Out<double>{n[10]}, Out<double>{n[11]}, Out<double>{n[12]}, Out<double>{n[13]},
        Out<double>{n[14]}, Out<double>{n[15]}, Out<double>{n[16]}, Out<double>{n[17]}, Out<double>{n[18]},
        In<double>{n[19]}, In<double>{n[20]}, In<double>{n[21]}, In<double>{n[22]}, In<double>{n[23]},
        In<double>{n[24]}, In<double>{n[25]}, In<double>{n[26]}, In<double>{n[27]}, In<double>{n[28]},
        In<double>{n[29]}, In<double>{n[30]}, B, T, kC, kNH, kNKV, kH);
}

inline void llama_block_forward(double* out, double* ln1, double* rstd1, double* q, double* k, double* v, double* qr,
                                double* kr, double* preatt, double* att, double* atty, double* proj, double* res2,
                                double* ln2, double* rstd2, double* gate, double* up, double* hidden, double* mlp,
                                const double* x, const double* ln1w, const double* wq, const double* wk,
                                const double* wv, const double* wo, const double* ln2w, const double* w1,
                                const double* w3, const double* w2, const double* cos, const double* sin, int B, int T,
                                int C, int NH, int NKV, int H);
inline void llama_block_reverse(double* out, double* ln1, double* rstd1, double* q, double* k, double* v, double* qr,
                                double* kr, double* preatt, double* att, double* atty, double* proj, double* res2,
                                double* ln2, double* rstd2, double* gate, double* up, double* hidden, double* mlp,
                                const double* x, const double* ln1w, const double* wq, const double* wk,
                                const double* wv, const double* wo, const double* ln2w, const double* w1,
                                const double* w3, const double* w2, const double* cos, const double* sin, int B, int T,
                                int C, int NH, int NKV, int H, double* d_out, double* d_ln1, double* d_rstd1,
                                double* d_q, double* d_k, double* d_v, double* d_qr, double* d_kr, double* d_preatt,
                                double* d_att, double* d_atty, double* d_proj, double* d_res2, double* d_ln2,
                                double* d_rstd2, double* d_gate, double* d_up, double* d_hidden, double* d_mlp,
                                double* d_x, double* d_ln1w, double* d_wq, double* d_wk, double* d_wv, double* d_wo,
                                double* d_ln2w, double* d_w1, double* d_w3, double* d_w2, double* d_cos, double* d_sin);

// Bytes the forward sweep leaves on the tape for (B, T) (the reverse then pops them), and the
// activations' bytes.
struct BlockTape {
  std::size_t tape = 0, activations = 0;
};
BlockTape block_tape(int B, int T) {
  std::vector<std::vector<double>> arrays, adjoints;
  BlockTape out;
  for (std::size_t n : array_sizes(B, T)) {
    arrays.emplace_back(n);
    adjoints.emplace_back(n, 1.0);
    if (arrays.size() <= kActivations) out.activations += n * sizeof(double);
  }
  for (std::size_t a = kActivations; a < kArrays; a++)
    for (std::size_t i = 0; i < arrays[a].size(); i++) arrays[a][i] = 0.5 * std::sin(0.7 * i + a);
  const std::size_t before = adjoint::thread_tape_bytes();
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    llama_block_forward(arrays[I].data()..., B, T, kC, kNH, kNKV, kH);
    out.tape = adjoint::thread_tape_bytes() - before;
    llama_block_reverse(arrays[I].data()..., B, T, kC, kNH, kNKV, kH, adjoints[I].data()...);
  }(std::make_index_sequence<kArrays>{});
  EXPECT_EQ(adjoint::thread_tape_bytes(), before);
  return out;
}

// The tape is at most a quarter of the activations, and grows with B and T only by what the
// forward destroys: the softmax's exponentials (B·NH·T(T+1)/2 doubles), which the normalisation
// overwrites in place, and per attention row (B·T·NH) its maximum, its sum and the word of bits
// recording where the running maximum changed (data-dependent branches).
TEST(LlamaBlock, tape_holds_little_more_than_the_softmax_exponentials) {
  const auto destroyed = [](int B, int T) {
    return std::size_t(B) * kNH * T * (T + 1) / 2 * sizeof(double) + std::size_t(B) * T * kNH * 3 * 8;
  };
  const BlockTape base = block_tape(2, 5);
  for (auto [B, T] : {std::pair{2, 5}, std::pair{2, 10}, std::pair{4, 7}}) {
    const BlockTape t = block_tape(B, T);
    EXPECT_LE(t.tape * 4, t.activations) << "B=" << B << " T=" << T << " tape " << t.tape << " activations "
                                         << t.activations;
    EXPECT_EQ(t.tape - destroyed(B, T), base.tape - destroyed(2, 5))
        << "B=" << B << " T=" << T << " tape " << t.tape << " (2,5): " << base.tape;
  }
}
