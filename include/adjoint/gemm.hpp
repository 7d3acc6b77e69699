// The GEMM under every matmul: OpenBLAS's OpenMP build (it shares one OpenMP thread pool with our
// kernels), loaded at first use with the kernel for this CPU's instruction set; for the forward's
// inp W^T of few rows our own kernel (src/kernels/few_rows.hpp); and for the backward's
// dinp = dout W of few rows, where it is measurably faster, oneDNN (its OpenMP build: the same
// pool), when installed. ADJOINT_GEMM=openblas runs every product on OpenBLAS.
//
// OpenBLAS picks its kernel by CPU model when it is loaded, and falls back to its oldest (SSE3)
// kernel on a model it does not know (a 4x loss on new Xeons). So nothing links OpenBLAS: the
// first GEMM reads the ISA with cpuid, sets OPENBLAS_CORETYPE to the matching kernel and then
// loads the library. An OPENBLAS_CORETYPE that the user set is kept (and reported, with a warning
// when its kernel is weaker than the CPU supports).
#pragma once
#include <cstdint>
#include <string>

namespace adjoint {

// Instruction-set levels that decide which GEMM kernel can run, weakest first.
enum class Isa { unknown, sse3, avx, avx2, avx512, avx512_bf16 };
const char* isa_name(Isa isa);

struct CpuFeatures {
  std::string vendor;  // "GenuineIntel", "AuthenticAMD", ...
  int family = 0, model = 0;
  Isa isa = Isa::unknown;  // the best level whose instructions the CPU and the OS both enable
};
CpuFeatures cpu_features();
// "AuthenticAMD family 26 model 2, AVX-512 with bf16"
std::string describe(const CpuFeatures& cpu);

// OpenBLAS's kernel (core type) for an ISA level ("Cooperlake", "SkylakeX", "Haswell",
// "Sandybridge"), or "" where OpenBLAS's own choice is as good as any.
std::string openblas_core_for(Isa isa);
// The ISA level an OpenBLAS core type's kernels use (unknown for a name it does not list).
Isa openblas_core_isa(const std::string& core);

// What runs the GEMMs, for logs and benchmarks.
struct GemmInfo {
  std::string library;  // "OpenBLAS 0.3.21"
  std::string kernel;   // "SkylakeX"
  Isa kernel_isa = Isa::unknown;
  CpuFeatures cpu;
  bool user_coretype = false;  // the kernel came from the user's OPENBLAS_CORETYPE
  std::string onednn;          // "oneDNN 2.6.3" when it runs some shapes, else ""
  bool few_rows = true;        // our few-row kernel runs inp W^T of few rows (false: ADJOINT_GEMM=openblas)
  // "gemm: OpenBLAS 0.3.21, SkylakeX kernel (AVX-512); ours (AVX-512) for inp W^T (<= 128 rows) and bf16 weights (<= 128 rows); oneDNN 2.6.3
  // for dinp = dout W (<= 256 rows), ..., 2 threads"
  std::string line(int threads) const;
  // "" or a one-line warning that the kernel is weaker than the CPU supports.
  std::string warning() const;
};
// Loads the library if needed. Throws std::runtime_error naming the library if it cannot.
const GemmInfo& gemm_info();

// Which library runs an sgemm of that shape. For products of few rows by a weight-sized B
// (n·k >= 2^19), on an AVX2 or AVX-512 CPU, our few-row kernel: the forward's inp W^T with at most
// kFewRowsMaxRows rows, and where oneDNN is not loaded the backward's dinp = dout W with at most
// kRowsTimesWeightMaxRows. Otherwise oneDNN (when loaded) for dinp = dout W of at most kOnednnMaxRows rows and, on one
// OpenMP thread, for inp W^T of at most kOnednnMaxForwardRows (up to kOnednnShallowForwardRows rows, a CPU
// without AVX2, only with k <= kOnednnMaxForwardDepth); OpenBLAS for the rest.
// few_rows_*: our own kernel for a · bᵀ and a · b (src/kernels/few_rows.hpp), per instruction set.
enum class GemmLibrary { openblas, onednn, few_rows_avx2, few_rows_avx512 };
constexpr int kFewRowsMaxRows = 128;
constexpr int kRowsTimesWeightMaxRows = 128;
constexpr int kOnednnMaxRows = 256;
constexpr int kOnednnMaxForwardRows = 256;
constexpr int kOnednnShallowForwardRows = 64;
constexpr int kOnednnMaxForwardDepth = 1024;
GemmLibrary gemm_library(bool trans_a, bool trans_b, int m, int n, int k);
// Which library runs a product whose B is a bf16 weight: our kernel, which reads it directly, for
// a · Wᵀ and a · W of at most kBf16DirectMaxRows rows (on an AVX2 or AVX-512 CPU, unless
// ADJOINT_GEMM=openblas); otherwise openblas, meaning B is converted to fp32 panels first
// (adjoint/bf16.hpp).
constexpr int kBf16DirectMaxRows = 128;
GemmLibrary bf16_weight_library(bool trans_a, bool trans_b, int m, int n, int k);
std::string onednn_shapes();

// Row-major C (m,n) = alpha op(A) op(B) + beta C, op(A) (m,k), op(B) (k,n); ld* as in CBLAS.
// The float one on the library gemm_library chooses for the whole product, in blocks of at most
// kGemmRowBlock rows of C (which bounds OpenBLAS's packing buffer; the same bits as one call);
// gemm_with on the one given, in one call (tests, benchmarks; throws std::runtime_error if it is
// not loaded or the CPU lacks its instructions, std::invalid_argument for a transpose it does not
// compute).
constexpr int kGemmRowBlock = 16384;
void gemm_with(GemmLibrary library, bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a,
               int lda, const float* b, int ldb, float beta, float* c, int ldc);
void gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
          int ldb, float beta, float* c, int ldc);
// gemm_with for a B operand in bf16 (the upper half of each fp32 value, widened exactly as it is
// read): our few-row kernel only (std::invalid_argument for another library or trans_a). The same
// bits as gemm_with on B converted to fp32.
void gemm_with_bf16(GemmLibrary library, bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a,
                    int lda, const std::uint16_t* b, int ldb, float beta, float* c, int ldc);
void gemm(bool trans_a, bool trans_b, int m, int n, int k, double alpha, const double* a, int lda, const double* b,
          int ldb, double beta, double* c, int ldc);

}  // namespace adjoint
