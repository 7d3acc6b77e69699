// Writes every op case of op_cases.hpp as JSON: inputs, integer arguments, the forward's
// output, a random d_result and the pullback's input gradients. check_ops.py recomputes them
// with PyTorch autograd.
#include <cstdio>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>

#include "adjoint/file_io.hpp"
#include "op_cases.hpp"

namespace {

using namespace tensor_test;
using adjoint::Tensor;

nlohmann::json to_json(const Tensor& t) {
  return {{"shape", std::vector<int>(t.shape, t.shape + t.ndim)}, {"values", values(t)}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT.json\n", argv[0]);
    return 2;
  }
  adjoint::Arena arena;
  adjoint::ArenaScope scope(arena);
  adjoint::Rng rng(314159);
  nlohmann::json cases = nlohmann::json::array();
  for (const OpCase& c : make_cases(rng)) {
    const Tensor y = c.forward(c.inputs);
    const Tensor d_result = random_tensor(rng, std::vector<int>(y.shape, y.shape + y.ndim));
    std::vector<Tensor> grads(c.inputs.size());
    std::vector<Tensor*> pointers;
    for (Tensor& g : grads) pointers.push_back(&g);
    c.pullback(c.inputs, d_result, pointers);
    nlohmann::json entry = {{"op", c.op}, {"ints", c.ints}, {"output", to_json(y)}, {"d_result", to_json(d_result)}};
    for (std::size_t i = 0; i < c.inputs.size(); i++) {
      entry["inputs"].push_back(to_json(c.inputs[i]));
      entry["grads"].push_back(grads[i].empty() ? to_json(adjoint::zeros_like(c.inputs[i])) : to_json(grads[i]));
    }
    cases.push_back(entry);
  }
  try {
    const std::string text = cases.dump();
    adjoint::AtomicFileWriter out(argv[1]);
    out.write(text.data(), text.size());
    out.commit();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
