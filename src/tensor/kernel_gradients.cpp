// The requests that make adjc generate the gradients declared in kernel_gradients.hpp from the
// kernels' loops (this file is compiled from adjc's output: adjoint_add_gradients in
// CMakeLists.txt). At global scope: adjc declares the generated functions where a request stands.
#include <adjoint/ad.hpp>

#include <string>

#include "adjoint/kernels.hpp"
#include "kernel_gradients.hpp"

static const char* rmsnorm_source() {
  return adjoint::gradient(adjoint::kernels::rmsnorm_forward<float>, "out, rstd, inp, weight, eps").source();
}
static const char* rope_source() { return adjoint::gradient(adjoint::kernels::rope_forward<float>, "out, inp").source(); }
static const char* rope_table_source() {
  return adjoint::gradient(adjoint::kernels::rope_forward<float>, "out, inp, cos, sin").source();
}
static const char* swiglu_source() {
  return adjoint::gradient(adjoint::kernels::swiglu_forward<float>, "out, gate, up").source();
}

std::string adjoint::tensor_detail::kernel_gradients_source() {
  return std::string(rmsnorm_source()) + "\n" + rope_source() + "\n" + rope_table_source() + "\n" + swiglu_source();
}
