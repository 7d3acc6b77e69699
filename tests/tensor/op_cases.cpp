#include "op_cases.hpp"

#include <algorithm>
#include <cmath>

namespace tensor_test {

using namespace adjoint;
namespace cd = adjoint::custom_derivatives;
namespace cf = adjoint::custom_derivatives::class_functions;

float& element(const Tensor& t, std::size_t i) {
  std::ptrdiff_t offset = 0;
  for (int d = t.ndim - 1; d >= 0; d--) {
    offset += std::ptrdiff_t(i % t.shape[d]) * t.strides[d];
    i /= t.shape[d];
  }
  return t.data[offset];
}

std::vector<float> values(const Tensor& t) {
  std::vector<float> v(t.numel());
  for (std::size_t i = 0; i < v.size(); i++) v[i] = element(t, i);
  return v;
}

Tensor random_tensor(Rng& rng, const std::vector<int>& shape, float lo, float hi) {
  Tensor t;
  t.ndim = int(shape.size());
  std::ptrdiff_t n = 1;
  for (int d = t.ndim - 1; d >= 0; d--) {
    t.shape[d] = shape[d];
    t.strides[d] = n;
    n *= shape[d];
  }
  t.data = current_arena().allocate(std::size_t(n));
  for (std::ptrdiff_t i = 0; i < n; i++) t.data[i] = float(lo + (hi - lo) * rng.uniform());
  return t;
}

namespace {

int uniform_int(Rng& rng, int lo, int hi) { return lo + int(rng.next_u64() % std::uint64_t(hi - lo + 1)); }

std::vector<int> random_shape(Rng& rng, int min_dims, int max_dims, int max_extent) {
  std::vector<int> s(uniform_int(rng, min_dims, max_dims));
  for (int& e : s) e = uniform_int(rng, 1, max_extent);
  return s;
}

// A shape that broadcasts to `out`: some leading dims dropped, some extents set to 1.
std::vector<int> broadcastable(Rng& rng, const std::vector<int>& out) {
  std::vector<int> s(out.begin() + uniform_int(rng, 0, int(out.size()) - 1), out.end());
  for (int& e : s)
    if (rng.uniform() < 0.4) e = 1;
  return s;
}

using Inputs = std::vector<Tensor>;
using Adjoints = std::vector<Tensor*>;

OpCase binary_case(const std::string& op, Tensor a, Tensor b) {
  Tensor (*f)(const Tensor&, const Tensor&) = nullptr;
  void (*pb)(const Tensor&, const Tensor&, Tensor, Tensor*, Tensor*) = nullptr;
  if (op == "add") f = adjoint::operator+, pb = cd::operator_plus_pullback;
  if (op == "sub") f = adjoint::operator-, pb = cd::operator_minus_pullback;
  if (op == "mul") f = adjoint::operator*, pb = cd::operator_star_pullback;
  if (op == "div") f = adjoint::operator/, pb = cd::operator_slash_pullback;
  return {op,
          {a, b},
          {},
          [f](const Inputs& in) { return f(in[0], in[1]); },
          [pb](const Inputs& in, Tensor g, const Adjoints& d) { pb(in[0], in[1], g, d[0], d[1]); }};
}

OpCase matmul_case(Tensor a, Tensor b) {
  return {"matmul",
          {a, b},
          {},
          [](const Inputs& in) { return matmul(in[0], in[1]); },
          [](const Inputs& in, Tensor g, const Adjoints& d) { cd::matmul_pullback(in[0], in[1], g, d[0], d[1]); }};
}

}  // namespace

std::vector<OpCase> make_cases(Rng& rng) {
  std::vector<OpCase> cases;
  // Element-wise arithmetic, broadcasting both ways.
  for (const char* op : {"add", "sub", "mul", "div"}) {
    for (int k = 0; k < 4; k++) {
      const std::vector<int> out = random_shape(rng, 1, 4, 4);
      const std::vector<int> sa = k == 0 ? out : broadcastable(rng, out), sb = broadcastable(rng, out);
      const bool divides = std::string(op) == "div";
      Tensor b = random_tensor(rng, sb, divides ? 0.5f : -1.0f, divides ? 1.5f : 1.0f);
      cases.push_back(binary_case(op, random_tensor(rng, sa), b));
    }
    // A strided (transposed) operand.
    cases.push_back(
        binary_case(op, random_tensor(rng, {3, 4}).transpose(0, 1), random_tensor(rng, {4, 3}, 0.5f, 1.5f)));
  }
  cases.push_back({"neg",
                   {random_tensor(rng, random_shape(rng, 1, 4, 4))},
                   {},
                   [](const Inputs& in) { return -in[0]; },
                   [](const Inputs& in, Tensor g, const Adjoints& d) { cd::operator_minus_pullback(in[0], g, d[0]); }});

  // matmul: plain, batched against one matrix, batched pairs, 4-D, transposed views.
  const int M = uniform_int(rng, 1, 5), K = uniform_int(rng, 1, 5), N = uniform_int(rng, 1, 5),
            S = uniform_int(rng, 2, 3);
  cases.push_back(matmul_case(random_tensor(rng, {M, K}), random_tensor(rng, {K, N})));
  cases.push_back(matmul_case(random_tensor(rng, {S, M, K}), random_tensor(rng, {K, N})));
  cases.push_back(matmul_case(random_tensor(rng, {S, M, K}), random_tensor(rng, {S, K, N})));
  cases.push_back(matmul_case(random_tensor(rng, {2, S, M, K}), random_tensor(rng, {2, S, K, N})));
  cases.push_back(matmul_case(random_tensor(rng, {K, M}).transpose(0, 1), random_tensor(rng, {N, K}).transpose(0, 1)));
  cases.push_back(matmul_case(random_tensor(rng, {S, K, M}).transpose(1, 2), random_tensor(rng, {K, N})));

  // linear, with and without bias.
  for (int has_bias = 0; has_bias < 2; has_bias++) {
    const int C = uniform_int(rng, 1, 6), OC = uniform_int(rng, 1, 6);
    Inputs in = {random_tensor(rng, {2, uniform_int(rng, 1, 4), C}), random_tensor(rng, {OC, C})};
    if (has_bias) in.push_back(random_tensor(rng, {OC}));
    cases.push_back({"linear",
                     in,
                     {has_bias},
                     [](const Inputs& in) { return linear(in[0], in[1], in.size() > 2 ? in[2] : Tensor{}); },
                     [](const Inputs& in, Tensor g, const Adjoints& d) {
                       cd::linear_pullback(in[0], in[1], in.size() > 2 ? in[2] : Tensor{}, g, d[0], d[1],
                                           in.size() > 2 ? d[2] : nullptr);
                     }});
  }

  // Reductions.
  for (int k = 0; k < 2; k++) {
    const Tensor x = random_tensor(rng, random_shape(rng, 1, 4, 4));
    cases.push_back({"sum",
                     {x},
                     {},
                     [](const Inputs& in) { return sum(in[0]); },
                     [](const Inputs& in, Tensor g, const Adjoints& d) { cd::sum_pullback(in[0], g, d[0]); }});
    cases.push_back({"mean",
                     {x},
                     {},
                     [](const Inputs& in) { return mean(in[0]); },
                     [](const Inputs& in, Tensor g, const Adjoints& d) { cd::mean_pullback(in[0], g, d[0]); }});
    const int dim = uniform_int(rng, -x.ndim, x.ndim - 1);
    cases.push_back({"sum_dim",
                     {x},
                     {dim},
                     [dim](const Inputs& in) { return sum(in[0], dim); },
                     [dim](const Inputs& in, Tensor g, const Adjoints& d) { cd::sum_pullback(in[0], dim, g, d[0]); }});
    cases.push_back({"mean_dim",
                     {x},
                     {dim},
                     [dim](const Inputs& in) { return mean(in[0], dim); },
                     [dim](const Inputs& in, Tensor g, const Adjoints& d) { cd::mean_pullback(in[0], dim, g, d[0]); }});
  }

  // embedding: ints are B, T, then the ids (repeating, so rows receive several gradients).
  {
    const int V = uniform_int(rng, 2, 6), C = uniform_int(rng, 1, 5), B = 2, T = uniform_int(rng, 2, 4);
    std::vector<int> ints = {B, T};
    for (int i = 0; i < B * T; i++) ints.push_back(uniform_int(rng, 0, V - 1));
    cases.push_back({"embedding",
                     {random_tensor(rng, {V, C})},
                     ints,
                     [ints](const Inputs& in) { return embedding(in[0], ints.data() + 2, ints[0], ints[1]); },
                     [ints](const Inputs& in, Tensor g, const Adjoints& d) {
                       cd::embedding_pullback(in[0], ints.data() + 2, ints[0], ints[1], g, d[0]);
                     }});
  }

  // layernorm over the last dim, on 2-D and 3-D inputs.
  for (int k = 0; k < 2; k++) {
    const int C = uniform_int(rng, 2, 7);
    const std::vector<int> shape = k ? std::vector<int>{2, uniform_int(rng, 1, 3), C} : std::vector<int>{3, C};
    cases.push_back({"layernorm",
                     {random_tensor(rng, shape, -2, 2), random_tensor(rng, {C}, 0.5f, 1.5f), random_tensor(rng, {C})},
                     {},
                     [](const Inputs& in) { return layernorm(in[0], in[1], in[2]); },
                     [](const Inputs& in, Tensor g, const Adjoints& d) {
                       cd::layernorm_pullback(in[0], in[1], in[2], g, d[0], d[1], d[2]);
                     }});
  }

  for (int k = 0; k < 2; k++) {
    cases.push_back({"softmax",
                     {random_tensor(rng, random_shape(rng, 1, 4, 4), -2, 2)},
                     {},
                     [](const Inputs& in) { return softmax(in[0]); },
                     [](const Inputs& in, Tensor g, const Adjoints& d) { cd::softmax_pullback(in[0], g, d[0]); }});
    cases.push_back({"gelu",
                     {random_tensor(rng, random_shape(rng, 1, 4, 4), -3, 3)},
                     {},
                     [](const Inputs& in) { return gelu(in[0]); },
                     [](const Inputs& in, Tensor g, const Adjoints& d) { cd::gelu_pullback(in[0], g, d[0]); }});
  }
  // softmax of a strided view.
  cases.push_back({"softmax",
                   {random_tensor(rng, {4, 3}, -2, 2).transpose(0, 1)},
                   {},
                   [](const Inputs& in) { return softmax(in[0]); },
                   [](const Inputs& in, Tensor g, const Adjoints& d) { cd::softmax_pullback(in[0], g, d[0]); }});

  // causal_attention: ints are n_head.
  for (int k = 0; k < 2; k++) {
    const int n_head = uniform_int(rng, 1, 3), C = n_head * uniform_int(rng, 1, 3);
    cases.push_back({"causal_attention",
                     {random_tensor(rng, {2, uniform_int(rng, 1, 5), 3 * C})},
                     {n_head},
                     [n_head](const Inputs& in) { return causal_attention(in[0], n_head); },
                     [n_head](const Inputs& in, Tensor g, const Adjoints& d) {
                       cd::causal_attention_pullback(in[0], n_head, g, d[0]);
                     }});
  }

  // rmsnorm over the last dim (eps 1e-5), on 2-D and 3-D inputs.
  for (int k = 0; k < 2; k++) {
    const int C = uniform_int(rng, 2, 7);
    const std::vector<int> shape = k ? std::vector<int>{2, uniform_int(rng, 1, 3), C} : std::vector<int>{3, C};
    cases.push_back({"rmsnorm",
                     {random_tensor(rng, shape, -2, 2), random_tensor(rng, {C}, 0.5f, 1.5f)},
                     {},
                     [](const Inputs& in) { return rmsnorm(in[0], in[1], 1e-5f); },
                     [](const Inputs& in, Tensor g, const Adjoints& d) {
                       cd::rmsnorm_pullback(in[0], in[1], 1e-5f, g, d[0], d[1], nullptr);
                     }});
  }
  // rotary: x (B, T, heads, hs), cos and sin tables with more rows than T; ints are rotated_heads.
  // The first case is strided (a transposed view), the second rotates every head.
  for (int k = 0; k < 2; k++) {
    const int B = 2, T = uniform_int(rng, 1, 4), heads = uniform_int(rng, 2, 3), hs = 2 * uniform_int(rng, 1, 3);
    const int rotated = k ? heads : uniform_int(rng, 1, heads - 1);
    const Tensor x = k ? random_tensor(rng, {B, T, heads, hs}) : random_tensor(rng, {B, heads, T, hs}).transpose(1, 2);
    cases.push_back({"rotary",
                     {x, random_tensor(rng, {T + 1, hs / 2}), random_tensor(rng, {T + 1, hs / 2})},
                     {rotated},
                     [rotated](const Inputs& in) { return rotary(in[0], in[1], in[2], rotated); },
                     [rotated](const Inputs& in, Tensor g, const Adjoints& d) {
                       cd::rotary_pullback(in[0], in[1], in[2], rotated, g, d[0], d[1], d[2]);
                     }});
  }
  // rotary with the table a constant (the model's case, a pullback of its own): x only; ints are
  // rotated_heads, and the table is cos and sin of the angle (t + 1)·(i + 1)·0.3.
  {
    const int T = 3, hs = 4;
    Tensor cos = random_tensor(rng, {T, hs / 2}), sin = random_tensor(rng, {T, hs / 2});
    for (int t = 0; t < T; t++)
      for (int i = 0; i < hs / 2; i++) {
        cos.data[t * hs / 2 + i] = std::cos((t + 1) * (i + 1) * 0.3f);
        sin.data[t * hs / 2 + i] = std::sin((t + 1) * (i + 1) * 0.3f);
      }
    cases.push_back({"rotary_constant_table",
                     {random_tensor(rng, {2, T, 3, hs})},
                     {2},
                     [cos, sin](const Inputs& in) { return rotary(in[0], cos, sin, 2); },
                     [cos, sin](const Inputs& in, Tensor g, const Adjoints& d) {
                       cd::rotary_pullback(in[0], cos, sin, 2, g, d[0], nullptr, nullptr);
                     }});
  }
  // swiglu, contiguous and strided.
  for (int k = 0; k < 2; k++) {
    const std::vector<int> shape = random_shape(rng, 1, 4, 4);
    cases.push_back({"swiglu",
                     {random_tensor(rng, shape, -3, 3), random_tensor(rng, shape)},
                     {},
                     [](const Inputs& in) { return swiglu(in[0], in[1]); },
                     [](const Inputs& in, Tensor g, const Adjoints& d) { cd::swiglu_pullback(in[0], in[1], g, d[0], d[1]); }});
  }
  cases.push_back({"swiglu",
                   {random_tensor(rng, {3, 4}, -3, 3).transpose(0, 1), random_tensor(rng, {4, 3})},
                   {},
                   [](const Inputs& in) { return swiglu(in[0], in[1]); },
                   [](const Inputs& in, Tensor g, const Adjoints& d) { cd::swiglu_pullback(in[0], in[1], g, d[0], d[1]); }});

  // grouped_attention: qkv (B, T, NH + 2·NKV, hs); ints are NH, NKV. NH = 6 on NKV = 2, 3, 6.
  for (int nkv : {2, 3, 6}) {
    const int T = uniform_int(rng, 1, 5), hs = uniform_int(rng, 1, 3);
    cases.push_back({"grouped_attention",
                     {random_tensor(rng, {2, T, 6 + 2 * nkv, hs})},
                     {6, nkv},
                     [nkv](const Inputs& in) { return grouped_attention(in[0], 6, nkv); },
                     [nkv](const Inputs& in, Tensor g, const Adjoints& d) {
                       cd::grouped_attention_pullback(in[0], 6, nkv, g, d[0]);
                     }});
  }

  // cross_entropy: ints are V, then one target per row; padded columns past V.
  for (int k = 0; k < 2; k++) {
    const int V = uniform_int(rng, 2, 6), Vp = k ? V : V + uniform_int(rng, 1, 3);
    const std::vector<int> shape = k ? std::vector<int>{3, Vp} : std::vector<int>{2, uniform_int(rng, 1, 3), Vp};
    const Tensor logits = random_tensor(rng, shape, -2, 2);
    std::vector<int> ints = {V};
    for (std::size_t i = 0; i < logits.numel() / Vp; i++) ints.push_back(uniform_int(rng, 0, V - 1));
    cases.push_back({"cross_entropy",
                     {logits},
                     ints,
                     [ints](const Inputs& in) {
                       Tensor loss = adjoint::empty_tensor({});
                       loss.data[0] = cross_entropy(in[0], ints.data() + 1, ints[0]);
                       return loss;
                     },
                     [ints](const Inputs& in, Tensor g, const Adjoints& d) {
                       cd::cross_entropy_pullback(in[0], ints.data() + 1, ints[0], g.data[0], d[0]);
                     }});
  }

  // Views. ints: view/reshape the new shape; transpose the dims; slice dim, start, end.
  {
    const Tensor x = random_tensor(rng, {2, 3, 4});
    cases.push_back({"view",
                     {x},
                     {4, 6},
                     [](const Inputs& in) { return in[0].view(4, -1); },
                     [](const Inputs& in, Tensor g, const Adjoints& d) {
                       cf::view_pullback(&in[0], 4, -1, kNoDim, kNoDim, g, d[0]);
                     }});
    cases.push_back({"reshape",
                     {x.transpose(0, 2)},
                     {24},
                     [](const Inputs& in) { return in[0].reshape(-1); },
                     [](const Inputs& in, Tensor g, const Adjoints& d) {
                       cf::reshape_pullback(&in[0], -1, kNoDim, kNoDim, kNoDim, g, d[0]);
                     }});
    cases.push_back(
        {"transpose",
         {x},
         {0, 2},
         [](const Inputs& in) { return in[0].transpose(0, 2); },
         [](const Inputs& in, Tensor g, const Adjoints& d) { cf::transpose_pullback(&in[0], 0, 2, g, d[0]); }});
    cases.push_back(
        {"slice",
         {x},
         {1, 1, 3},
         [](const Inputs& in) { return in[0].slice(1, 1, 3); },
         [](const Inputs& in, Tensor g, const Adjoints& d) { cf::slice_pullback(&in[0], 1, 1, 3, g, d[0]); }});
    cases.push_back({"contiguous",
                     {x.transpose(1, 2)},
                     {},
                     [](const Inputs& in) { return in[0].contiguous(); },
                     [](const Inputs& in, Tensor g, const Adjoints& d) { cf::contiguous_pullback(&in[0], g, d[0]); }});
  }
  return cases;
}

}  // namespace tensor_test
