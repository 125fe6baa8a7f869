"""ResNet-50 training on PyTorch (CPU): the overcommit family's optional training mode
(``overcommit/resnet50/mode: train``; seed 003 runs ResNet-50 training).

``python -m workloads.resnet50.train --batch B --images N --dataset-mib D --threads T`` builds
ResNet-50 v1 in plain ``torch.nn`` (the same stages as workload.py's inference graph, with batch
normalisation: 25.6 M parameters; no torchvision) with random weights (seeded; nothing is
downloaded) and trains it with SGD (momentum 0.9) and cross-entropy on random labels. Inputs come
from an in-memory dataset of ``D`` MiB of random 224x224 images read batch after batch (cold);
weights, gradients, momentum and activations are touched by every step (hot); with ``D`` = 0 one
batch is reused. One warm-up step, then ``N`` images are timed. Output: the inference module's
``images,seconds,images_per_s`` and hot/cold lines (its parser reads both), hot counting
weights, gradients and momentum (activations come on top, at about 100 MiB per image).

PyTorch is not in requirements.txt: its PyPI wheels for Linux bring the CUDA libraries (about
5 GB). ``pip install torch --index-url https://download.pytorch.org/whl/cpu`` is the CPU-only build.
"""

from __future__ import annotations

import argparse
import sys

from .workload import STAGES, summary, timed

IMAGE = 224
CLASSES = 1000


def check() -> str | None:
    try:
        import torch  # noqa: F401, PLC0415
    except ImportError as e:
        return (f"{e}: PyTorch is not installed (pip install torch --index-url https://download.pytorch.org/whl/cpu, "
                "or pip install torch for the PyPI build with its CUDA libraries)")
    return None


def argv(*, batch: int, images: int, dataset_mib: int, threads: int) -> list[str]:
    return ["python", "-m", "workloads.resnet50.train", "--batch", str(batch), "--images", str(images),
            "--dataset-mib", str(dataset_mib), "--threads", str(threads)]


def model(seed: int = 0):
    """ResNet-50 v1 (bottleneck blocks, stride on the 3x3 convolution's block entry as in v1)."""
    import torch  # noqa: PLC0415
    from torch import nn  # noqa: PLC0415

    torch.manual_seed(seed)

    def conv_bn(cin: int, cout: int, k: int, stride: int = 1) -> list:
        return [nn.Conv2d(cin, cout, k, stride, k // 2, bias=False), nn.BatchNorm2d(cout)]

    class Bottleneck(nn.Module):
        def __init__(self, cin: int, width: int, stride: int):
            super().__init__()
            self.body = nn.Sequential(*conv_bn(cin, width, 1), nn.ReLU(inplace=True),
                                      *conv_bn(width, width, 3, stride), nn.ReLU(inplace=True),
                                      *conv_bn(width, width * 4, 1))
            self.short = nn.Sequential(*conv_bn(cin, width * 4, 1, stride)) if stride != 1 or cin != width * 4 \
                else nn.Identity()
            self.relu = nn.ReLU(inplace=True)

        def forward(self, x):
            return self.relu(self.body(x) + self.short(x))

    layers: list = [*conv_bn(3, 64, 7, 2), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for width, blocks, stride in STAGES:
        for i in range(blocks):
            layers.append(Bottleneck(cin, width, stride if i == 0 else 1))
            cin = width * 4
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, CLASSES)]
    return nn.Sequential(*layers)


def main(args: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="ResNet-50 training (random weights and data) on PyTorch, CPU")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--images", type=int, default=8)
    ap.add_argument("--dataset-mib", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(args)
    import torch  # noqa: PLC0415

    torch.set_num_threads(a.threads)
    net = model(a.seed).train()
    params = sum(p.numel() for p in net.parameters())
    opt = torch.optim.SGD(net.parameters(), lr=1e-3, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    img = 3 * IMAGE * IMAGE * 4
    n_data = max(a.batch, (a.dataset_mib << 20) // img)
    gen = torch.Generator().manual_seed(a.seed + 1)
    data = torch.randn((n_data, 3, IMAGE, IMAGE), generator=gen)
    labels = torch.randint(0, CLASSES, (n_data,), generator=gen)
    print(f"# parameters={params} dataset_images={n_data}", flush=True)

    def step(lo: int) -> float:
        opt.zero_grad(set_to_none=False)  # gradients stay allocated: the same memory every step
        loss = loss_fn(net(data[lo: lo + a.batch]), labels[lo: lo + a.batch])
        loss.backward()
        opt.step()
        return float(loss)

    losses = [step(0)]  # warm-up: momentum buffers and the allocator's pools
    done, dt = timed(lambda lo: losses.append(step(lo)), images=a.images, batch=a.batch, n_data=n_data,
                     cycle=bool(a.dataset_mib))
    print(summary(done, dt, params * 4 * 3 / 2**20, n_data * img / 2**20 if a.dataset_mib else 0)
          + f"\nloss={losses[-1]:.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
