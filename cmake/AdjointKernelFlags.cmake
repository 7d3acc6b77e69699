# The few-row GEMM kernel is one body compiled once per instruction set (src/kernels/few_rows_*.cpp),
# each file with its own target (after -march=native, so it wins): the AVX2 one without AVX-512, as
# an AVX2-only CPU runs it. Every build that compiles src/kernels calls this from its own
# CMakeLists.txt (source properties belong to the directory that sets them).
function(adjoint_kernel_isa_flags kernels_dir)
  set_property(SOURCE ${kernels_dir}/few_rows_avx2.cpp APPEND PROPERTY COMPILE_OPTIONS -march=x86-64-v3)
  set_property(SOURCE ${kernels_dir}/few_rows_avx512.cpp APPEND PROPERTY COMPILE_OPTIONS -march=x86-64-v4)
endfunction()
