#!/usr/bin/python3
"""The PINN loss and its weight gradient (adjc: reverse over forward over forward) against PyTorch:
the Laplacian by autograd.grad with create_graph=True, the weight gradient by a backward through it.

   test_pytorch.py PINN_GRADIENT_DUMP
"""
import math
import subprocess
import sys

import torch


def read(binary):
    out = subprocess.run([binary], check=True, capture_output=True, text=True).stdout
    fields = {}
    for line in out.splitlines():
        name, *values = line.split()
        fields[name] = [float(v) for v in values]
    return fields


def network(w, width, xy):
    def layer(o, h, n_in, n_out):
        weights = w[o:o + n_out * n_in].reshape(n_out, n_in)
        bias = w[o + n_out * n_in:o + n_out * n_in + n_out]
        return torch.tanh(h @ weights.T + bias)

    o2 = 3 * width
    o3 = o2 + width * width + width
    o4 = o3 + width * width + width
    h = layer(0, xy, 2, width)
    h = layer(o2, h, width, width)
    h = layer(o3, h, width, width)
    return h @ w[o4:o4 + width] + w[o4 + width]


def loss(w, width, interior, boundary, boundary_weight):
    xy = interior.clone().requires_grad_(True)
    u = network(w, width, xy)
    (du,) = torch.autograd.grad(u.sum(), xy, create_graph=True)
    (uxx,) = torch.autograd.grad(du[:, 0].sum(), xy, create_graph=True)
    (uyy,) = torch.autograd.grad(du[:, 1].sum(), xy, create_graph=True)
    x, y = interior[:, 0], interior[:, 1]
    f = 2 * math.pi ** 2 * torch.sin(math.pi * x) * torch.sin(math.pi * y)
    r = -(uxx[:, 0] + uyy[:, 1]) - f
    edge = network(w, width, boundary)
    return (r * r).mean() + boundary_weight * (edge * edge).mean()


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: test_pytorch.py PINN_GRADIENT_DUMP")
    d = read(sys.argv[1])
    t = lambda v: torch.tensor(v, dtype=torch.float64)
    width = int(d["width"][0])
    w = t(d["w"]).requires_grad_(True)
    value = loss(w, width, t(d["interior"]).reshape(-1, 2), t(d["boundary"]).reshape(-1, 2),
                 d["boundary_weight"][0])
    (grad,) = torch.autograd.grad(value, w)
    ours = t(d["grad"])
    loss_error = abs(value.item() - d["loss"][0]) / abs(value.item())
    grad_error = ((grad - ours).abs().max() / grad.abs().max()).item()
    print(f"loss: adjc {d['loss'][0]:.15g}, pytorch {value.item():.15g} (relative difference {loss_error:.2e})")
    print(f"gradient ({len(ours)} weights): max |difference| / max |pytorch| = {grad_error:.2e}")
    # Both in double: agreement to rounding of a sum of fourth derivatives.
    if loss_error > 1e-12 or grad_error > 1e-10:
        sys.exit("FAIL: adjc and PyTorch differ beyond 1e-12 (loss) / 1e-10 (gradient)")
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
