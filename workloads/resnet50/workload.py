"""ResNet-50 inference on ONNX Runtime (pip ``onnx`` and ``onnxruntime``, pinned in
requirements.txt): the overcommit family's deep-learning workload (seed 003).

``python -m workloads.resnet50.workload --batch B --images N --dataset-mib D --threads T`` builds
the ResNet-50 v1 graph locally with ``onnx.helper`` (224x224x3 input; 7x7 stem, bottleneck stages
of 3, 4, 6, 3 blocks; batch norm folded into the convolutions' biases; global average pool; a
1000-way fully connected layer: 25.5 M parameters) with random weights (seeded; nothing is
downloaded), and runs it on ONNX Runtime's CPU provider. Inputs come from an in-memory dataset of
``D`` MiB of random images, read batch after batch (each image once per pass): the model's
weights and activations are touched by every batch (hot), the dataset rarely (cold); with
``D`` = 0 one batch is reused (all hot, which exaggerates slowdowns). One warm-up batch, then
``N`` images are timed; prints ``images,seconds,images_per_s`` and the hot/cold sizes.

Training on PyTorch (the seed trains ResNet-50) is workloads/resnet50/train.py, the family's option.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

NAME = "resnet50"
BUILD = None  # Python packages (requirements.txt)
STAGES = [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]  # bottleneck width, blocks, first stride
PARAMETERS = 25_530_472  # what build() makes (folded batch norm: biases instead of BN parameters)


def check() -> str | None:
    """Whether the packages the point imports are installed (found, not imported: the planner asks
    in every Snakemake parse, and importing onnx and onnxruntime took 0.35 s of each)."""
    from importlib.util import find_spec  # noqa: PLC0415

    missing = [m for m in ("onnx", "onnxruntime") if find_spec(m) is None]
    return f"No module named {', '.join(map(repr, missing))} (pip install -r requirements.txt)" if missing else None


def argv(model: str, *, batch: int, images: int, dataset_mib: int, threads: int) -> list[str]:
    return ["python", "-m", "workloads.resnet50.workload", "run", "--model", model, "--batch", str(batch),
            "--images", str(images), "--dataset-mib", str(dataset_mib), "--threads", str(threads)]


def build_argv(model: str) -> list[str]:
    """Writes the graph to ``model`` beforehand (its construction's copies of the weights would
    otherwise be the run's peak memory)."""
    return ["python", "-m", "workloads.resnet50.workload", "build", "--out", model]


def remove_argv(model: str) -> list[str]:
    return ["python", "-m", "workloads.resnet50.workload", "remove", "--out", model]


def build(seed: int = 0):
    """The ResNet-50 graph (onnx ModelProto) with random weights; returns (model, parameters)."""
    import numpy as np  # noqa: PLC0415
    from onnx import TensorProto, helper, numpy_helper  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    nodes, inits = [], []
    count = [0]

    def name(p: str) -> str:
        count[0] += 1
        return f"{p}{count[0]}"

    def conv(x: str, cin: int, cout: int, k: int, stride: int, relu: bool = True) -> str:
        w, b, y = name("w"), name("b"), name("conv")
        scale = np.sqrt(2.0 / (cin * k * k))
        inits.append(numpy_helper.from_array((rng.standard_normal((cout, cin, k, k)) * scale).astype(np.float32), w))
        inits.append(numpy_helper.from_array(np.zeros(cout, np.float32), b))
        nodes.append(helper.make_node("Conv", [x, w, b], [y], kernel_shape=[k, k], strides=[stride, stride],
                                      pads=[k // 2] * 4))
        if not relu:
            return y
        r = name("relu")
        nodes.append(helper.make_node("Relu", [y], [r]))
        return r

    x = conv("input", 3, 64, 7, 2)
    p = name("pool")
    nodes.append(helper.make_node("MaxPool", [x], [p], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]))
    x, cin = p, 64
    for width, blocks, stride in STAGES:
        for i in range(blocks):
            s = stride if i == 0 else 1
            y = conv(x, cin, width, 1, 1)
            y = conv(y, width, width, 3, s)
            y = conv(y, width, width * 4, 1, 1, relu=False)
            short = conv(x, cin, width * 4, 1, s, relu=False) if i == 0 else x
            a, r = name("add"), name("relu")
            nodes += [helper.make_node("Add", [y, short], [a]), helper.make_node("Relu", [a], [r])]
            x, cin = r, width * 4
    g, f = name("gap"), name("flat")
    nodes += [helper.make_node("GlobalAveragePool", [x], [g]), helper.make_node("Flatten", [g], [f], axis=1)]
    inits.append(numpy_helper.from_array((rng.standard_normal((1000, 2048)) * 0.01).astype(np.float32), "fc_w"))
    inits.append(numpy_helper.from_array(np.zeros(1000, np.float32), "fc_b"))
    nodes.append(helper.make_node("Gemm", [f, "fc_w", "fc_b"], ["logits"], transB=1))
    graph = helper.make_graph(nodes, "resnet50", [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, 224, 224])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 1000])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="tierbench",
                              ir_version=8)  # what every onnxruntime of the last years reads
    params = sum(int(np.prod(t.dims)) for t in inits)
    return model, params


