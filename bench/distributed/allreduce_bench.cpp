// allreduce_bench: seconds and bandwidth of MPI_Allreduce (float sum, in place) from 4 KB to a
// GPT-2 124M gradient, between the processes mpirun starts. Medians of --reps. Run it as
//   mpirun -np 2 build/bin/allreduce_bench [--reps N] [--reduce-scatter]
// "bus GB/s" is the ring-allreduce convention: each process sends and receives 2 (N-1)/N of
// the buffer, so bus GB/s = 2 (N-1)/N x bytes / seconds, comparable across process counts.
// --reduce-scatter times ZeRO-1's MPI_Reduce_scatter_block instead (each process gets 1/N of the
// sum; (N-1)/N of the buffer each way in a ring, so its bus GB/s is half the allreduce's formula).
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int reps = 9;
  bool reduce_scatter = false;
  for (int i = 1; i < argc; i++) {
    if (std::string(argv[i]) == "--reps" && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else if (std::string(argv[i]) == "--reduce-scatter") {
      reduce_scatter = true;
    } else {
      if (rank == 0) {
        std::fprintf(stderr, "allreduce_bench: error: unknown argument '%s' (usage: --reps N --reduce-scatter)\n",
                     argv[i]);
      }
      MPI_Finalize();
      return 2;
    }
  }
  const std::size_t gpt2_124m = 124475904;  // parameters (floats) of gpt2-124M
  std::vector<std::size_t> counts;
  for (std::size_t n = 1024; n < gpt2_124m; n *= 8) counts.push_back(n);
  counts.push_back(gpt2_124m);
  std::vector<float> buffer(gpt2_124m, 1.0f), shard(gpt2_124m / std::size_t(size) + 1);
  if (rank == 0) {
    std::printf("%s, float sum, %d processes, median of %d\n",
                reduce_scatter ? "MPI_Reduce_scatter_block" : "MPI_Allreduce in place", size, reps);
    std::printf("| floats | MB | ms | alg GB/s | bus GB/s |\n|---:|---:|---:|---:|---:|\n");
  }
  for (std::size_t n : counts) {
    std::vector<double> seconds;
    for (int r = -1; r < reps; r++) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double start = MPI_Wtime();
      if (reduce_scatter) {
        MPI_Reduce_scatter_block(buffer.data(), shard.data(), int(n) / size, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      } else {
        MPI_Allreduce(MPI_IN_PLACE, buffer.data(), int(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      }
      double t = MPI_Wtime() - start;
      MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);  // the slowest process
      if (r >= 0) seconds.push_back(t);
      std::fill(buffer.begin(), buffer.begin() + std::ptrdiff_t(n), 1.0f);
    }
    std::sort(seconds.begin(), seconds.end());
    const double s = seconds[seconds.size() / 2], bytes = double(n) * sizeof(float);
    if (rank == 0) {
      std::printf("| %zu | %.1f | %.3f | %.2f | %.2f |\n", n, bytes / 1e6, s * 1e3, bytes / s / 1e9,
                  (reduce_scatter ? 1.0 : 2.0) * (size - 1) / size * bytes / s / 1e9);
    }
  }
  MPI_Finalize();
}
