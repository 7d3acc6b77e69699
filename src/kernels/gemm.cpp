// The GEMM: OpenBLAS loaded at first use with the kernel for this CPU's ISA, and our few-row
// kernel and oneDNN for the shapes where they are faster (adjoint/gemm.hpp).
#include "adjoint/gemm.hpp"

#include "adjoint/bf16.hpp"

#include <cblas.h>
#include <omp.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "few_rows.hpp"
#include "parallel.hpp"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#ifndef ADJOINT_OPENBLAS_LIBRARY
#define ADJOINT_OPENBLAS_LIBRARY "libopenblas.so.0"
#endif
#define ADJOINT_ONEDNN_LIBRARY "libdnnl.so.2"

namespace adjoint {
namespace {

#if defined(__x86_64__)
// Which register state the OS saves (XCR0): the instructions are usable only if it does.
unsigned long long xcr0() {
  unsigned eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<unsigned long long>(edx) << 32) | eax;
}
#endif

CpuFeatures read_cpu_features() {
  CpuFeatures cpu;
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return cpu;
  const unsigned max_leaf = a;
  char vendor[13] = {};
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  cpu.vendor = vendor;
  __get_cpuid(1, &a, &b, &c, &d);
  const unsigned base_family = (a >> 8) & 0xf, base_model = (a >> 4) & 0xf;
  cpu.family = int(base_family == 0xf ? base_family + ((a >> 20) & 0xff) : base_family);
  cpu.model = int(base_family == 0x6 || base_family == 0xf ? base_model + (((a >> 16) & 0xf) << 4) : base_model);
  const bool sse3 = c & (1u << 0), fma = c & (1u << 12), osxsave = c & (1u << 27), avx = c & (1u << 28);
  cpu.isa = sse3 ? Isa::sse3 : Isa::unknown;
  if (!(osxsave && avx)) return cpu;
  const unsigned long long state = xcr0();
  if ((state & 0x6) != 0x6) return cpu;  // XMM and YMM state
  cpu.isa = Isa::avx;
  if (max_leaf < 7) return cpu;
  __get_cpuid_count(7, 0, &a, &b, &c, &d);
  const bool avx2 = b & (1u << 5), avx512f = b & (1u << 16), avx512dq = b & (1u << 17),
             avx512bw = b & (1u << 30), avx512vl = b & (1u << 31);
  if (avx2 && fma) cpu.isa = Isa::avx2;
  const bool zmm_state = (state & 0xe0) == 0xe0;  // opmask and both halves of ZMM
  if (!(cpu.isa == Isa::avx2 && avx512f && avx512dq && avx512bw && avx512vl && zmm_state)) return cpu;
  cpu.isa = Isa::avx512;
  __get_cpuid_count(7, 1, &a, &b, &c, &d);
  if (a & (1u << 5)) cpu.isa = Isa::avx512_bf16;
#endif
  return cpu;
}

// The level that decides fp32 GEMM speed: bf16 adds nothing to sgemm.
Isa sgemm_level(Isa isa) { return isa == Isa::avx512_bf16 ? Isa::avx512 : isa; }

using Sgemm = void (*)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint, blasint, blasint, float, const float*,
                       blasint, const float*, blasint, float, float*, blasint);
using Dgemm = void (*)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint, blasint, blasint, double,
                       const double*, blasint, const double*, blasint, double, double*, blasint);

// oneDNN's row-major sgemm and version record (oneapi/dnnl/dnnl.h; declared here so that only the
// library, not its headers, is needed).
using DnnlSgemm = int (*)(char, char, long, long, long, float, const float*, long, const float*, long, float, float*,
                          long);
struct DnnlVersion {
  int major, minor, patch;
  const char* hash;
  unsigned cpu_runtime, gpu_runtime;
};
constexpr unsigned kDnnlRuntimeOmp = 2;

