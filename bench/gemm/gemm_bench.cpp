// gemm_bench: sgemm GFLOP/s of every GEMM library Debian offers us, side by side in one process, at
// GPT-2's matmul shapes, 1 and 2 threads. Each library is dlopen'ed privately (RTLD_LOCAL |
// RTLD_DEEPBIND) so their identical cblas symbols do not collide, and OpenBLAS is loaded once per
// core type asked for (from a private copy of the library, with OPENBLAS_CORETYPE set while its
// constructor runs), so "OpenBLAS as detected" and "OpenBLAS with the right kernel" run in one
// process. Repetitions interleave the libraries so that the machine's drift hits all alike.
//
// The last column is adjoint::gemm, which picks a library per shape (src/kernels/gemm.cpp).
//
// Usage: gemm_bench [--reps N] [--openblas-cores Core1,Core2] [--quick] [--backward] [--forward] [--threads N]
//                   [--cpu-time] [--rows M1,M2] [--isa avx512|avx2|both]
//   --backward: the backward's products (dinp = dout W, dW += dout^T inp, accumulating as the
//   engine does) of every GPT-2 and llama3-bench matmul at M = 16, 32, 64, 128, 256 rows, for
//   OpenBLAS with the ISA's kernel, oneDNN, our few-row kernel (dinp only) and adjoint::gemm.
//   --forward: the forward's inp W^T of every GPT-2 124M, llama3-bench and llama3.2-1B matmul at
//   M = 16, 32, 48, 64, 96, 128 rows, for OpenBLAS with the ISA's kernel, oneDNN, our few-row
//   kernel and adjoint::gemm.
//   In both, products with a weight read it from memory (the next of enough copies to pass
//   128 MB), and our kernel runs twice: W in fp32, and W in bf16 (a frozen base's).
//   --rows: those row counts instead. --isa: our kernel's bodies to time (default: the best this
//   CPU has; avx2 is what an AVX2-only CPU runs).
//   --cpu-time: time by the process's CPU time instead of the wall clock. With --threads 1 on a
//   machine other jobs share, this is the kernel's own time whatever the preemption.
#include <dlfcn.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "adjoint/gemm.hpp"

namespace {

constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;
using CblasSgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*,
                            int);
using DnnlSgemm = int (*)(char, char, long, long, long, float, const float*, long, const float*, long, float, float*,
                          long);

struct Library {
  std::string name;    // the table's column
  std::string kernel;  // what the library says it runs
  // C = op(A) op(B) + beta C, B in fp32 (b) and the same values in bf16 (b16: for the bf16 columns)
  std::function<void(bool, bool, int, int, int, const float*, const float*, const std::uint16_t*, float, float*)> sgemm;
  std::function<void(int)> set_threads;
  bool transposed_a = true;  // whether it computes op(A) = Aᵀ (our kernel does not)
};

void* open_private(const std::string& path, const char* package) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (!handle) throw std::runtime_error("cannot load " + path + " (apt-get install " + package + "): " + dlerror());
  return handle;
}
template <typename Fn>
Fn symbol(void* handle, const char* name) {
  void* p = dlsym(handle, name);
  if (!p) throw std::runtime_error(std::string("missing symbol ") + name);
  return reinterpret_cast<Fn>(p);
}

Library cblas_library(const std::string& name, void* handle, std::string kernel) {
  auto sgemm = symbol<CblasSgemm>(handle, "cblas_sgemm");
  return {name, std::move(kernel),
          [sgemm](bool ta, bool tb, int m, int n, int k, const float* a, const float* b, const std::uint16_t*,
                  float beta, float* c) {
            sgemm(kRowMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, m, n, k, 1.0f, a, ta ? m : k, b,
                  tb ? k : n, beta, c, n);
          },
          [](int t) { omp_set_num_threads(t); }};
}

