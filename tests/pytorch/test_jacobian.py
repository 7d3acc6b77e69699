"""adjoint::jacobian (tests/pytorch/jacobian_points.cpp) against torch.autograd.functional.jacobian
in float64: every element within 1e-10 relative to max(1, |torch's|).

usage: test_jacobian.py <jacobian_points program>
"""
import subprocess
import sys

import torch

torch.set_default_dtype(torch.float64)


def ring(x):
    return torch.sin(x) * torch.roll(x, -1) + torch.exp(0.1 * x)


def softmax(x):
    return torch.softmax(x, dim=0)


def layer(xs):  # xs = x then s; outputs y then the norm
    x, s = xs[:-1], xs[-1]
    y = torch.tanh(s * x) * torch.roll(x, -2)
    return torch.cat([y, torch.sqrt((y * y).sum()).reshape(1)])


CASES = {
    "ring": (ring, [0.3, -1.2, 0.8, 2.1]),
    "softmax": (softmax, [0.5, -0.25, 1.5, 0.0, -2.0]),
    "layer": (layer, [0.4, -0.9, 1.3, 0.7]),
}


def main():
    out = subprocess.run([sys.argv[1]], check=True, capture_output=True, text=True).stdout
    seen = set()
    failures = 0
    for line in out.splitlines():
        name, rows, cols, *values = line.split()
        fn, point = CASES[name]
        expected = torch.autograd.functional.jacobian(fn, torch.tensor(point))
        got = torch.tensor([float(v) for v in values]).reshape(int(rows), int(cols))
        if got.shape != expected.shape:
            print(f"{name}: shape {tuple(got.shape)}, torch {tuple(expected.shape)}")
            failures += 1
            continue
        error = ((got - expected).abs() / expected.abs().clamp(min=1)).max().item()
        print(f"{name}: {rows}x{cols}, largest relative difference {error:.2e}")
        failures += error > 1e-10
        seen.add(name)
    missing = set(CASES) - seen
    if missing:
        print("missing:", ", ".join(sorted(missing)))
    return 1 if failures or missing else 0


if __name__ == "__main__":
    sys.exit(main())