struct Libraries {
  GemmInfo info;
  Sgemm sgemm = nullptr;
  Dgemm dgemm = nullptr;
  DnnlSgemm onednn_sgemm = nullptr;  // null: OpenBLAS runs every shape
};

template <typename Fn>
Fn symbol(void* handle, const char* name, const char* library = "OpenBLAS (" ADJOINT_OPENBLAS_LIBRARY ")") {
  void* p = dlsym(handle, name);
  if (!p) throw std::runtime_error(std::string(library) + " has no " + name);
  return reinterpret_cast<Fn>(p);
}

// Whether ADJOINT_GEMM=openblas asks for OpenBLAS alone.
bool openblas_only() {
  const char* choice = std::getenv("ADJOINT_GEMM");
  const std::string wanted = choice ? choice : "";
  if (!wanted.empty() && wanted != "auto" && wanted != "openblas") {
    throw std::runtime_error("ADJOINT_GEMM='" + wanted + "' is not one of: auto (the default), openblas");
  }
  return wanted == "openblas";
}

// oneDNN if it is installed and runs on OpenMP (our thread pool).
void load_onednn(Libraries& libs) {
  void* handle = dlopen(ADJOINT_ONEDNN_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (!handle) return;  // not installed: OpenBLAS alone
  const auto version = symbol<const DnnlVersion* (*)()>(handle, "dnnl_version", "oneDNN")();
  if (version->cpu_runtime != kDnnlRuntimeOmp) return;  // a second thread pool would fight ours
  libs.onednn_sgemm = symbol<DnnlSgemm>(handle, "dnnl_sgemm", "oneDNN");
  libs.info.onednn = "oneDNN " + std::to_string(version->major) + "." + std::to_string(version->minor) + "." +
                     std::to_string(version->patch);
}

Libraries load_libraries() {
  Libraries blas;
  blas.info.cpu = cpu_features();
  blas.info.few_rows = !openblas_only();
  const char* user = std::getenv("OPENBLAS_CORETYPE");
  blas.info.user_coretype = user && *user;
  const std::string core = openblas_core_for(blas.info.cpu.isa);
  // OpenBLAS reads OPENBLAS_CORETYPE once, in its constructor, which runs inside dlopen.
  const bool set_core = !blas.info.user_coretype && !core.empty();
  if (set_core) setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
  void* handle = dlopen(ADJOINT_OPENBLAS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  const std::string error = handle ? "" : dlerror();
  if (set_core) unsetenv("OPENBLAS_CORETYPE");
  if (!handle) throw std::runtime_error("cannot load OpenBLAS (" ADJOINT_OPENBLAS_LIBRARY "): " + error);
  blas.sgemm = symbol<Sgemm>(handle, "cblas_sgemm");
  blas.dgemm = symbol<Dgemm>(handle, "cblas_dgemm");
  blas.info.kernel = symbol<char* (*)()>(handle, "openblas_get_corename")();
  // "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ...": the first two words.
  const std::string config = symbol<char* (*)()>(handle, "openblas_get_config")();
  const std::size_t space = config.find(' ', config.find(' ') + 1);
  blas.info.library = config.substr(0, space);
  blas.info.kernel_isa = openblas_core_isa(blas.info.kernel);
  if (blas.info.few_rows) load_onednn(blas);
  return blas;
}

const Libraries& libraries() {
  static const Libraries libs = load_libraries();
  return libs;
}

CBLAS_TRANSPOSE transpose(bool t) { return t ? CblasTrans : CblasNoTrans; }

// Our few-row kernel for the CPU's instruction set (a · bᵀ when trans_b, else a · b), split over the
// threads at column-block boundaries.
void few_rows_with(GemmLibrary library, bool trans_b, const kernels::FewRowsProduct& product) {
  const bool avx512 = library == GemmLibrary::few_rows_avx512;
  if (cpu_features().isa < (avx512 ? Isa::avx512 : Isa::avx2)) {
    throw std::runtime_error(std::string("the few-row GEMM kernel needs ") +
                             isa_name(avx512 ? Isa::avx512 : Isa::avx2) + ", which this CPU lacks (" +
                             describe(cpu_features()) + ")");
  }
  const auto run = trans_b ? (avx512 ? kernels::avx512::few_rows_product : kernels::avx2::few_rows_product)
                           : (avx512 ? kernels::avx512::rows_times_weight : kernels::avx2::rows_times_weight);
  const int block = trans_b ? kernels::kFewRowsColumnBlock : kernels::kRowsTimesWeightColumnBlock;
  const int blocks = (product.n + block - 1) / block;
  // A product too small to pay for waking the other threads runs on this one.
  const bool parallel = double(product.m) * product.n * product.k >= double(1 << 20);
#pragma omp parallel if (parallel)
  {
    const auto [first, last] = kernels::thread_range(blocks);
    run(product, std::min(product.n, first * block), std::min(product.n, last * block));
  }
}

void check_few_rows_transposes(bool trans_a) {
  if (trans_a) throw std::invalid_argument("the few-row GEMM kernel computes a · bᵀ and a · b only");
}

}  // namespace

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::sse3: return "SSE3";
    case Isa::avx: return "AVX";
    case Isa::avx2: return "AVX2+FMA";
    case Isa::avx512: return "AVX-512";
    case Isa::avx512_bf16: return "AVX-512 with bf16";
    case Isa::unknown: break;
  }
  return "unknown ISA";
}

