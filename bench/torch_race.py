#!/usr/bin/env python3
"""bench/torch_race.py - PyTorch in the MSA race: the layer of chapters 6, 7 and 9
written as a PyTorch module, run on the very inputs a chapter program saved.

    build/chapter7 B=1 S=512 N=256 D=256 H=8 mask=kept --kernel fused-tiled \\
        --check-only --save build/torch/kept
    build/chapter7 B=1 S=512 N=256 D=256 H=8 mask=pad --kernel fused-tiled \\
        --check-only --save build/torch/pad
    python3 bench/torch_race.py --csv plots/data/msa.csv build/torch/kept build/torch/pad

For each DIR it loads DIR/<name>.npy (the eleven inputs and out.npy, the
chapter kernel's output) and DIR/shape.txt (the run's CSV shape, which names
H and the mask kind); every DIR must hold the same sizes (the masks may
differ), so that each way of running is compiled once. It builds the module (LayerNorm; Q, K, V without bias; the gate with
bias and a sigmoid; the masked softmax over the kept keys of each column;
gating; the output projection with bias: docs/design.md, "The MSA layer"),
checks its output against out.npy, and times four ways of running it:

    torch-eager          eager, FP32 with TF32 off
    torch-compile        torch.compile(mode="max-autotune-no-cudagraphs"), TF32 off
    torch-eager-tf32     eager, TF32 on (matrix products on the tensor cores)
    torch-compile-tf32   compiled, TF32 on

Each is timed as the chapter programs time kernels: warm-up first (the
compile time is excluded from the timing and printed), the L2 cache flushed
before every repetition, CUDA events around the forward alone, the median,
min and max of --reps repetitions (at least 20). With --csv it appends one
row per way, with the header of plots/data (chapter 6, problem msa, the
dense work of the layer for GFLOP/s as the chapter programs count it).

Exit status: 0 every check passed, 1 a check failed, 2 bad arguments or
files, 77 torch (or numpy, or a CUDA GPU) is not available here.
"""
import argparse
import datetime
import fcntl
import os
import sys

HEADER = "chapter,kernel,problem,shape,median_ms,min_ms,max_ms,gflops,gbps,gpu,cuda,commit,date"
INPUT_NAMES = ["msa", "mask", "ln_gamma", "ln_beta", "wq", "wk", "wv", "wg", "bg", "wo", "bo"]
TOLERANCE = {"fp32": 1e-5, "tf32": 2e-3}  # as the chapter programs check (docs/design.md)
WAYS = [("torch-eager", False, "fp32"), ("torch-compile", True, "fp32"),
        ("torch-eager-tf32", False, "tf32"), ("torch-compile-tf32", True, "tf32")]


def fail(message, status=2):
    print("torch_race.py: " + message, file=sys.stderr)
    sys.exit(status)


def dense_flops(B, S, N, D):
    """The layer's dense work, as common/problems/msa_reference.c counts it."""
    return B * (10.0 * S * N * D * D + 4.0 * N * S * S * D)


def compulsory_bytes(B, S, N, D):
    """Each input read once and the output written once (common/problems/msa_reference.c)."""
    return 4.0 * (2.0 * B * S * N * D + B * S * N + 5.0 * D * D + 4.0 * D)


