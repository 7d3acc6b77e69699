// allreduce_bench: milliseconds of the collectives that sum gradients (float sum), from 4 KB to a
// GPT-2 124M gradient, between the processes mpirun starts. Run it as
//   mpirun -np 2 build/bin/allreduce_bench [--reps N] [--max-floats N] [--collectives a,b,...]
// Collectives (default allreduce), timed interleaved within each repetition (one after another,
// then again), medians over --reps, the slowest process's time each time:
//   allreduce               MPI_Allreduce in place (Communicator::sum, --zero 0)
//   reduce_scatter_block    MPI_Reduce_scatter_block: each process gets its 1/N of the sum
//   reduce_per_owner        the same result as N MPI_Reduce, one to each process's 1/N
//   allreduce_keep_part     MPI_Allreduce in place, then each process copies its 1/N out
//   i…                      the non-blocking ones (MPI_Iallreduce, MPI_Ireduce_scatter_block,
//                           N MPI_Ireduce), started and waited for (--overlap's path)
// The first collective's "bus GB/s" is the ring-allreduce convention: each process sends and
// receives 2 (N-1)/N of the buffer, so bus GB/s = 2 (N-1)/N x bytes / seconds, comparable across
// process counts. The other columns give their ms and, in parentheses, that over the first's.
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Buffers {
  std::vector<float> whole, part;  // the buffer summed, and this process's 1/N of the sum
};

// One collective over the first n floats (n a multiple of the process count).
void run(const std::string& name, Buffers& b, std::size_t n, int rank, int size) {
  const int part = int(n / std::size_t(size));
  float* whole = b.whole.data();
  float* mine = b.part.data();
  std::vector<MPI_Request> requests;
  if (name == "allreduce" || name == "allreduce_keep_part") {
    MPI_Allreduce(MPI_IN_PLACE, whole, int(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    if (name == "allreduce_keep_part") std::memcpy(mine, whole + std::size_t(rank) * part, part * sizeof(float));
  } else if (name == "reduce_scatter_block") {
    MPI_Reduce_scatter_block(whole, mine, part, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  } else if (name == "reduce_per_owner") {
    for (int owner = 0; owner < size; owner++) {
      MPI_Reduce(whole + std::size_t(owner) * part, mine, part, MPI_FLOAT, MPI_SUM, owner, MPI_COMM_WORLD);
    }
  } else if (name == "iallreduce") {
    MPI_Iallreduce(MPI_IN_PLACE, whole, int(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &requests.emplace_back());
  } else if (name == "ireduce_scatter_block") {
    MPI_Ireduce_scatter_block(whole, mine, part, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &requests.emplace_back());
  } else if (name == "ireduce_per_owner") {
    for (int owner = 0; owner < size; owner++) {
      MPI_Ireduce(whole + std::size_t(owner) * part, mine, part, MPI_FLOAT, MPI_SUM, owner, MPI_COMM_WORLD,
                  &requests.emplace_back());
    }
  }
  MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}

bool known(const std::string& name) {
  for (const char* k : {"allreduce", "reduce_scatter_block", "reduce_per_owner", "allreduce_keep_part", "iallreduce",
                        "ireduce_scatter_block", "ireduce_per_owner"}) {
    if (name == k) return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::size_t gpt2_124m = 124475904;  // parameters (floats) of gpt2-124M
  int reps = 9;
  std::size_t max_floats = gpt2_124m;
  std::vector<std::string> collectives;
  std::string error;
  for (int i = 1; i < argc && error.empty(); i++) {
    const std::string arg = argv[i];
    if (arg == "--reps" && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
      if (reps < 1) error = "--reps takes a whole number >= 1";
    } else if (arg == "--max-floats" && i + 1 < argc) {
      max_floats = std::strtoull(argv[++i], nullptr, 10);
      if (max_floats < 1024 || max_floats > gpt2_124m) error = "--max-floats takes 1024 to 124475904";
    } else if (arg == "--collectives" && i + 1 < argc) {
      std::string list = argv[++i];
      for (std::size_t at = 0; at <= list.size();) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        collectives.push_back(list.substr(at, comma - at));
        if (!known(collectives.back())) error = "unknown collective '" + collectives.back() + "'";
        at = comma + 1;
      }
    } else {
      error = "unknown argument '" + arg + "' (usage: --reps N --max-floats N --collectives a,b,...)";
    }
  }
  if (!error.empty()) {
    if (rank == 0) std::fprintf(stderr, "allreduce_bench: error: %s\n", error.c_str());
    MPI_Finalize();
    return 2;
  }
  if (collectives.empty()) collectives = {"allreduce"};

  // Sizes: 1024 x 8^k floats, then the whole gpt2-124M gradient, each rounded down to a multiple of N.
  std::vector<std::size_t> counts;
  for (std::size_t n = 1024; n < max_floats; n *= 8) counts.push_back(n);
  counts.push_back(max_floats);
  for (std::size_t& n : counts) n -= n % std::size_t(size);
  Buffers buffers{std::vector<float>(max_floats, 1.0f), std::vector<float>(max_floats / std::size_t(size) + 1)};
  if (rank == 0) {
    std::printf("float sum, %d processes, median of %d repetitions, collectives interleaved\n", size, reps);
    std::printf("| floats | MB | %s ms | bus GB/s |", collectives[0].c_str());
    for (std::size_t c = 1; c < collectives.size(); c++) std::printf(" %s ms (x first) |", collectives[c].c_str());
    std::printf("\n|---:|---:|---:|---:|");
    for (std::size_t c = 1; c < collectives.size(); c++) std::printf("---:|");
    std::printf("\n");
  }
  for (std::size_t n : counts) {
    std::vector<std::vector<double>> seconds(collectives.size());
    for (int r = -1; r < reps; r++) {  // r = -1 warms up
      for (std::size_t c = 0; c < collectives.size(); c++) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double start = MPI_Wtime();
        run(collectives[c], buffers, n, rank, size);
        double t = MPI_Wtime() - start;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);  // the slowest process
        if (r >= 0) seconds[c].push_back(t);
        std::fill(buffers.whole.begin(), buffers.whole.begin() + std::ptrdiff_t(n), 1.0f);
      }
    }
    std::vector<double> median;
    for (std::vector<double>& s : seconds) {
      std::sort(s.begin(), s.end());
      median.push_back(s[s.size() / 2]);
    }
    const double bytes = double(n) * sizeof(float);
    if (rank == 0) {
      std::printf("| %zu | %.1f | %.3f | %.2f |", n, bytes / 1e6, median[0] * 1e3,
                  2.0 * (size - 1) / size * bytes / median[0] / 1e9);
      for (std::size_t c = 1; c < collectives.size(); c++) {
        std::printf(" %.3f (%.2f) |", median[c] * 1e3, median[c] / median[0]);
      }
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  MPI_Finalize();
}
