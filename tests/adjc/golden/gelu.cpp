// A straight loop over arrays: locals are recomputed in the reverse sweep, nothing is taped per
// element (only the loop's start and trip count).
#include <adjoint/ad.hpp>
#include <cmath>

void gelu_forward(float* out, const float* inp, int N) {
  for (int i = 0; i < N; i++) {
    float x = inp[i];
    float cube = 0.044715f * x * x * x;
    out[i] = 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + cube)));
  }
}

const char* request() { return adjoint::gradient(gelu_forward).source(); }