def timed(step, *, images: int, batch: int, n_data: int, cycle: bool) -> tuple[int, float]:
    """``step(first)`` on batch after batch of the dataset (``cycle``: through it, from its start
    again when the next batch does not fit; else the first batch every time) until ``images``
    images are done: (images done, seconds). Inference and training (train.py) share it."""
    done, pos = 0, 0
    t0 = time.monotonic()
    while done < images:
        if not cycle or pos + batch > n_data:
            pos = 0
        step(pos)
        done += batch
        pos += batch
    return done, time.monotonic() - t0


def summary(done: int, seconds: float, hot_mib: float, cold_mib: float) -> str:
    """The output :func:`parse` reads."""
    return (f"images={done}\nseconds={seconds:.6f}\nimages_per_s={done / seconds:.6f}\nhot_mib={hot_mib:.3f}\n"
            f"cold_mib={cold_mib:.3f}")


def parse(text: str) -> dict:
    vals = {}
    for ln in text.splitlines():
        if "=" in ln and not ln.startswith("#"):
            k, _, v = ln.partition("=")
            vals[k.strip()] = float(v)
    if "images_per_s" not in vals:
        raise ValueError("ResNet-50 output has no images_per_s line")
    return vals


def native(outdir: Path, files: dict) -> dict:
    p = parse((outdir / files["stdout"]).read_text())
    return {"metric": "images_per_s", "value": round(p["images_per_s"], 4), "unit": "images/s", "higher_is_better": True,
            "work": p["images"], "work_unit": "image", "extra": {"hot_mib": p["hot_mib"], "cold_mib": p["cold_mib"]}}


def main(args: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="ResNet-50 inference (random weights) on ONNX Runtime")
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="write the graph with random weights")
    b.add_argument("--out", required=True, type=Path)
    b.add_argument("--seed", type=int, default=0)
    rm = sub.add_parser("remove", help="remove the graph file")
    rm.add_argument("--out", required=True, type=Path)
    r = sub.add_parser("run")
    r.add_argument("--model", required=True)
    r.add_argument("--batch", type=int, default=1)
    r.add_argument("--images", type=int, default=16)
    r.add_argument("--dataset-mib", type=int, default=0)
    r.add_argument("--threads", type=int, default=1)
    r.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(args)
    if a.cmd == "build":
        model, params = build(a.seed)
        a.out.parent.mkdir(parents=True, exist_ok=True)
        tmp = a.out.with_suffix(".tmp")
        tmp.write_bytes(model.SerializeToString())
        tmp.replace(a.out)
        print(f"# ResNet-50: {params} parameters -> {a.out}")
        return 0
    if a.cmd == "remove":
        a.out.unlink(missing_ok=True)
        try:  # the scratch directory it was written to, once empty
            a.out.parent.rmdir()
        except OSError:
            pass
        return 0
    import numpy as np  # noqa: PLC0415
    import onnxruntime as ort  # noqa: PLC0415

    so = ort.SessionOptions()
    so.intra_op_num_threads = a.threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(a.model, so, providers=["CPUExecutionProvider"])
    params = PARAMETERS
    img = 3 * 224 * 224 * 4
    n_data = max(a.batch, (a.dataset_mib << 20) // img)
    rng = np.random.default_rng(a.seed + 1)
    data = rng.standard_normal((n_data, 3, 224, 224), dtype=np.float32)
    print(f"# parameters={params} dataset_images={n_data}", flush=True)
    sess.run(None, {"input": data[: a.batch]})  # warm-up (arena sized)
    done, dt = timed(lambda lo: sess.run(None, {"input": data[lo: lo + a.batch]}), images=a.images, batch=a.batch,
                     n_data=n_data, cycle=bool(a.dataset_mib))
    print(summary(done, dt, params * 4 / 2**20, n_data * img / 2**20 if a.dataset_mib else 0), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
