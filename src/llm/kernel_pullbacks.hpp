// Custom pullbacks of the kernels whose hand-written backward the generated GPT-2 and Llama
// backward passes keep: the matmuls, calls with no loops for adjc to see (gpt2/forward.cpp,
// llama/forward.cpp include this before their forward).
#pragma once
#include <adjoint/ad.hpp>

#include <cstring>

#include "adjoint/kernels.hpp"
#include "adjoint/lora.hpp"

namespace adjoint {

// Custom pullbacks: adjc calls them in the reverse sweep with the forward call's arguments and
// one adjoint per floating pointer parameter. Each adds into its inputs' adjoints and then
// clears the adjoint of the output it consumed (the output was overwritten), so buffers that
// are reused, like the projection scratch, start every use from zero.
// Kernels called without their optional inputs, as functions adjc can call (it does not take a
// null pointer cast as an argument). out (N,OC) = inp (N,C) · weight (OC,C)ᵀ: a matmul without
// bias (GPT-2's tied LM head, all of Llama's projections).
inline void linear_forward(float* out, const float* inp, const float* weight, int N, int C, int OC) {
  kernels::matmul_forward(out, inp, weight, static_cast<const float*>(nullptr), N, C, OC);
}
// linear_forward plus the outputs of the LoRA adapters (adjoint/lora.hpp) in the base's parameter
// tensor `tensor` of layer `layer`; without adapters (null), linear_forward.
inline void adapted_linear_forward(float* out, const float* inp, const float* weight, const LoraAdapters* adapters,
                                   int tensor, int layer, int N, int C, int OC) {
  linear_forward(out, inp, weight, N, C, OC);
  if (adapters) adapters->add_output(tensor, layer, out, inp, N);
}
// matmul_forward (with a bias) plus the outputs of the LoRA adapters in `tensor` of `layer`.
inline void adapted_matmul_forward(float* out, const float* inp, const float* weight, const float* bias,
                                   const LoraAdapters* adapters, int tensor, int layer, int N, int C, int OC) {
  kernels::matmul_forward(out, inp, weight, bias, N, C, OC);
  if (adapters) adapters->add_output(tensor, layer, out, inp, N);
}
namespace custom_derivatives {

using namespace kernels;

inline void clear(float* adjoint, std::size_t count) { std::memset(adjoint, 0, count * sizeof(float)); }

inline void matmul_forward_pullback(float*, const float* inp, const float* weight, const float*, int N, int C, int OC,
                                    float* d_out, float* d_inp, float* d_weight, float* d_bias) {
  matmul_backward(d_inp, d_weight, d_bias, d_out, inp, weight, N, C, OC);
  clear(d_out, (std::size_t)N * OC);
}

// A request that leaves the weights inactive (LoRA's, "a") passes a null d_weight: then no
// weight-gradient GEMM runs, only dinp += dout·W (adapted_projection_backward).
inline void linear_forward_pullback(float*, const float* inp, const float* weight, int N, int C, int OC, float* d_out,
                                    float* d_inp, float* d_weight) {
  adapted_projection_backward(d_inp, d_weight, nullptr, d_out, inp, weight, nullptr, 0, 0, N, C, OC);
  clear(d_out, (std::size_t)N * OC);
}

// The adapters' gradients go into their own arena (LoraAdapters::backward), not through an
// adjoint: the LoRA request differentiates the activations only.
inline void adapted_linear_forward_pullback(float*, const float* inp, const float* weight, const LoraAdapters* adapters,
                                            int tensor, int layer, int N, int C, int OC, float* d_out, float* d_inp,
                                            float* d_weight, LoraAdapters*) {
  adapted_projection_backward(d_inp, d_weight, nullptr, d_out, inp, weight, adapters, tensor, layer, N, C, OC);
  clear(d_out, (std::size_t)N * OC);
}

inline void adapted_matmul_forward_pullback(float*, const float* inp, const float* weight, const float*,
                                            const LoraAdapters* adapters, int tensor, int layer, int N, int C, int OC,
                                            float* d_out, float* d_inp, float* d_weight, float* d_bias, LoraAdapters*) {
  adapted_projection_backward(d_inp, d_weight, d_bias, d_out, inp, weight, adapters, tensor, layer, N, C, OC);
  clear(d_out, (std::size_t)N * OC);
}

}  // namespace custom_derivatives

}  // namespace adjoint