// A private instance of a library whose kernel choice reads env_var while it initialises: a copy
// of the file under another name (dlopen would hand back the instance already loaded), loaded and
// initialised (init) with env_var set to value ("" = unset), the user's setting restored after.
template <typename Init>
void* private_instance(const std::string& source, const char* package, const char* env_var, const std::string& value,
                       Init&& init) {
  const std::string copy = "/tmp/gemm_bench_" + std::to_string(getpid()) + "_" + env_var + "_" + value + ".so";
  std::filesystem::copy_file(source, copy, std::filesystem::copy_options::overwrite_existing);
  const char* user = std::getenv(env_var);
  const std::string saved = user ? user : "";
  if (value.empty()) unsetenv(env_var); else setenv(env_var, value.c_str(), 1);
  void* handle = nullptr;
  try {
    handle = open_private(copy, package);
    init(handle);
  } catch (...) {
    std::filesystem::remove(copy);
    throw;
  }
  if (user) setenv(env_var, saved.c_str(), 1); else unsetenv(env_var);
  std::filesystem::remove(copy);
  return handle;
}

// OpenBLAS picks its kernel in its constructor, from OPENBLAS_CORETYPE or the CPU model.
Library openblas(const std::string& core) {
  void* handle = private_instance("/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0",
                                  "libopenblas0-openmp", "OPENBLAS_CORETYPE", core, [](void*) {});
  const auto corename = symbol<char* (*)()>(handle, "openblas_get_corename");
  return cblas_library(core.empty() ? "OpenBLAS as detected" : "OpenBLAS " + core, handle, corename());
}

// BLIS picks its kernel family by CPU model too. Debian 12's build holds the generic family only
// on this kind of machine: BLIS_ARCH_TYPE naming skx, haswell or zen* aborts (not built in).
Library blis() {
  void* handle = open_private("/usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4", "libblis4-openmp");
  const auto query = symbol<int (*)()>(handle, "bli_arch_query_id");
  const auto name = symbol<const char* (*)(int)>(handle, "bli_arch_string");
  const auto set_threads = symbol<void (*)(long)>(handle, "bli_thread_set_num_threads");
  Library lib = cblas_library("BLIS", handle, name(query()));
  lib.set_threads = [set_threads](int t) {
    omp_set_num_threads(t);
    set_threads(t);
  };
  return lib;
}

// adjoint::gemm_with on one library (our few-row kernel, which no other library has), reading B in
// fp32 or, with bf16, in bf16.
Library adjoint_library(const std::string& name, adjoint::GemmLibrary library, bool bf16) {
  Library lib{name, bf16 ? "ours, B in bf16" : "ours",
              [library, bf16](bool ta, bool tb, int m, int n, int k, const float* a, const float* b,
                              const std::uint16_t* b16, float beta, float* c) {
                if (bf16) {
                  adjoint::gemm_with_bf16(library, ta, tb, m, n, k, 1.0f, a, k, b16, tb ? k : n, beta, c, n);
                } else {
                  adjoint::gemm_with(library, ta, tb, m, n, k, 1.0f, a, k, b, tb ? k : n, beta, c, n);
                }
              },
              [](int t) { omp_set_num_threads(t); }};
  lib.transposed_a = false;
  return lib;
}

Library dnnl() {
  void* handle = open_private("/usr/lib/x86_64-linux-gnu/libdnnl.so.2", "libdnnl2");
  const auto sgemm = symbol<DnnlSgemm>(handle, "dnnl_sgemm");
  const auto isa = symbol<int (*)()>(handle, "dnnl_get_effective_cpu_isa");
  // dnnl_cpu_isa_t values (oneapi/dnnl/dnnl_types.h).
  const int level = isa();
  const std::string isa_name = level == 0x7    ? "avx2"
                               : level == 0x27 ? "avx512_core"
                               : level == 0x67 ? "avx512_core_vnni"
                               : level == 0xe7 ? "avx512_core_bf16"
                                               : "isa " + std::to_string(level);
  return {"oneDNN", isa_name,
          [sgemm](bool ta, bool tb, int m, int n, int k, const float* a, const float* b, const std::uint16_t*,
                  float beta, float* c) {
            sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, ta ? m : k, b, tb ? k : n, beta, c, n);
          },
          [](int t) { omp_set_num_threads(t); }};
}

