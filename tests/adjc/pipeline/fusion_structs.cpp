// adjc --remarks on kernel calls over the pointer members of a struct (the models' activations):
// members are arrays of their own, and passing the struct whole uses every one of them
// (adjc.pipeline.fusion_struct_remarks compares the fusion remarks with fusion_structs.expected).
#include <adjoint/ad.hpp>

#include "adjoint/kernels.hpp"

using namespace adjoint::kernels;

struct Buffers {
  double* sum;
  double* act;
};

void add_all(double* out, const Buffers& b, long n) {
  for (long i = 0; i < n; i++) out[i] = b.sum[i] + b.act[i];
}

// Refused: add_all reads b.sum through the struct.
void whole_struct_reader(Buffers& b, double* out, const double* x, const double* y, long n) {
  residual_forward(b.sum, x, y, n);
  gelu_forward(b.act, b.sum, n);
  add_all(out, b, n);
}

// Both pairs fuse: the other members' uses are not uses of the intermediate.
void member_chain(Buffers& b, double* out, const double* x, const double* y, long n) {
  residual_forward(b.sum, x, y, n);
  gelu_forward(b.act, b.sum, n);
  residual_forward(out, b.act, x, n);
}

auto whole_struct_reader_gradient = adjoint::gradient(whole_struct_reader, "b, out, x, y");
auto member_chain_gradient = adjoint::gradient(member_chain, "b, out, x, y");