CpuFeatures cpu_features() {
  static const CpuFeatures cpu = read_cpu_features();
  return cpu;
}

std::string describe(const CpuFeatures& cpu) {
  return (cpu.vendor.empty() ? std::string("unknown CPU") : cpu.vendor) + " family " + std::to_string(cpu.family) +
         " model " + std::to_string(cpu.model) + ", " + isa_name(cpu.isa);
}

std::string openblas_core_for(Isa isa) {
  switch (isa) {
    case Isa::avx512_bf16: return "Cooperlake";
    case Isa::avx512: return "SkylakeX";
    case Isa::avx2: return "Haswell";
    case Isa::avx: return "Sandybridge";
    case Isa::sse3:
    case Isa::unknown: break;
  }
  return "";
}

Isa openblas_core_isa(const std::string& core) {
  static const std::pair<const char*, Isa> kCores[] = {
      {"sapphirerapids", Isa::avx512_bf16}, {"cooperlake", Isa::avx512_bf16}, {"skylakex", Isa::avx512},
      {"haswell", Isa::avx2},     {"zen", Isa::avx2},         {"excavator", Isa::avx2},
      {"sandybridge", Isa::avx},  {"bulldozer", Isa::avx},    {"piledriver", Isa::avx},
      {"steamroller", Isa::avx},  {"prescott", Isa::sse3},    {"core2", Isa::sse3},
      {"penryn", Isa::sse3},      {"dunnington", Isa::sse3},  {"nehalem", Isa::sse3},
      {"atom", Isa::sse3},        {"barcelona", Isa::sse3},   {"opteron_sse3", Isa::sse3},
      {"nano", Isa::sse3},        {"bobcat", Isa::sse3}};
  std::string lower;
  for (char ch : core) lower += char(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
  for (const auto& [name, isa] : kCores)
    if (lower == name) return isa;
  return Isa::unknown;
}

std::string GemmInfo::line(int threads) const {
  const bool avx512 = cpu.isa >= Isa::avx512;
  const std::string ours =
      !few_rows || cpu.isa < Isa::avx2
          ? ""
          : "; ours (" + std::string(isa_name(avx512 ? Isa::avx512 : Isa::avx2)) +
                ") for inp W^T (<= " + std::to_string(kFewRowsMaxRows) + " rows)" +
                (onednn.empty() ? ", dinp = dout W (<= " + std::to_string(kRowsTimesWeightMaxRows) + " rows)" : "") +
                " and bf16 weights (<= " + std::to_string(kBf16DirectMaxRows) + " rows)";
  return "gemm: " + library + ", " + kernel + " kernel (" + isa_name(kernel_isa) + ")" +
         (user_coretype ? " from OPENBLAS_CORETYPE" : "") + ours +
         (onednn.empty() ? "" : "; " + onednn + " for " + onednn_shapes()) + ", " + std::to_string(threads) +
         (threads == 1 ? " thread" : " threads");
}

std::string GemmInfo::warning() const {
  if (cpu.isa == Isa::unknown || sgemm_level(kernel_isa) >= sgemm_level(cpu.isa)) return "";
  return "warning: the GEMM kernel " + kernel + " (" + isa_name(kernel_isa) + ") is weaker than this CPU supports (" +
         isa_name(cpu.isa) + ", kernel " + openblas_core_for(cpu.isa) + ")" +
         (user_coretype ? "; unset OPENBLAS_CORETYPE to use it" : "");
}

const GemmInfo& gemm_info() { return libraries().info; }

// Decided by `gemm_bench` and `gemm_bench --backward` (docs/performance.md, GEMM): oneDNN is
// 1.1-2.7x faster than OpenBLAS on dinp = dout W (no transpose) with up to 256 rows at every GPT-2
// and Llama weight shape, and, on one thread only, 1.2-1.5x faster on the forward's inp W^T with up
// to 64 rows and K <= 1024 (on two it is 0.9-1.0x, and 0.3x at K = 3072), 1.02-1.19x at 256 rows
// and every K (on two threads at 256 rows 0.66-1.0x of the best, quiet wall clock). It is slower on the
// accumulating dW += dout^T inp. Products smaller than a weight matrix (the tensor engine's
// per-head attention) were not measured and stay on OpenBLAS. The choice depends on the thread
// count, so results are deterministic for a thread count, as the rest of the arrays engine is.
bool onednn_is_faster(bool trans_a, bool trans_b, int m, int n, int k) {
  if (trans_a || double(n) * k < double(1 << 19)) return false;
  if (!trans_b) return m <= kOnednnMaxRows;
  return m <= kOnednnMaxForwardRows && (m > kOnednnShallowForwardRows || k <= kOnednnMaxForwardDepth) &&
         omp_get_max_threads() == 1;
}

// Decided by `gemm_bench --forward` and `--backward` (docs/performance.md, "Few-row products"):
// with the weight read from memory, as in a step, our kernel is 1.15-2.0x OpenBLAS and oneDNN on
// inp W^T up to 64 rows (one thread, CPU time) and 1.07-1.4x OpenBLAS, 1.1-1.2x oneDNN at 128 rows (0.84-0.97x
// oneDNN at 256); on two threads (quiet, wall clock) 1.2-1.45x OpenBLAS at 96-128 rows, n = 768
// included, and even with it at 256. On dinp = dout W it is 1.05-2.0x OpenBLAS up to 128 rows but
// 0.6-1.0x oneDNN, so it runs those only where oneDNN is not loaded.
GemmLibrary few_rows_library(bool trans_a, bool trans_b, int m, int n, int k) {
  const Isa isa = cpu_features().isa;
  const Libraries& libs = libraries();
  const bool ours = trans_b ? m <= kFewRowsMaxRows : m <= kRowsTimesWeightMaxRows && !libs.onednn_sgemm;
  if (!libs.info.few_rows || trans_a || !ours || double(n) * k < double(1 << 19) || isa < Isa::avx2) {
    return GemmLibrary::openblas;
  }
  return isa >= Isa::avx512 ? GemmLibrary::few_rows_avx512 : GemmLibrary::few_rows_avx2;
}

GemmLibrary bf16_weight_library(bool trans_a, bool /*trans_b*/, int m, int /*n*/, int /*k*/) {
  const Isa isa = cpu_features().isa;
  if (!libraries().info.few_rows || trans_a || m > kBf16DirectMaxRows || isa < Isa::avx2) return GemmLibrary::openblas;
  return isa >= Isa::avx512 ? GemmLibrary::few_rows_avx512 : GemmLibrary::few_rows_avx2;
}

std::string onednn_shapes() {
  return "dinp = dout W (<= " + std::to_string(kOnednnMaxRows) +
         " rows), and inp W^T (<= " + std::to_string(kOnednnMaxForwardRows) + " rows) on one thread";
}

GemmLibrary gemm_library(bool trans_a, bool trans_b, int m, int n, int k) {
  const GemmLibrary ours = few_rows_library(trans_a, trans_b, m, n, k);
  if (ours != GemmLibrary::openblas) return ours;
  return libraries().onednn_sgemm && onednn_is_faster(trans_a, trans_b, m, n, k) ? GemmLibrary::onednn
                                                                                 : GemmLibrary::openblas;
}

void gemm_with(GemmLibrary library, bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a,
               int lda, const float* b, int ldb, float beta, float* c, int ldc) {
  if (library == GemmLibrary::few_rows_avx2 || library == GemmLibrary::few_rows_avx512) {
    check_few_rows_transposes(trans_a);
    few_rows_with(library, trans_b, {m, n, k, alpha, a, lda, b, nullptr, ldb, beta, c, ldc});
    return;
  }
  const Libraries& libs = libraries();
  if (library == GemmLibrary::onednn) {
    if (!libs.onednn_sgemm) throw std::runtime_error("oneDNN (" ADJOINT_ONEDNN_LIBRARY ") is not loaded");
    const int status =
        libs.onednn_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    if (status != 0) throw std::runtime_error("oneDNN's sgemm failed (status " + std::to_string(status) + ")");
    return;
  }
  libs.sgemm(CblasRowMajor, transpose(trans_a), transpose(trans_b), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void gemm_with_bf16(GemmLibrary library, bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a,
                    int lda, const std::uint16_t* b, int ldb, float beta, float* c, int ldc) {
  if (library != GemmLibrary::few_rows_avx2 && library != GemmLibrary::few_rows_avx512) {
    throw std::invalid_argument("only the few-row GEMM kernel reads a bf16 B operand");
  }
  check_few_rows_transposes(trans_a);
  few_rows_with(library, trans_b, {m, n, k, alpha, a, lda, nullptr, b, ldb, beta, c, ldc});
}

void gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
          int ldb, float beta, float* c, int ldc) {
  if (gemm_registered_bf16(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)) return;  // a bf16 weight
  // OpenBLAS packs the rows of C (its column-major view's columns) into a per-thread buffer up to
  // the buffer's size, and the pages it touched stay resident: the embedding's dW += doutᵀ·inp over
  // Llama 3's 128K-row vocabulary left ~60 MB a thread (docs/performance.md, Memory). Blocks of
  // rows bound that; each block's elements sum over k as the whole product's do.
  const GemmLibrary library = gemm_library(trans_a, trans_b, m, n, k);
  for (int row = 0; row < m; row += kGemmRowBlock) {
    const int rows = std::min(kGemmRowBlock, m - row);
    const float* a_rows = trans_a ? a + row : a + std::size_t(row) * lda;
    gemm_with(library, trans_a, trans_b, rows, n, k, alpha, a_rows, lda, b, ldb, beta, c + std::size_t(row) * ldc, ldc);
  }
}

void gemm(bool trans_a, bool trans_b, int m, int n, int k, double alpha, const double* a, int lda, const double* b,
          int ldb, double beta, double* c, int ldc) {
  libraries().dgemm(CblasRowMajor, transpose(trans_a), transpose(trans_b), m, n, k, alpha, a, lda, b, ldb, beta, c,
                    ldc);
}

}  // namespace adjoint
