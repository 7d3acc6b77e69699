// tensor_grad MODEL TOKENS B T OUT: the loss of the tensor GPT-2 on the first B*T+1 tokens
// (printed as "loss <value>") and its gradient by nn::gpt2_loss_backward_by_hand, written to OUT
// in the model-file format, as `adjoint grad` does for the arrays_model. check_gpt2_grad.py compares
// both with PyTorch.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#include "adjoint/checkpoint.hpp"
#include "adjoint/nn.hpp"
#include "gpt2_backward_by_hand.hpp"
#include "adjoint/token_file.hpp"

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s MODEL TOKENS B T OUT\n", argv[0]);
    return 2;
  }
  try {
    const auto arrays_model = adjoint::load_model(argv[1]);
    const adjoint::GPT2Config& config = arrays_model->config();
    const std::vector<int> file_tokens = adjoint::read_token_file(argv[2]).tokens;
    const int B = std::atoi(argv[3]), T = std::atoi(argv[4]);
    if (B <= 0 || T <= 0 || T > config.max_seq_len || file_tokens.size() < std::size_t(B) * T + 1) {
      std::fprintf(stderr, "error: need B > 0, 0 < T <= maxT and at least B*T+1 tokens\n");
      return 2;
    }
    const std::vector<int> tokens(file_tokens.begin(), file_tokens.begin() + std::size_t(B) * T + 1);
    adjoint::FloatArena grads(arrays_model->num_parameters());
    adjoint::Arena arena;
    adjoint::ArenaScope scope(arena);
    const adjoint::nn::GPT2Views model(config, arrays_model->params());
    adjoint::nn::GPT2Views gradient(config, adjoint::parameter_views(grads.data(), config));
    const float loss = adjoint::nn::gpt2_loss_backward_by_hand(model.model(), gradient.model(), tokens.data(),
                                                               tokens.data() + 1, B, T);
    adjoint::save_model_file(argv[5], config, grads.data());
    std::printf("loss %.9g\n", loss);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
