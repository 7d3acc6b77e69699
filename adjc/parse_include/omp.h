/* The OpenMP API as adjc's parser sees it. Clang has no <omp.h> here and GCC's does not parse
   with clang, but adjc only needs the declarations: the real compiler builds adjc's output
   with the real header. */
#ifndef ADJC_PARSE_OMP_H
#define ADJC_PARSE_OMP_H
#ifdef __cplusplus
extern "C" {
#define ADJC_OMP_NOEXCEPT noexcept
#else
#define ADJC_OMP_NOEXCEPT
#endif
void omp_set_num_threads(int) ADJC_OMP_NOEXCEPT;
int omp_get_num_threads(void) ADJC_OMP_NOEXCEPT;
int omp_get_max_threads(void) ADJC_OMP_NOEXCEPT;
int omp_get_thread_num(void) ADJC_OMP_NOEXCEPT;
int omp_get_num_procs(void) ADJC_OMP_NOEXCEPT;
int omp_in_parallel(void) ADJC_OMP_NOEXCEPT;
void omp_set_dynamic(int) ADJC_OMP_NOEXCEPT;
int omp_get_dynamic(void) ADJC_OMP_NOEXCEPT;
double omp_get_wtime(void) ADJC_OMP_NOEXCEPT;
double omp_get_wtick(void) ADJC_OMP_NOEXCEPT;
#ifdef __cplusplus
}
#endif
#endif
