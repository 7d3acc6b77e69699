#!/usr/bin/python3
"""Whether a backward that *writes* its weight gradients (beta = 0 in dW = doutᵀ·inp) would move fewer
bytes than one that adds into gradients the AdamW update zeroed (beta = 1): the OpenMP OpenBLAS
adjoint loads, GPT-2 124M's largest dW (the vocabulary's, 50304 x 768) at B·T rows, medians of the
process's CPU time (steady on a shared machine with one thread). OpenBLAS applies beta != 1 as a
pass of its own over C before its kernels add into it, so beta = 0 costs more, not less
(docs/performance.md, Bytes a step moves).
Usage: OMP_NUM_THREADS=1 bench/gemm/first_write.py [rows (B·T), default 16] [repetitions, default 12]"""
import ctypes
import statistics
import sys
import time

import numpy as np

openblas = ctypes.CDLL("/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0")
rows = int(sys.argv[1]) if len(sys.argv) > 1 else 16
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 12
V, C = 50304, 768
dout, inp = np.ones((rows, V), np.float32), np.ones((rows, C), np.float32)
grad = np.ones((V, C), np.float32)


def dW_ms(beta):
    start = time.process_time()
    # Row-major grad[V x C] = doutᵀ[V x rows] · inp[rows x C] + beta grad (CblasRowMajor, Trans, NoTrans).
    openblas.cblas_sgemm(101, 112, 111, V, C, rows, ctypes.c_float(1.0), ctypes.c_void_p(dout.ctypes.data), V,
                         ctypes.c_void_p(inp.ctypes.data), C, ctypes.c_float(beta),
                         ctypes.c_void_p(grad.ctypes.data), C)
    return (time.process_time() - start) * 1e3


times = {0.0: [], 1.0: []}
for _ in range(reps):
    for beta in times:  # interleaved, so a change in load hits both
        times[beta].append(dW_ms(beta))
for beta, ms in times.items():
    print(f"dW {V}x{C} from {rows} rows, beta {beta:g}: {statistics.median(ms):.1f} ms CPU (median of {reps})")
