// The gradients adjc generates from the loops of the element-wise and row-wise kernels that the
// Llama ops run (adjoint/kernels.hpp), requested in kernel_gradients.cpp: the pullbacks of
// rmsnorm, rotary and swiglu call them, so no derivative of those ops is written by hand. adjc's
// convention: the kernel's arguments, then one adjoint per chosen pointer (and eps), ADDED into;
// the adjoint of the output (d_out, d_rstd) is the seed and is consumed (zeroed). Defined only in
// builds with adjc (ADJOINT_HAVE_TENSOR_GRADIENT).
#pragma once
#include <cstddef>
#include <string>

namespace adjoint::kernels {

void rmsnorm_forward_grad(float* out, float* rstd, const float* inp, const float* weight, int N, int C, float eps,
                          float* d_out, float* d_rstd, float* d_inp, float* d_weight, float* d_eps);
// The table (cos, sin) held constant, and differentiated too.
void rope_forward_grad(float* out, const float* inp, const float* cos, const float* sin, int B, int T,
                       int rotated_heads, int heads, int hs, float* d_out, float* d_inp);
void rope_forward_grad(float* out, const float* inp, const float* cos, const float* sin, int B, int T,
                       int rotated_heads, int heads, int hs, float* d_out, float* d_inp, float* d_cos, float* d_sin);
void swiglu_forward_grad(float* out, const float* gate, const float* up, std::size_t N, float* d_out, float* d_gate,
                         float* d_up);

}  // namespace adjoint::kernels

namespace adjoint::tensor_detail {
// The C++ adjc generated for the gradients above, for people to read.
std::string kernel_gradients_source();
}  // namespace adjoint::tensor_detail
