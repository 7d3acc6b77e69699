// AdamW across the processes, with whole or sharded (ZeRO-1) moments (adjoint/data_parallel_adamw.hpp).
#include "adjoint/data_parallel_adamw.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace adjoint {
namespace {

// Floats one collective moves in all: the 2 MB pieces of Communicator::sum.
constexpr std::size_t kPieceFloats = std::size_t(1) << 19;

}  // namespace

DataParallelAdamW::DataParallelAdamW(Model& model, const AdamWConfig& config, const Communicator& world,
                                     int zero_stage, bool overlap)
    : model_(model), config_(config), world_(world), zero_stage_(zero_stage), overlap_(overlap),
      norm_in_backward_(zero_stage == 0 && world.size() == 1) {
  if (zero_stage != 0 && zero_stage != 1) {
    throw std::invalid_argument("--zero " + std::to_string(zero_stage) + ": expected 0 or 1");
  }
  const std::size_t N = std::size_t(world.size()), P = model.num_parameters();
  if (zero_stage == 0) {
    whole_.emplace(model, config);
    for (std::size_t begin = 0; begin < P; begin += kPieceFloats) {
      pieces_.push_back({begin, std::min(kPieceFloats, P - begin), 0, 0, -1});
    }
  } else {
    const std::size_t padded = (P + N - 1) / N * N;
    const std::size_t per_rank = std::max<std::size_t>(1, kPieceFloats / N);
    std::size_t shard = 0;
    for (std::size_t begin = 0; begin < padded; begin += N * per_rank) {
      const std::size_t piece_per_rank = std::min(per_rank, (padded - begin) / N);
      pieces_.push_back({begin, N * piece_per_rank, piece_per_rank, shard, -1});
      shard += piece_per_rank;
    }
    m_ = FloatArena(shard);
    v_ = FloatArena(shard);
    grads_ = FloatArena(shard);
    if (padded > P) staging_.resize(pieces_.back().size);
  }
  // A piece is complete when the backward (layers L-1 down to 0) has done the first layer it
  // holds a slice of; one holding any other tensor (embeddings, final norm) only at the end.
  const std::vector<ParameterTensor> tensors = model.parameter_tensors();
  for (Piece& piece : pieces_) {
    const std::size_t end = std::min(piece.begin + piece.size, P);
    int ready = -1;
    std::size_t tensor_begin = 0;
    for (const ParameterTensor& tensor : tensors) {
      const std::size_t tensor_end = tensor_begin + tensor.size;
      if (std::max(piece.begin, tensor_begin) < std::min(end, tensor_end)) {
        if (tensor.layers == 0) {
          ready = -1;
          break;
        }
        const int layer = int((std::max(piece.begin, tensor_begin) - tensor_begin) / (tensor.size / tensor.layers));
        ready = ready < 0 ? layer : std::min(ready, layer);
      }
      tensor_begin = tensor_end;
    }
    piece.ready_after = ready;
  }
  started_.assign(pieces_.size(), false);
  lay_out_norm_parts(tensors);
  model_.on_layer_backward([this](int layer) { on_layer_done(layer); });
}

void DataParallelAdamW::lay_out_norm_parts(const std::vector<ParameterTensor>& tensors) {
  int layers = 0;
  for (const ParameterTensor& tensor : tensors) layers = std::max(layers, tensor.layers);
  layer_ranges_.assign(std::size_t(layers), {});
  const float* grads = model_.grads_memory();
  std::size_t at = 0;
  for (const ParameterTensor& tensor : tensors) {
    if (tensor.layers == 0) {
      other_ranges_.push_back({grads + at, tensor.size});
    } else {
      const std::size_t slice = tensor.size / std::size_t(tensor.layers);
      for (int l = 0; l < tensor.layers; l++) layer_ranges_[std::size_t(l)].push_back({grads + at + l * slice, slice});
    }
    at += tensor.size;
  }
  layer_squares_.assign(std::size_t(layers), 0.0);
  layer_done_.assign(std::size_t(layers), false);
}

DataParallelAdamW::~DataParallelAdamW() { model_.on_layer_backward(nullptr); }

std::size_t DataParallelAdamW::owned_count(const Piece& piece) const {
  const std::size_t begin = owned_begin(piece), P = model_.num_parameters();
  return begin >= P ? 0 : std::min(piece.per_rank, P - begin);
}

void DataParallelAdamW::reduce_piece(std::size_t index, bool blocking) {
  const Piece& piece = pieces_[index];
  float* grads = model_.grads_memory();
  if (zero_stage_ == 0) {
    if (blocking) {
      world_.sum(grads + piece.begin, piece.size);
    } else {
      world_.start_sum(grads + piece.begin, piece.size);
    }
    return;
  }
  const std::size_t P = model_.num_parameters();
  float* send = grads + piece.begin;  // summed in place or not: the gradients are zeroed after
  const std::size_t end = std::min(piece.begin + piece.size, P);
  if (end < piece.begin + piece.size) {  // the last piece, padded with zeros
    std::fill(std::copy(grads + piece.begin, grads + P, staging_.begin()), staging_.end(), 0.0f);
    send = staging_.data();
  }
  if (blocking) {
    world_.reduce_scatter(send, grads_.data() + piece.shard_begin, piece.per_rank);
    // Zeroed for the next step while the sum has just read them (2 MB, in cache): no pass of its own.
    std::fill(grads + piece.begin, grads + end, 0.0f);
  } else {
    world_.start_reduce_scatter(send, grads_.data() + piece.shard_begin, piece.per_rank);
  }
}