def parse_shape(text, where):
    """'B=1 S=512 N=256 D=256 H=8 mask=kept' -> ({'B': 1, ...}, 'kept')."""
    fields = dict(part.split("=", 1) for part in text.split() if "=" in part)
    try:
        sizes = {key: int(fields[key]) for key in ("B", "S", "N", "D", "H")}
    except (KeyError, ValueError):
        fail("%s: '%s' is not a shape B=.. S=.. N=.. D=.. H=.. mask=.." % (where, text))
    if fields.get("mask") not in ("drawn", "kept", "pad"):
        fail("%s: '%s' names no mask kind (drawn, kept or pad)" % (where, text))
    return sizes, fields["mask"]


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", metavar="DIR",
                        help="a folder a chapter program wrote with --save")
    parser.add_argument("--csv", help="append one row per way of running and folder to this file")
    parser.add_argument("--reps", type=int, default=30, help="timed repetitions (at least 20)")
    parser.add_argument("--ways", default=",".join(w[0] for w in WAYS),
                        help="comma-separated subset of " + ", ".join(w[0] for w in WAYS))
    args = parser.parse_args()
    if args.reps < 20:
        fail("--reps %d: at least 20 repetitions" % args.reps)
    known = {w[0] for w in WAYS}
    for way in args.ways.split(","):
        if way not in known:
            fail("unknown way '%s'; choose from %s" % (way, ", ".join(sorted(known))))
    args.shapes = []
    for folder in args.dirs:
        for name in INPUT_NAMES + ["out"]:
            path = os.path.join(folder, name + ".npy")
            if not os.path.isfile(path):
                fail("%s: no such file (write the folder with a chapter program's --save)" % path)
        path = os.path.join(folder, "shape.txt")
        if not os.path.isfile(path):
            fail("%s: no such file (a chapter program's --save writes it)" % path)
        with open(path, encoding="utf-8") as handle:
            shape = handle.readline().strip()
        sizes, _ = parse_shape(shape, path)
        if args.shapes and sizes != parse_shape(args.shapes[0], path)[0]:
            fail("%s: %s differs in size from %s (one call races one size)" %
                 (folder, shape, args.shapes[0]))
        args.shapes.append(shape)
    if args.csv:
        folder = os.path.dirname(os.path.abspath(args.csv))
        if not os.access(folder, os.W_OK):
            fail("--csv %s: cannot write in %s" % (args.csv, folder))
    return args


