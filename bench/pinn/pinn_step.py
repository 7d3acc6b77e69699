#!/usr/bin/python3
"""The PINN training step of examples/pinn in PyTorch (float64, the same network, points, loss and
Adam): the Laplacian by autograd.grad(create_graph=True), then backward. Prints the median step's
wall time and process CPU time (all threads), and the OpenBLAS kernel that ran.

   pinn_step.py [--steps N] [--width W] [--interior N] [--boundary N]
"""
import argparse
import math
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from pytorch_step import openblas_kernel  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--interior", type=int, default=400)
    p.add_argument("--boundary", type=int, default=160)
    p.add_argument("--boundary-weight", type=float, default=100)
    a = p.parse_args()
    torch.manual_seed(1)
    dims = [2, a.width, a.width, a.width, 1]
    net = torch.nn.Sequential(*[m for i in range(4) for m in
                                ([torch.nn.Linear(dims[i], dims[i + 1])] + ([torch.nn.Tanh()] if i < 3 else []))]).double()
    interior = torch.rand(a.interior, 2, dtype=torch.float64)
    t = (torch.arange(a.boundary, dtype=torch.float64) // 4 + 0.5) / ((a.boundary + 3) // 4)
    side = torch.arange(a.boundary) % 4
    boundary = torch.stack([torch.where(side == 0, t, torch.where(side == 1, 1.0, torch.where(side == 2, 1 - t, 0.0))),
                            torch.where(side == 0, 0.0, torch.where(side == 1, t, torch.where(side == 2, 1.0, 1 - t)))], 1)
    f = 2 * math.pi ** 2 * torch.sin(math.pi * interior[:, 0]) * torch.sin(math.pi * interior[:, 1])
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    times, cpu_times = [], []
    for _ in range(a.steps):
        start, cpu_start = time.perf_counter(), time.process_time()
        opt.zero_grad()
        xy = interior.clone().requires_grad_(True)
        u = net(xy)
        (du,) = torch.autograd.grad(u.sum(), xy, create_graph=True)
        (uxx,) = torch.autograd.grad(du[:, 0].sum(), xy, create_graph=True)
        (uyy,) = torch.autograd.grad(du[:, 1].sum(), xy, create_graph=True)
        r = -(uxx[:, 0] + uyy[:, 1]) - f
        loss = (r * r).mean() + a.boundary_weight * (net(boundary) ** 2).mean()
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu_start)
    print(f"pytorch median step: {1e3 * statistics.median(times):.2f} ms, CPU time "
          f"{1e3 * statistics.median(cpu_times):.2f} ms (threads {torch.get_num_threads()}, loss {loss.item():.4e}, "
          f"GEMM kernel {openblas_kernel() or 'not OpenBLAS'})")


if __name__ == "__main__":
    main()