struct Shape {
  int m, n, k;
  bool ta, tb;
  std::string what;
  float beta = 0;  // 1 where the engine accumulates (the backward's products)
};

double seconds_now(bool cpu_time) {
  if (!cpu_time) return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> parts;
  for (std::size_t start = 0; start <= list.size();) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    parts.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return parts;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 7;
  bool quick = false, backward = false, forward = false, cpu_time = false;
  std::vector<int> thread_counts = {1, 2};
  std::vector<std::string> cores;
  const adjoint::CpuFeatures cpu = adjoint::cpu_features();
  std::vector<adjoint::Isa> our_isas;
  if (cpu.isa >= adjoint::Isa::avx512) our_isas = {adjoint::Isa::avx512};
  else if (cpu.isa >= adjoint::Isa::avx2) our_isas = {adjoint::Isa::avx2};
  std::vector<int> row_counts;  // empty: each table's own
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    if (arg == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (arg == "--quick") quick = true;
    else if (arg == "--backward") backward = true;
    else if (arg == "--forward") forward = true;
    else if (arg == "--cpu-time") cpu_time = true;
    else if (arg == "--threads" && i + 1 < argc) thread_counts = {std::max(1, std::atoi(argv[++i]))};
    else if (arg == "--rows" && i + 1 < argc) {
      row_counts.clear();
      for (const std::string& count : split(argv[++i])) row_counts.push_back(std::max(1, std::atoi(count.c_str())));
    } else if (arg == "--isa" && i + 1 < argc) {
      const std::string isa = argv[++i];
      if (isa == "avx512") our_isas = {adjoint::Isa::avx512};
      else if (isa == "avx2") our_isas = {adjoint::Isa::avx2};
      else if (isa == "both") our_isas = {adjoint::Isa::avx512, adjoint::Isa::avx2};
      else {
        std::fprintf(stderr, "gemm_bench: error: --isa '%s' is not one of avx512, avx2, both\n", isa.c_str());
        return 2;
      }
    } else if (arg == "--openblas-cores" && i + 1 < argc) cores = split(argv[++i]);
    else {
      std::fprintf(stderr,
                   "gemm_bench: error: unknown argument '%s' (usage: gemm_bench [--reps N] "
                   "[--openblas-cores A,B] [--quick] [--backward] [--forward] [--threads N] [--cpu-time] "
                   "[--rows M1,M2] [--isa avx512|avx2|both])\n",
                   arg.c_str());
      return 2;
    }
  }
  for (const adjoint::Isa isa : our_isas) {
    if (cpu.isa < isa) {
      std::fprintf(stderr, "gemm_bench: error: --isa asks for %s, which this CPU lacks\n", adjoint::isa_name(isa));
      return 2;
    }
  }
  if (cores.empty()) cores = {adjoint::openblas_core_for(cpu.isa)};

  if (backward && forward) {
    std::fprintf(stderr, "gemm_bench: error: --backward and --forward are two tables; ask for one\n");
    return 2;
  }
  std::vector<Library> libs;
  try {
    // The backward and forward tables ask which of the fast candidates wins per shape.
    const bool all_libraries = !backward && !forward;
    if (all_libraries) libs.push_back(openblas(""));
    for (const std::string& core : cores) libs.push_back(openblas(core));
    libs.push_back(dnnl());
    if (all_libraries) libs.push_back(blis());
    // Our kernel on the ISAs asked for (default: the best this CPU has), B in fp32 and in bf16.
    for (const adjoint::Isa isa : backward || forward ? our_isas : std::vector<adjoint::Isa>{}) {
      const bool avx512 = isa == adjoint::Isa::avx512;
      const auto library = avx512 ? adjoint::GemmLibrary::few_rows_avx512 : adjoint::GemmLibrary::few_rows_avx2;
      const std::string name = avx512 ? "ours AVX-512" : "ours AVX2";
      libs.push_back(adjoint_library(name, library, false));
      libs.push_back(adjoint_library(name + " bf16", library, true));
    }
    libs.push_back(
        {"adjoint::gemm", adjoint::gemm_info().line(0),
         [](bool ta, bool tb, int m, int n, int k, const float* a, const float* b, const std::uint16_t*, float beta,
            float* c) { adjoint::gemm(ta, tb, m, n, k, 1.0f, a, ta ? m : k, b, tb ? k : n, beta, c, n); },
         [](int t) { omp_set_num_threads(t); }});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemm_bench: error: %s\n", e.what());
    return 1;
  }
  const char* env = std::getenv("OPENBLAS_CORETYPE");
  std::printf("cpu: %s; OPENBLAS_CORETYPE in the environment: %s (ignored here: each column sets its own)\n",
              adjoint::describe(cpu).c_str(), env ? env : "unset");
  for (const Library& lib : libs) std::printf("  %-24s kernel: %s\n", lib.name.c_str(), lib.kernel.c_str());

  // GPT-2 124M's matmuls (C = 768): forward rows x (qkv, attention projection, MLP up, MLP down,
  // LM head), and the backward's two forms of the MLP-up layer (dinp = dout W, dW += dout^T inp).
  std::vector<Shape> shapes;
  const std::vector<int> rows = quick ? std::vector<int>{64, 1024} : std::vector<int>{16, 64, 256, 1024, 4096};
  for (int m : backward || forward ? std::vector<int>{} : rows) {
    shapes.push_back({m, 2304, 768, false, true, "qkv"});
    shapes.push_back({m, 768, 768, false, true, "attn proj"});
    shapes.push_back({m, 3072, 768, false, true, "fc"});
    shapes.push_back({m, 768, 3072, false, true, "fc proj"});
    if (m <= 1024) shapes.push_back({m, 50304, 768, false, true, "lm head"});
    shapes.push_back({m, 768, 3072, false, false, "fc dinp", 1.0f});  // accumulating, as the engine does
    shapes.push_back({3072, 768, m, true, false, "fc dW", 1.0f});     // accumulating, as the engine does
  }
  // (in, out) of each matmul: GPT-2's qkv, attention projection, MLP up, MLP down, LM head; llama3-bench's
  // qkv (12 + 2 x 4 heads), SwiGLU up (w1, w3) and down (w2), LM head (tied, Llama 3's vocabulary).
  const struct {
    int in, out;
    const char* what;
  } layers[] = {{768, 2304, "qkv"},      {768, 768, "attn proj"}, {768, 3072, "fc"},
                {3072, 768, "fc proj"},  {768, 50304, "lm head"}, {768, 1280, "llama qkv"},
                {768, 2048, "llama w1"}, {2048, 768, "llama w2"}, {768, 128256, "llama head"}};
  // The forward's (in, out) of llama3.2-1B: qkv (32 + 2 x 8 heads of 64), attention projection,
  // SwiGLU up (w1, w3) and down (w2), LM head (tied).
  const struct {
    int in, out;
    const char* what;
  } big_layers[] = {{2048, 3072, "1B qkv"},
                    {2048, 2048, "1B wo"},
                    {2048, 8192, "1B w1"},
                    {8192, 2048, "1B w2"},
                    {2048, 128256, "1B head"}};
  const std::vector<int> forward_rows = row_counts.empty() ? std::vector<int>{16, 32, 48, 64, 96, 128} : row_counts;
  const std::vector<int> backward_rows = row_counts.empty() ? std::vector<int>{16, 32, 64, 128, 256} : row_counts;
  for (int m : forward ? forward_rows : std::vector<int>{}) {
    for (const auto& layer : layers) shapes.push_back({m, layer.out, layer.in, false, true, layer.what});
    for (const auto& layer : big_layers) shapes.push_back({m, layer.out, layer.in, false, true, layer.what});
  }
  for (int m : backward ? backward_rows : std::vector<int>{}) {
    for (const auto& layer : layers) {
      shapes.push_back({m, layer.in, layer.out, false, false, std::string(layer.what) + " dinp", 1.0f});  // += dout W
      shapes.push_back({layer.out, layer.in, m, true, false, std::string(layer.what) + " dW", 1.0f});  // += dout^T inp
    }
    for (const auto& layer : big_layers)  // dinp only: a LoRA backward's one product with a frozen weight
      shapes.push_back({m, layer.in, layer.out, false, false, std::string(layer.what) + " dinp", 1.0f});
  }

  for (int threads : thread_counts) {
    std::printf("\nthreads: %d   (GFLOP/s, median of %d, %s; ratio = column / best column)\n", threads, reps,
                cpu_time ? "process CPU time" : "wall clock");
    std::printf("| %-9s | %5s | %5s | %5s |", "matmul", "M", "N", "K");
    for (const Library& lib : libs) std::printf(" %22s |", lib.name.c_str());
    std::printf("\n|---|---:|---:|---:|");
    for (std::size_t i = 0; i < libs.size(); i++) std::printf("---:|");
    std::printf("\n");
    for (const Shape& s : shapes) {
      // A step reads each weight from memory (a model's weights are far larger than L3), so the
      // products with a weight (the forward's and dinp's: no transposed a) take the next of enough
      // copies of b to pass 128 MB at every call.
      const std::size_t b_size = (std::size_t)s.k * s.n;
      const std::size_t copies = s.ta ? 1 : std::max<std::size_t>(1, (std::size_t(128) << 20) / (4 * b_size) + 1);
      std::vector<float> a((std::size_t)s.m * s.k), b(b_size * copies), c((std::size_t)s.m * s.n);
      for (std::size_t i = 0; i < a.size(); i++) a[i] = 0.001f * float(i % 97);
      for (std::size_t i = 0; i < b.size(); i++) b[i] = 0.002f * float(i % 89);
      std::vector<std::uint16_t> b16(s.ta ? 0 : b.size());
      for (std::size_t i = 0; i < b16.size(); i++) {  // the upper halves (truncated: timing only)
        std::uint32_t bits;
        std::memcpy(&bits, &b[i], sizeof(bits));
        b16[i] = std::uint16_t(bits >> 16);
      }
      const double flops = 2.0 * s.m * s.n * s.k;
      // Enough calls per timing to last ~20 ms on a fast kernel.
      const int calls = std::max(1, int(20e-3 * 100e9 * threads / flops));
      std::vector<std::vector<double>> seconds(libs.size());
      for (int r = -1; r < reps; r++) {
        for (std::size_t l = 0; l < libs.size(); l++) {
          if (s.ta && !libs[l].transposed_a) continue;
          libs[l].set_threads(threads);
          const double start = seconds_now(cpu_time);
          for (int call = 0; call < calls; call++) {
            const std::size_t copy = b_size * ((std::size_t(r + 1) * calls + call) % copies);
            libs[l].sgemm(s.ta, s.tb, s.m, s.n, s.k, a.data(), b.data() + copy, b16.data() + copy, s.beta, c.data());
          }
          const double t = (seconds_now(cpu_time) - start) / calls;
          if (r >= 0) seconds[l].push_back(t);
        }
      }
      std::vector<double> gflops;  // 0: the library does not compute this transpose
      for (auto& t : seconds) gflops.push_back(t.empty() ? 0.0 : flops / median(t) / 1e9);
      const double best = *std::max_element(gflops.begin(), gflops.end());
      std::printf("| %-9s | %5d | %5d | %5d |", s.what.c_str(), s.m, s.n, s.k);
      for (double g : gflops) {
        if (g == 0.0) std::printf(" %16s |", "-");
        else std::printf(" %9.1f (%.2f) |", g, g / best);
      }
      std::printf("\n");
      std::fflush(stdout);
    }
  }
}