def append_row(path, fields):
    """One row, whole, in one write, under a lock; the header first if the file is new."""
    line = ",".join(fields) + "\n"
    with open(path, "a+", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        text = handle.read()
        if text and text.split("\n", 1)[0].strip() != HEADER:
            fail("%s does not start with the header\n  %s" % (path, HEADER), 1)
        out = ""
        if not text:
            out = HEADER + "\n"
        elif not text.endswith("\n"):
            out = "\n"  # a last line without its newline: finish it first
        handle.write(out + line)
        handle.flush()
        fcntl.flock(handle, fcntl.LOCK_UN)


def main():
    args = parse_arguments()
    try:
        import numpy
        import torch
    except ImportError as error:
        print("SKIPPED: %s (torch_race.py needs numpy and torch)" % error)
        sys.exit(77)
    if not torch.cuda.is_available():
        print("SKIPPED: torch sees no CUDA GPU")
        sys.exit(77)

    def load(folder, name):
        try:
            array = numpy.load(os.path.join(folder, name + ".npy"), allow_pickle=False)
        except (OSError, ValueError) as error:
            fail("%s/%s.npy: %s" % (folder, name, error))
        if array.dtype != numpy.float32:
            fail("%s/%s.npy: dtype %s, expected float32" % (folder, name, array.dtype))
        return torch.from_numpy(numpy.ascontiguousarray(array)).cuda()

    sizes, _ = parse_shape(args.shapes[0], "shape.txt")
    B, S, N, D, H = (sizes[key] for key in ("B", "S", "N", "D", "H"))
    if D % H:
        fail("D=%d is not a multiple of H=%d" % (D, H))
    d = D // H
    expected = {"msa": (B, S, N, D), "mask": (B, S, N), "ln_gamma": (D,), "ln_beta": (D,),
                "wq": (D, D), "wk": (D, D), "wv": (D, D), "wg": (D, D), "bg": (D,),
                "wo": (D, D), "bo": (D,), "out": (B, S, N, D)}
    runs = []
    for folder, shape in zip(args.dirs, args.shapes):
        tensors = {name: load(folder, name) for name in INPUT_NAMES + ["out"]}
        for name, want in expected.items():
            if tuple(tensors[name].shape) != want:
                fail("%s/%s.npy has shape %s, expected %s" %
                     (folder, name, tuple(tensors[name].shape), want))
        runs.append((folder, shape, tensors))

    class ColumnGatedAttention(torch.nn.Module):
        """MSA column-wise gated self-attention, AlphaFold 2's Evoformer layer."""

        def __init__(self):
            super().__init__()
            self.norm = torch.nn.LayerNorm(D, eps=1e-5)
            self.q = torch.nn.Linear(D, D, bias=False)
            self.k = torch.nn.Linear(D, D, bias=False)
            self.v = torch.nn.Linear(D, D, bias=False)
            self.gate = torch.nn.Linear(D, D)
            self.out = torch.nn.Linear(D, D)

        def forward(self, x, mask):
            x = self.norm(x.transpose(1, 2))  # (B, N, S, D): attention runs down each column
            split = lambda y: y.view(B, N, S, H, d).transpose(2, 3)  # (B, N, H, S, d)
            q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
            scores = q @ k.transpose(-1, -2) / d ** 0.5  # (B, N, H, S, S)
            keep = (mask.transpose(1, 2) != 0)[:, :, None, None, :]  # (B, N, 1, 1, S)
            weights = torch.softmax(scores.masked_fill(~keep, float("-inf")), dim=-1)
            # A column with no kept key: -inf everywhere gives NaN; the layer says O = 0.
            weights = torch.where(keep.any(dim=-1, keepdim=True), weights, 0.0)
            o = (weights @ v).transpose(2, 3).reshape(B, N, S, D)
            o = torch.sigmoid(self.gate(x)) * o
            return self.out(o).transpose(1, 2)  # back to (B, S, N, D)

    module = ColumnGatedAttention().cuda().eval()

    def set_parameters(tensors):
        with torch.no_grad():
            module.norm.weight.copy_(tensors["ln_gamma"])
            module.norm.bias.copy_(tensors["ln_beta"])
            module.q.weight.copy_(tensors["wq"])  # W[out][in], as nn.Linear keeps it
            module.k.weight.copy_(tensors["wk"])
            module.v.weight.copy_(tensors["wv"])
            module.gate.weight.copy_(tensors["wg"])
            module.gate.bias.copy_(tensors["bg"])
            module.out.weight.copy_(tensors["wo"])
            module.out.bias.copy_(tensors["bo"])

    properties = torch.cuda.get_device_properties(0)
    flush = torch.empty(2 * max(properties.L2_cache_size, 1 << 20) // 4, device="cuda")
    flops, traffic = dense_flops(B, S, N, D), compulsory_bytes(B, S, N, D)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    commit = os.environ.get("WORKBOOK_COMMIT", "unknown")
    print("%s, B=%d S=%d N=%d D=%d H=%d, torch %s; inputs from %s" %
          (torch.cuda.get_device_name(0), B, S, N, D, H, torch.__version__, " ".join(args.dirs)))
    failed = False
    for name, compiled, precision in WAYS:
        if name not in args.ways.split(","):
            continue
        torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
        torch.backends.cudnn.allow_tf32 = precision == "tf32"
        torch._dynamo.reset()
        forward = torch.compile(module, mode="max-autotune-no-cudagraphs") if compiled else module
        for folder, shape, tensors in runs:
            set_parameters(tensors)
            msa, mask, ours = tensors["msa"], tensors["mask"], tensors["out"]
            started = datetime.datetime.now()
            with torch.no_grad():
                for _ in range(3):  # warm-up: module loading, autotuning, compilation
                    got = forward(msa, mask)
                torch.cuda.synchronize()
                warm_seconds = (datetime.datetime.now() - started).total_seconds()
                error = (torch.linalg.vector_norm((got - ours).double()) /
                         torch.linalg.vector_norm(ours.double())).item()
                passed = bool(torch.isfinite(got).all()) and error < TOLERANCE[precision]
                print("check %-20s %-40s %s rel_l2 %.2e against out.npy (tolerance %.0e)" %
                      (name, shape, "PASS" if passed else "FAIL", error, TOLERANCE[precision]))
                if not passed:
                    failed = True
                    continue
                times = []
                for _ in range(args.reps):
                    flush.zero_()
                    start = torch.cuda.Event(enable_timing=True)
                    stop = torch.cuda.Event(enable_timing=True)
                    start.record()
                    forward(msa, mask)
                    stop.record()
                    stop.synchronize()
                    times.append(start.elapsed_time(stop))
            times.sort()
            middle = len(times) // 2
            median = times[middle] if len(times) % 2 else 0.5 * (times[middle - 1] + times[middle])
            print("%-20s %-40s median %.4f ms (min %.4f, max %.4f), %.0f GFLOP/s; warm-up and "
                  "compile %.1f s" % (name, shape, median, times[0], times[-1],
                                      flops / (median * 1e6), warm_seconds))
            if args.csv:
                append_row(args.csv, ["6", name, "msa", shape, "%.6f" % median, "%.6f" % times[0],
                                      "%.6f" % times[-1], "%.1f" % (flops / (median * 1e6)),
                                      "%.1f" % (traffic / (median * 1e6)),
                                      torch.cuda.get_device_name(0),
                                      torch.version.cuda or "unknown", commit, date])
    print("FAILED" if failed else "all checks passed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