void DataParallelAdamW::on_layer_done(int layer) {
  if (!armed_) return;
  if (norm_in_backward_) {
    layer_squares_[std::size_t(layer)] = sum_of_squares(layer_ranges_[std::size_t(layer)]);
    layer_done_[std::size_t(layer)] = true;
  }
  if (!overlap_) return;
  for (std::size_t i = 0; i < pieces_.size(); i++) {
    if (pieces_[i].ready_after == layer) {
      reduce_piece(i, false);
      started_[i] = true;
    }
  }
  world_.progress();
}

double DataParallelAdamW::reduce_gradients() {
  const auto start = std::chrono::steady_clock::now();
  // The overlapped backward started some pieces; the rest go the same way (every process starts
  // the same collectives in the same order).
  const bool overlapped = armed_ && overlap_;
  for (std::size_t i = 0; i < pieces_.size(); i++) {
    if (!started_[i]) reduce_piece(i, !overlapped);
  }
  world_.wait();
  armed_ = false;
  started_.assign(pieces_.size(), false);
  last_reduce_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (zero_stage_ == 0) return std::sqrt(squared_norm_of_layers());
  if (overlapped) model_.zero_grad();  // the blocking pieces zeroed theirs as they went
  // The padding's summed gradients are zeros: the shards' squares add up to the whole's.
  const double shard_norm = gradient_global_norm(grads_.data(), grads_.size());
  return std::sqrt(world_.sum(shard_norm * shard_norm));
}

double DataParallelAdamW::squared_norm_of_layers() {
  // The parts in a fixed order, each summed alike wherever it was taken: the same bits for the
  // hand-written backward, the generated one and any process count.
  double squares = sum_of_squares(other_ranges_);
  for (std::size_t l = 0; l < layer_ranges_.size(); l++) {
    squares += layer_done_[l] ? layer_squares_[l] : sum_of_squares(layer_ranges_[l]);
    layer_done_[l] = false;
  }
  return squares;
}

void DataParallelAdamW::update(float lr, float grad_scale, int step) {
  if (zero_stage_ == 0) {
    whole_->update(model_, lr, grad_scale, step);
    return;
  }
  const std::vector<ParameterTensor> tensors = model_.parameter_tensors();
  float* params = model_.params_memory();
  for (const Piece& piece : pieces_) {
    const std::size_t at = piece.shard_begin, count = owned_count(piece);
    if (count == 0) continue;
    adamw_update(config_, tensors, owned_begin(piece), count, params + owned_begin(piece), grads_.data() + at,
                 m_.data() + at, v_.data() + at, lr, grad_scale, step);
  }
  const std::size_t P = model_.num_parameters();
  for (const Piece& piece : pieces_) {
    if (piece.begin + piece.size <= P) {
      world_.all_gather(params + piece.begin, piece.per_rank);
      continue;
    }
    std::copy(params + piece.begin, params + P, staging_.begin());  // this process's part is among them
    world_.all_gather(staging_.data(), piece.per_rank);
    std::copy(staging_.begin(), staging_.begin() + std::ptrdiff_t(P - piece.begin), params + piece.begin);
  }
}

void DataParallelAdamW::with_whole_moments(const std::function<void(const AdamW&)>& write) {
  if (zero_stage_ == 0) {
    if (world_.root()) write(*whole_);
    return;
  }
  // Rank 0 holds the whole moments only while it writes them.
  std::optional<AdamW> whole;
  if (world_.root()) whole.emplace(model_, config_);
  const std::size_t P = model_.num_parameters();
  for (const Piece& piece : pieces_) {
    const bool padded = piece.begin + piece.size > P;
    for (auto [shard, into] :
         {std::pair{m_.data(), whole ? whole->m() : nullptr}, std::pair{v_.data(), whole ? whole->v() : nullptr}}) {
      float* recv = !into ? nullptr : padded ? staging_.data() : into + piece.begin;
      world_.gather(shard + piece.shard_begin, recv, piece.per_rank);
      if (into && padded) {
        std::copy(staging_.begin(), staging_.begin() + std::ptrdiff_t(P - piece.begin), into + piece.begin);
      }
    }
  }
  if (whole) write(*whole);
}

TrainingProgress DataParallelAdamW::load_training_state(const std::string& path) {
  if (zero_stage_ == 0) return model_.load_training_state(path, *whole_);
  AdamW whole(model_, config_);
  const TrainingProgress progress = model_.load_training_state(path, whole);
  for (const Piece& piece : pieces_) {
    const std::size_t from = owned_begin(piece), count = owned_count(piece);
    std::copy(whole.m() + from, whole.m() + from + count, m_.data() + piece.shard_begin);
    std::copy(whole.v() + from, whole.v() + from + count, v_.data() + piece.shard_begin);
  }
  return progress;
}

std::size_t DataParallelAdamW::moment_bytes() const {
  return 2 * sizeof(float) * (zero_stage_ == 0 ? whole_->size() : m_.size());
}

}  // namespace adjoint
