// Reverse loops whose iterations share nothing but sums into the adjoints of outer scalars (the
// mean's, the scale's) are marked ADJOINT_SIMD: `omp simd` with those sums as reductions. The
// iteration's local `d` and its adjoint are declared inside the vectorised loop.
#include <adjoint/ad.hpp>
#include <cmath>

void normalise(float* out, const float* inp, int N) {
  float m = 0.0f;
  for (int i = 0; i < N; i++) m += inp[i];
  m = m / N;
  float v = 0.0f;
  for (int i = 0; i < N; i++) {
    float d = inp[i] - m;
    v += d * d;
  }
  float s = 1.0f / sqrtf(v / N + 1e-5f);
  for (int i = 0; i < N; i++) out[i] = (inp[i] - m) * s;
}

const char* request() { return adjoint::gradient(normalise).source(); }
